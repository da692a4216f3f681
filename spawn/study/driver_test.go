package study

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The bench's page-cache figures: a file written 2 MiB at a time is in 2
// MiB folios (where the filesystem keeps them), one written 4 KiB at a time
// is not, and a set with no whole 2 MiB block has no folio figure.
func TestResidentFolios(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, chunk int) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		row := bytes.Repeat([]byte("Europe,1.00\n"), chunk/12+1)[:chunk]
		for range (4 << 20) / chunk {
			if _, err := f.Write(row); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big, small := write("big.csv", 2<<20), write("small.csv", 4096)
	f, hf, err := resident([]string{big})
	if err != nil || f != 1 {
		t.Fatalf("resident %v, %v", f, err)
	}
	if math.IsNaN(hf) {
		t.Skip("this kernel does not say how the page cache holds a file")
	}
	if hf == 0 {
		t.Skip("this filesystem keeps no 2 MiB folios")
	}
	if hf < 0.5 {
		t.Errorf("written 2 MiB at a time: %.2f in 2 MiB folios", hf)
	}
	if _, hf, _ := resident([]string{small}); hf != 0 {
		t.Errorf("written 4 KiB at a time: %.2f in 2 MiB folios", hf)
	}
	if _, both, _ := resident([]string{big, small}); both < 0.4 || both > 0.6 {
		t.Errorf("half of it in 2 MiB folios, it says %.2f", both)
	}
	tiny := filepath.Join(dir, "tiny.csv")
	os.WriteFile(tiny, bytes.Repeat([]byte("Europe,1.00\n"), 300), 0o644)
	if _, hf, _ := resident([]string{tiny}); !math.IsNaN(hf) {
		t.Errorf("a file with no whole 2 MiB block: %v", hf)
	}
}
