//go:build !amd64

package scan

func classify(src []byte, m *marks) { classifyGeneric(src, m) }
