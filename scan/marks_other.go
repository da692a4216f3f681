//go:build !amd64

package scan

func classify(src []byte, m *marks, v0 int, sep byte) tally {
	return classifyGeneric(src, m, v0, sep)
}

func classifyAhead(src []byte, m *marks, v0 int, sep byte) tally {
	return classifyGeneric(src, m, v0, sep)
}
