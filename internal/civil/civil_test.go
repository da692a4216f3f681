package civil

import (
	"testing"
	"time"
)

// Days and Date agree with package time, and with each other, from before
// year 0 to past 9999.
func TestAgainstTime(t *testing.T) {
	for z := -800_000; z < 3_000_000; z += 37 {
		y, m, d := Date(z)
		want := time.Unix(int64(z)*86400, 0).UTC()
		if y != want.Year() || m != int(want.Month()) || d != want.Day() {
			t.Fatalf("Date(%d) = %d-%d-%d, time says %v", z, y, m, d, want)
		}
		if Days(y, m, d) != z {
			t.Fatalf("Days(%d, %d, %d) = %d, want %d", y, m, d, Days(y, m, d), z)
		}
	}
}
