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

// Unmarshal sets the value a name gives, and leaves it as it was on an
// unknown name, saying the kind and every name.
func TestUnmarshal(t *testing.T) {
	type kind int
	tb := Table{{Name: "a", Help: "one"}, {Name: "b", Help: "two"}}
	v := kind(0)
	if err := Unmarshal(tb, "letter", []byte("b"), &v); err != nil || v != 1 {
		t.Fatalf("b: %v, %v", v, err)
	}
	if err := Unmarshal(tb, "letter", []byte("c"), &v); err == nil || v != 1 || err.Error() != `unknown letter "c" (want a, b)` {
		t.Fatalf("c: %v, %v", v, err)
	}
}
