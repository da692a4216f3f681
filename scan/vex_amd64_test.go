package scan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A legacy SSE instruction on an X register while a YMM or ZMM register's
// upper half is dirty costs a state transition on some CPUs (each
// `MOVQ AX, X0` between the AVX2 classifier's broadcasts did, on a Zen 3:
// docs/experiments.md, 2026-12-07). So in the assembly, from the first
// Y or Z register of a function to its next VZEROUPPER (in the text's
// order), every instruction on an X register is VEX or EVEX encoded.
func TestNoSSEBesideAVX(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly: %v", err)
	}
	wide := regexp.MustCompile(`\b[YZ]\d+\b`)
	xreg := regexp.MustCompile(`\bX\d+\b`)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dirty, fn := false, ""
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			code = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(code), `\`))
			fields := strings.Fields(code)
			if len(fields) == 0 {
				continue
			}
			op := fields[0]
			switch {
			case op == "TEXT":
				dirty, fn = false, fields[1]
				continue
			case op == "VZEROUPPER":
				dirty = false
				continue
			case wide.MatchString(code):
				dirty = true
			}
			if dirty && !strings.HasPrefix(op, "V") && !strings.HasPrefix(op, "K") && xreg.MatchString(code) {
				t.Errorf("%s:%d (%s): %s is legacy SSE on an X register after a Y or Z register, before VZEROUPPER: use its VEX form", f, i+1, fn, code)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("checked only %d lines of assembly", checked)
	}
}
