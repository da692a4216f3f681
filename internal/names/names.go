// Package names is the one registry behind parlab's named choices (an I/O
// mode, a split, an FTP model): a type's values in order, each with its
// name and what it does, from which parsing, printing and help text all
// come, so they cannot drift apart. It imports nothing of parlab.
package names

import (
	"fmt"
	"strings"
)

// Entry is one value's name and a few words on what it does.
type Entry struct{ Name, Help string }

// Table is a type's values, in the order of their numbers: value i is
// Table[i].
type Table []Entry

// Name is value i's name.
func (t Table) Name(i int) string { return t[i].Name }

// Parse is the number of the value named s, or an error that says what
// (what: "I/O mode", "split") was given and lists every name.
func (t Table) Parse(what, s string) (int, error) {
	var all []string
	for i, e := range t {
		if e.Name == s {
			return i, nil
		}
		all = append(all, e.Name)
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", what, s, strings.Join(all, ", "))
}

// Help lists the values and what each does: "mmap (zero-copy), read
// (read(2))".
func (t Table) Help() string {
	var parts []string
	for _, e := range t {
		parts = append(parts, e.Name+" ("+e.Help+")")
	}
	return strings.Join(parts, ", ")
}

// Unmarshal sets *v to the value of t named b, or says what is wrong as
// Parse does (what names the kind): the body of an UnmarshalText, which
// flag.TextVar and JSON call.
func Unmarshal[T ~int](t Table, what string, b []byte, v *T) error {
	i, err := t.Parse(what, string(b))
	if err == nil {
		*v = T(i)
	}
	return err
}
