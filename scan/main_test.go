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
