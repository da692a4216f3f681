package scan

// allClassifiers lists every classifier this CPU runs, by name.
func allClassifiers() map[string]func([]byte, *marks, byte) tally {
	all := map[string]func([]byte, *marks, byte) tally{}
	for name, f := range classifiers() {
		all[name] = func(src []byte, m *marks, v0 byte) tally { return classifyWith(f, src, m, v0) }
	}
	return all
}
