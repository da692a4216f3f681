// Command parlab-session-plain is the FTP processes model's session process
// for a server without TLS: package ftp's session mode built with the
// notls tag, so that crypto/tls and crypto/x509 are not linked, and their
// start (the pages their initialisers touch) is not paid by every session.
// A server with TLS starts parlab-session instead (internal/child's Exe
// says when each is used; the start of each is measured in
// docs/experiments.md, 2026-12-06). make build builds it with -tags notls;
// it is not run by hand: with no child mode in its arguments it says so
// and exits 2.
package main

import (
	"os"

	_ "parlab/ftp" // registers the session mode
	"parlab/internal/child"
)

func main() {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(child.NotByHand(os.Stderr, "parlab-session-plain", "parlab ftp serve --model processes without TLS"))
}
