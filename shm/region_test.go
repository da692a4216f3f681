package shm

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A region written by one mapping is seen through another mapping of the
// same descriptor (as a child process maps it), atomics included.
func TestRegion(t *testing.T) {
	r, err := NewRegion(4096)
	if err != nil {
		t.Fatal(err)
	}
	dup, err := unix.Dup(r.Fd())
	if err != nil {
		t.Fatal(err)
	}
	other, err := OpenRegion(dup)
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Bytes()) != 4096 {
		t.Fatalf("size %d", len(other.Bytes()))
	}
	copy(r.Bytes()[100:], "hello")
	if string(other.Bytes()[100:105]) != "hello" {
		t.Error("write not shared")
	}
	if r.Add(64, 5) != 5 || other.Add(64, 2) != 7 || r.Load(64) != 7 {
		t.Error("atomic add not shared")
	}
	other.Store(128, 42)
	if r.Load(128) != 42 {
		t.Error("store not shared")
	}
	for _, bad := range []int{3, -8, 4096} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("offset %d did not panic", bad)
				}
			}()
			r.Load(bad)
		}()
	}
	if err := other.Close(); err != nil {
		t.Error(err)
	}
	if err := r.Close(); err != nil || r.Close() != nil {
		t.Error(err)
	}
}
