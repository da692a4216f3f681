// Command parlab answers one filter-and-sum query over CSV files as fast as
// the machine allows, with several ways of running it in parallel, and
// measures why one beats another. Run "parlab help" for the commands.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
