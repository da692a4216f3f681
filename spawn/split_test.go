package spawn

import (
	"slices"
	"testing"
)

// A split a command line names is one of Splits; the two a Report names
// besides (SplitNone, SplitStream) are read back only from a report.
func TestSplitNames(t *testing.T) {
	for _, sp := range Splits() {
		if got, err := ParseSplit(sp.String()); err != nil || got != sp {
			t.Errorf("ParseSplit(%q) = %v, %v", sp, got, err)
		}
		var u Split
		if err := u.UnmarshalText([]byte(sp.String())); err != nil || u != sp {
			t.Errorf("UnmarshalText(%q) = %v, %v", sp, u, err)
		}
	}
	for _, sp := range []Split{SplitNone, SplitStream} {
		if slices.Contains(Splits(), sp) {
			t.Errorf("Splits offers %q", sp)
		}
		if _, err := ParseSplit(sp.String()); err == nil {
			t.Errorf("ParseSplit takes %q, which no one asks for", sp)
		}
		var u Split
		if err := u.UnmarshalText([]byte(sp.String())); err == nil {
			t.Errorf("a flag takes %q", sp)
		}
		if got, err := ParseReportedSplit(sp.String()); err != nil || got != sp {
			t.Errorf("ParseReportedSplit(%q) = %v, %v", sp, got, err)
		}
	}
	if _, err := ParseReportedSplit("sideways"); err == nil {
		t.Error("ParseReportedSplit takes an unknown split")
	}
	// every strategy's Caps say which splits stream, as Streams asks them
	for _, c := range []struct {
		st    Strategy
		split Split
		want  bool
	}{{Sequential{}, SplitFile, true}, {Goroutines{}, SplitRows, true}, {Goroutines{}, SplitAuto, true},
		{Goroutines{}, SplitKeys, false}, {Goroutines{}, SplitFile, false}, {Processes{}, SplitRows, false}, {MPI{}, SplitRows, false}, {Floor{}, SplitRows, false}} {
		if got := Streams(c.st, c.split); got != c.want {
			t.Errorf("Streams(%s, %s) = %v", c.st.Name(), c.split, got)
		}
	}
}
