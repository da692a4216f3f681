//go:build race

package spawn

// raceBuild: this test binary, and so every worker child it starts, is
// race-built, and a child takes up to a second to start.
const raceBuild = true
