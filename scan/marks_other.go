//go:build !amd64

package scan

func classify(src []byte, m *marks, v0 int) tally { return classifyGeneric(src, m, v0) }
