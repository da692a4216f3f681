package scan

import (
	"os"
	"testing"

	"parlab/internal/testrun"
)

func TestMain(m *testing.M) {
	testrun.LessGC()
	os.Exit(m.Run())
}

// oneGoroutine leaves t to the full run (testrun.FullRunOnly): t checks
// code that runs in one goroutine, where the race detector has nothing to
// judge and only slows the check. The scanner's goroutines (MergeAll,
// EachRow) are tested under -race by TestMergeAll and TestEachRow.
func oneGoroutine(t testing.TB) {
	t.Helper()
	testrun.FullRunOnly(t, "one goroutine, checked at length")
}
