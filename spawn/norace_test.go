//go:build !race

package spawn

// raceBuild: see race_test.go.
const raceBuild = false
