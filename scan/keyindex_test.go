package scan

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// shortIndex against a map: keys added, found again, and not found when
// absent, through several growths; keys that differ only in length (the
// empty key among them) are different keys.
func TestShortIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := newShortIndex(0)
	want := map[[2]uint64]int32{}
	keys := [][]byte{{}, {0}, {0, 0}, []byte("a"), []byte("a\x00")}
	for range 50000 {
		keys = append(keys, []byte(fmt.Sprint(rng.IntN(40000))))
	}
	for _, k := range keys {
		lo, hi := shortWords(k)
		next := int32(len(want))
		i, added := x.getOrPut(lo, hi, next)
		w, ok := want[[2]uint64{lo, hi}]
		switch {
		case ok && (added || i != w):
			t.Fatalf("%q: %d added=%v, want %d", k, i, added, w)
		case !ok && (!added || i != next):
			t.Fatalf("%q: %d added=%v, want %d added", k, i, added, next)
		case !ok:
			want[[2]uint64{lo, hi}] = next
		}
	}
	if x.n != len(want) || len(x.slots) < 1<<15 {
		t.Fatalf("%d keys in %d slots, want %d", x.n, len(x.slots), len(want))
	}
	for k, w := range want {
		if i := x.get(k[0], k[1]); i != w {
			t.Fatalf("%x: %d, want %d", k, i, w)
		}
	}
	for range 1000 {
		k := []byte(fmt.Sprint(40000 + rng.IntN(1e6)))
		if i := x.get(shortWords(k)); i != -1 {
			t.Fatalf("%q absent, found %d", k, i)
		}
	}
	if y := newShortIndex(1000); len(y.slots)*3 < 1000*4 {
		t.Errorf("room for 1000 keys: %d slots", len(y.slots))
	}
}

// shortKeyRef is the plain form of shortWords: the key's bytes in a zeroed
// 16-byte array, its length in byte 15, read as two little-endian words.
func shortKeyRef(key []byte) (lo, hi uint64) {
	var k [16]byte
	copy(k[:], key)
	k[15] = byte(len(key))
	return binary.LittleEndian.Uint64(k[:8]), binary.LittleEndian.Uint64(k[8:])
}

// shortWords against shortKeyRef for every length it takes, with random
// bytes (zeros among them) and keys cut out of a larger buffer, so that a
// load past the key's end would show.
func TestShortWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 64)
	for range 20000 {
		for i := range buf {
			buf[i] = byte(rng.IntN(4)) * byte(rng.IntN(256)) // zeros often
		}
		n, at := rng.IntN(16), rng.IntN(32)
		key := buf[at : at+n : at+n]
		lo, hi := shortWords(key)
		if wlo, whi := shortKeyRef(key); lo != wlo || hi != whi {
			t.Fatalf("%x: %x %x, want %x %x", key, lo, hi, wlo, whi)
		}
	}
}
