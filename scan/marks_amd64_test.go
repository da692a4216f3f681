package scan

// allClassifiers lists every classifier this CPU runs, by name.
func allClassifiers() map[string]func([]byte, *marks, byte) tally {
	all := map[string]func([]byte, *marks, byte) tally{}
	for _, c := range classifiers() {
		name := [...]string{useGeneric: "generic", useAVX2: "avx2", useAVX512: "avx512"}[c]
		all[name] = func(src []byte, m *marks, v0 byte) tally { return classifyWith(c, src, m, v0) }
	}
	return all
}
