package scan

import "testing"

// fullRunOnly skips t under -short. make test runs every test twice: in
// full without the race detector, and with it under -short. A test that
// checks single-goroutine code against the reference at length has no race
// to find and costs minutes under the detector, so it runs in the full
// run only; tests of the parallel merge and table stay in both.
func fullRunOnly(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: single-goroutine reference checks run in the full run (make test runs both)")
	}
}
