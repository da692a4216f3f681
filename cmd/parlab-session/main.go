// Command parlab-session is the FTP server's session process for the
// processes model: package ftp's session mode and nothing else linked
// (no query engine, no plots), so a session starts in about half of
// parlab's time and holds less private memory (internal/child's Exe says
// when it is used). It is not run by hand: with no child mode in its
// arguments it says so and exits 2.
package main

import (
	"fmt"
	"os"

	_ "parlab/ftp" // registers the session mode
	"parlab/internal/child"
)

func main() {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	fmt.Fprintln(os.Stderr, "parlab-session: started by parlab ftp serve --model processes, not by hand")
	os.Exit(2)
}
