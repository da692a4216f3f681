package names

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	tb := Table{{"mmap", "zero-copy"}, {"read", "read(2)"}}
	if i, err := tb.Parse("I/O mode", "read"); err != nil || i != 1 || tb.Name(i) != "read" {
		t.Errorf("read: %d, %v", i, err)
	}
	if _, err := tb.Parse("I/O mode", "fread"); err == nil || err.Error() != `unknown I/O mode "fread" (want mmap, read)` {
		t.Errorf("fread: %v", err)
	}
	if h := tb.Help(); h != "mmap (zero-copy), read (read(2))" || !strings.Contains(h, "read(2)") {
		t.Errorf("help: %q", h)
	}
}
