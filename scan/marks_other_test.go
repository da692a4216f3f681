//go:build !amd64

package scan

// allClassifiers lists every classifier this CPU runs, by name: on this
// architecture only the portable one, which the tests compare with
// refClassify.
func allClassifiers() map[string]func([]byte, *marks, int, byte) tally {
	return map[string]func([]byte, *marks, int, byte) tally{"generic": classify}
}

// hotModes lists the ways bulk can take its rows: here only the portable
// loop.
func hotModes() []func() string {
	return []func() string{func() string { return "portable" }}
}
