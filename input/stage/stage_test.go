package stage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"parlab/scan"
)

// The bounds on what staging holds, each where it bites: the memory
// budget over all inputs together, a line past scan.MaxRowBytes (a gzip'd
// run of NUL bytes has none: it was staged whole, 1 GB, under processes),
// and the ratio of a compressed input (a zstd file of newlines grows
// 30,000-fold).
func TestStageBounds(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rows := bytes.Repeat([]byte("a,b\n"), 1<<18) // 1 MiB
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(append([]byte("x,y\n"), rows...))
	gw.Close()
	a, b := write("a.csv.gz", gz.Bytes()), write("b.csv.gz", gz.Bytes())
	ctx := context.Background()
	// two inputs of 1 MiB each: one fits 1.5 MiB, both do not
	in, err := Stage(ctx, []string{a}, Dialect{MaxMemory: 3 << 19}, nil)
	if err != nil {
		t.Fatalf("one input under the budget: %v", err)
	}
	in.Close()
	in, err = Stage(ctx, []string{a, b}, Dialect{MaxMemory: 3 << 19}, nil)
	if err == nil { // (the second's: a later PATH's error, Inputs.Rest)
		err = in.Rest
		in.Close()
	}
	if !errors.Is(err, ErrMaxMemory) || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("two inputs over the budget: %v, want ErrMaxMemory", err)
	}
	// a line past the bound: the header, then a row (256 MiB each: not
	// under -short, the race run)
	for _, c := range []struct {
		name, head string
		want       string
	}{
		{"no line end at all", "", "the header is longer than 256 MiB"},
		{"a long row", "a,b\n1,2\n", "a row longer than 268435456 bytes starts at byte 8"},
	} {
		if testing.Short() {
			break
		}
		var z bytes.Buffer
		zw, _ := zstd.NewWriter(&z)
		zw.Write([]byte(c.head))
		zero := make([]byte, 1<<20)
		for range (scan.MaxRowBytes >> 20) + 1 {
			zw.Write(zero)
		}
		zw.Close()
		p := write("long.csv.zst", z.Bytes())
		_, err := Stage(ctx, []string{p}, Dialect{MaxRatio: -1}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// a bomb: past ratioFloor out, more than MaxRatio times the input
	if testing.Short() {
		return // (96 MiB out: left to the full run)
	}
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	zw.Write([]byte("a\n"))
	zw.Write(bytes.Repeat([]byte("1\n"), (ratioFloor+ratioFloor/2)/2))
	zw.Close()
	bomb := write("bomb.csv.zst", z.Bytes())
	if _, err := Stage(ctx, []string{bomb}, Dialect{}, nil); !errors.Is(err, ErrRatio) || !strings.HasPrefix(err.Error(), bomb+": ") {
		t.Errorf("a bomb, staged: %v, want ErrRatio", err)
	}
	in, err = Stream(ctx, []string{bomb}, Dialect{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := io.Copy(io.Discard, in.Stream); !errors.Is(err, ErrRatio) {
		t.Errorf("a bomb, streamed: %v, want ErrRatio", err)
	}
	if in, err := Stage(ctx, []string{bomb}, Dialect{MaxRatio: -1}, nil); err != nil {
		t.Errorf("a bomb, no bound: %v", err)
	} else {
		in.Close()
	}
}

// FuzzCutArchive: any bytes, gzip'd or zstd'd and cut anywhere short of
// their end, or with a byte changed, never read as if whole: staged and
// streamed, the read fails (a *ZipError, or not gzip/zstd data at all),
// and whole they read back as they were.
func FuzzCutArchive(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n3,4\n"), uint32(10), uint32(0), false)
	f.Add(bytes.Repeat([]byte("x,1\n"), 5000), uint32(1000), uint32(7), true)
	f.Fuzz(func(t *testing.T, data []byte, cut, flip uint32, zst bool) {
		var z bytes.Buffer
		name := "f.csv.gz"
		if zst {
			zw, _ := zstd.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			name = "f.csv.zst"
		} else {
			gw := gzip.NewWriter(&z)
			gw.Write(data)
			gw.Close()
		}
		whole := z.Bytes()
		read := func(b []byte) ([]byte, error) {
			zr, closeIt, err := decompress(bytes.NewReader(b), filepath.Ext(name), -1, name)
			if err != nil {
				return nil, err
			}
			defer closeIt()
			return io.ReadAll(zr)
		}
		if got, err := read(whole); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("whole: %v", err)
		}
		short := whole[:1+int(cut)%(len(whole)-1)] // (0 bytes: an empty file, no data)
		if _, err := read(short); err == nil {
			t.Fatalf("cut at %d of %d: read as whole", len(short), len(whole))
		}
		// staged into memory, and streamed: an error too
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, short, 0o644)
		if in, err := Stage(context.Background(), []string{p}, Dialect{MaxRatio: -1}, nil); err == nil {
			in.Close()
			t.Fatalf("cut at %d of %d: staged", len(short), len(whole))
		}
		if in, err := Stream(context.Background(), []string{p}, Dialect{MaxRatio: -1}, nil); err == nil {
			_, rerr := io.Copy(io.Discard, in.Stream)
			in.Close()
			if rerr == nil {
				t.Fatalf("cut at %d of %d: streamed whole", len(short), len(whole))
			}
		}
		// a byte changed in the trailer (gzip's CRC and length) is caught
		if !zst {
			bad := bytes.Clone(whole)
			bad[len(bad)-1-int(flip)%8] ^= 0x55
			if got, err := read(bad); err == nil && bytes.Equal(got, data) {
				t.Fatalf("trailer byte %d changed: read as whole", int(flip)%8)
			}
		}
	})
}
