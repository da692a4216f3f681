// Command parlab-session is the FTP lab's lean child: the server's session
// process for the processes model (package ftp's session mode) and the
// load generator's client process (ftp load --clients processes), and
// nothing else linked (no query engine, no plots), so either starts in
// about half of parlab's time and holds less private memory
// (internal/child's Exe says when it is used). It is not run by hand: with no child mode in its
// arguments it says so and exits 2.
package main

import (
	"os"

	_ "parlab/ftp"      // registers the session mode
	_ "parlab/ftp/load" // registers the load client's mode
	"parlab/internal/child"
)

func main() {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(child.NotByHand(os.Stderr, "parlab-session", "parlab ftp serve --model processes and parlab ftp load --clients processes"))
}
