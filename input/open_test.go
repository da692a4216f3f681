package input

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"parlab/scan"
	"parlab/shm"
)

func write(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModesAgree(t *testing.T) {
	content := []byte(strings.Repeat("Region,Total Revenue,Total Profit\nEurope,1.50,0.25\n", 5000))
	p := write(t, "a.csv", content)
	for _, m := range []Mode{Mmap, ReadAt, Read} {
		for _, pop := range []bool{false, true} {
			f, err := Open(p, m, Options{Populate: pop})
			if err != nil {
				t.Fatalf("%v: %v", m, err)
			}
			if f.Size() != len(content) || f.Copying() != (m != Mmap) || f.Mapped() != (m == Mmap) {
				t.Errorf("%v: size %d, copying %v, mapped %v", m, f.Size(), f.Copying(), f.Mapped())
			}
			if m == Mmap && !bytes.Equal(f.Bytes(), content) {
				t.Errorf("%v populate=%v: bytes differ", m, pop)
			}
			if m != Mmap && f.Bytes() != nil {
				t.Errorf("%v: a copying mode holds the whole file", m)
			}
			// pieces at odd offsets, and one past the end
			got := make([]byte, 0, len(content))
			buf := make([]byte, 7777)
			for off := 0; off < len(content); off += len(buf) {
				n := min(len(buf), len(content)-off)
				if err := f.ReadAt(buf[:n], off); err != nil {
					t.Fatalf("%v: ReadAt %d: %v", m, off, err)
				}
				got = append(got, buf[:n]...)
			}
			if !bytes.Equal(got, content) {
				t.Errorf("%v populate=%v: pieces differ", m, pop)
			}
			if err := f.ReadAt(buf[:10], len(content)-5); err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("%v: read past the end: %v", m, err)
			}
			if err := f.Close(); err != nil {
				t.Error(err)
			}
			if err := f.Close(); err != nil || f.Bytes() != nil {
				t.Errorf("second Close: %v", err)
			}
		}
	}
}

// Anything but a regular file is refused in every mode, at once: a FIFO
// would block an open or a read forever, and /dev/zero never ends.
func TestNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.csv")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{Mmap, ReadAt, Read} {
		for _, p := range []string{fifo, "/dev/zero", t.TempDir()} {
			done := make(chan error, 1)
			go func() {
				_, err := Open(p, m, Options{})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
					t.Errorf("%v %s: %v, want %v", m, p, err, ErrNotRegular)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%v %s: Open blocked", m, p)
			}
		}
	}
}

// A file truncated after Open is an error naming it in the copying modes:
// ReadAt's mapping faults (SIGBUS, caught), Read's pread comes up short.
func TestTruncatedCopying(t *testing.T) {
	for _, m := range []Mode{ReadAt, Read} {
		p := write(t, "t.csv", bytes.Repeat([]byte("x,1\n"), 1<<16))
		f, err := Open(p, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 4096); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64<<10)
		err = f.ReadAt(buf, 100<<10)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%v: read of a truncated file: %v", m, err)
		}
		if m == ReadAt && !errors.Is(err, ErrFault) {
			t.Errorf("%v: %v, want %v", m, err, ErrFault)
		}
		f.Close()
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Mmap, ReadAt, Read} {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("fread"); err == nil {
		t.Error("ParseMode(fread): no error")
	}
}

func TestEmptyAndBadFiles(t *testing.T) {
	p := write(t, "empty.csv", nil)
	for _, m := range []Mode{Mmap, ReadAt, Read} {
		f, err := Open(p, m, Options{})
		if err != nil || len(f.Bytes()) != 0 || f.Size() != 0 || f.ReadAt(nil, 0) != nil {
			t.Errorf("%v empty: %v", m, err)
		}
		if _, err := Open(filepath.Join(t.TempDir(), "missing.csv"), m, Options{}); err == nil {
			t.Errorf("%v: missing file gave no error", m)
		}
	}
	if _, err := Open(t.TempDir(), Mmap, Options{}); err == nil {
		t.Error("mapping a directory gave no error")
	}
}

// mapGuarded maps the file at path (its size a multiple of the page size) at
// the start of a reserved region whose last page stays PROT_NONE, so any read
// past the end of the file's bytes faults.
func mapGuarded(t *testing.T, path string) []byte {
	t.Helper()
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	size, page := uintptr(st.Size), uintptr(os.Getpagesize())
	if size%page != 0 {
		t.Fatalf("size %d is not a multiple of the page size", size)
	}
	base, err := unix.MmapPtr(-1, 0, nil, size+page, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.MmapPtr(fd, 0, base, size, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_FIXED); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.MunmapPtr(base, size+page) })
	return unsafe.Slice((*byte)(base), size)
}

// The scanner never reads past the end of a mapping: files that end exactly
// at a page boundary, followed by a page that faults, in every ending the
// dialect allows.
func TestGuardPage(t *testing.T) {
	page := os.Getpagesize()
	q := scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}
	head := "Region,Total Revenue,Total Profit\n"
	row := "Europe,1.25,0.50\n"
	// The last two are for the hot path: a matching row whose last field
	// ends the file, and a row shorter than the 8 bytes it compares.
	for _, tail := range []string{"Europe,1.25,0.50", "Europe,1.25,0.5\n", "Europe,\"1.25\",\"0.50\"", "Europe,1.25,0.50\r", "Europe,1.25,\"0.5\"\r\n", "\n\n", "Europe,1.25,0.5\n\"", "Europe,1.25,0.50\n", "E,1,2\n"} {
		body := head
		for len(body)+len(row)+len(tail) <= 2*page {
			body += row
		}
		pad := 2*page - len(body) - len(tail) // pad with blank lines to the boundary
		content := body + strings.Repeat("\n", pad) + tail
		data := mapGuarded(t, write(t, "g.csv", []byte(content)))
		if len(data) != 2*page || data[len(data)-1] != content[len(content)-1] {
			t.Fatal("guarded mapping is wrong")
		}
		tb, err := scan.NewTable("g.csv", data, &q)
		if err != nil {
			t.Fatal(err)
		}
		var r scan.Result
		s, e := tb.Body()
		err = tb.Scan(s, e, &r)
		if strings.HasSuffix(tail, "\n\"") { // a quote opened in the last byte
			if err == nil {
				t.Errorf("tail %q: unterminated quote gave no error", tail)
			}
			continue
		}
		if err != nil {
			t.Errorf("tail %q: %v", tail, err)
		}
		if r.Matched == 0 {
			t.Errorf("tail %q: nothing matched", tail)
		}
	}
}

// Populate maps its range's pages into this process: /proc/self/pagemap
// shows them present (bit 63) afterwards.
func TestPopulate(t *testing.T) {
	p := write(t, "p.csv", bytes.Repeat([]byte("x,1\n"), 10000)) // 40,000 bytes
	f, err := Open(p, Mmap, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip(err)
	}
	defer pm.Close()
	base := reflect.ValueOf(f.Bytes()).Pointer()
	present := func(off int) bool {
		var e [8]byte
		if _, err := pm.ReadAt(e[:], int64((base+uintptr(off))/uintptr(pageSize)*8)); err != nil {
			t.Fatal(err)
		}
		return e[7]&0x80 != 0
	}
	f.Populate(5000, 100)
	if !present(5000) {
		t.Error("Populate(5000, 100): its page is not mapped")
	}
	f.Populate(0, 40000)
	for off := 0; off < 40000; off += pageSize {
		if !present(off) {
			t.Errorf("Populate(0, 40000): the page at %d is not mapped", off)
		}
	}
	f.Populate(39999, 1)
	f.Populate(0, 0)

	// Options.Populate maps every page at open.
	g, err := Open(p, Mmap, Options{Populate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	base = reflect.ValueOf(g.Bytes()).Pointer()
	for off := 0; off < 40000; off += pageSize {
		if !present(off) {
			t.Errorf("Options.Populate: the page at %d is not mapped", off)
		}
	}
}

func TestEvict(t *testing.T) {
	p := write(t, "e.csv", bytes.Repeat([]byte("x,1\n"), 100000))
	if err := Evict(p); err != nil {
		t.Fatal(err)
	}
	resident, pages, err := Resident(p)
	if err != nil {
		t.Fatal(err)
	}
	if pages != (400000+os.Getpagesize()-1)/os.Getpagesize() {
		t.Errorf("%d pages, want the file's", pages)
	}
	if resident > pages/2 {
		t.Errorf("%d of %d pages still resident after Evict", resident, pages)
	}
	// Reading the file brings it all back.
	if _, err := os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	if resident, pages, err = Resident(p); err != nil || resident != pages {
		t.Errorf("after reading: %d of %d pages resident (%v), want all", resident, pages, err)
	}
	if err := Evict(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("evicting a missing file: no error")
	}
	if _, _, err := Resident(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Resident of a missing file: no error")
	}
	if r, n, err := Resident(write(t, "empty.csv", nil)); r != 0 || n != 0 || err != nil {
		t.Errorf("Resident of an empty file: %d, %d, %v", r, n, err)
	}
}

// A file whose pages the page cache lost comes back through a mapping's
// faults in 2 MiB folios, which map with one PMD each (MADV_HUGEPAGE in
// mapFile), on a kernel and filesystem that keep large folios at all.
func TestRefillInHugeFolios(t *testing.T) {
	const size = 16 << 20
	p := evictedFile(t, size)
	f, err := Open(p, Mmap, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Populate(0, size)
	f.Close()
	if huge, cached := folios(t, p); cached != size || huge < size/2 {
		t.Errorf("refilled through the mapping, %d of %d cached bytes in 2 MiB folios: the pages came back in small folios", huge, cached)
	}
}

// Folios tells a file in 2 MiB folios from one in 4 KiB folios, counts
// only the cached pages of its whole 2 MiB blocks, and reads nothing from
// disk.
func TestFolios(t *testing.T) {
	const size = 16 << 20
	big := writeInChunks(t, "big.csv", size+4096, 2<<20) // a last part that is no whole block
	small := writeInChunks(t, "small.csv", size, 4096)
	huge, cached := folios(t, big)
	if cached != size {
		t.Errorf("%d bytes of whole blocks cached, want %d", cached, size)
	}
	if huge == 0 {
		t.Log("this filesystem or kernel keeps no 2 MiB folios")
	} else if huge < size/2 {
		t.Errorf("written 2 MiB at a time: %d of %d bytes in 2 MiB folios", huge, cached)
	}
	if huge, cached := folios(t, small); huge != 0 || cached != size {
		t.Errorf("written 4 KiB at a time: %d of %d bytes in 2 MiB folios, want none", huge, cached)
	}
	if err := Evict(small); err != nil {
		t.Fatal(err)
	}
	if r, _, err := Resident(small); err != nil || r > 0 {
		t.Skipf("could not evict the file (%d pages left, %v)", r, err)
	}
	if huge, cached := folios(t, small); huge != 0 || cached != 0 {
		t.Errorf("evicted: %d of %d bytes", huge, cached)
	}
	// Part of it back: Folios counts that part, and reads no more.
	f, err := os.Open(small)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 100), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r1, n, _ := Resident(small)
	if _, cached := folios(t, small); cached != int64(r1*os.Getpagesize()) {
		t.Errorf("%d of %d pages cached, Folios says %d bytes", r1, n, cached)
	}
	if r2, _, _ := Resident(small); r2 != r1 || r1 == n {
		t.Errorf("Folios read pages from disk: %d of %d cached before, %d after", r1, n, r2)
	}
	if huge, cached := folios(t, write(t, "tiny.csv", []byte("a,b\n"))); huge != 0 || cached != 0 {
		t.Errorf("a file shorter than a block: %d of %d bytes", huge, cached)
	}
	if _, _, err := Folios(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Folios of a missing file: no error")
	}
}

func folios(t *testing.T, path string) (huge, cached int64) {
	t.Helper()
	huge, cached, err := Folios(path)
	if errors.Is(err, ErrNoFolioInfo) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return huge, cached
}

// writeInChunks writes size bytes of rows to a new file in name, chunk
// bytes a write: the page cache makes a folio of at most a write's size.
func writeInChunks(t *testing.T, name string, size, chunk int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	rows := bytes.Repeat([]byte("x,1\n"), (size+3)/4)[:size]
	for len(rows) > 0 {
		n := min(chunk, len(rows))
		if _, err := w.Write(rows[:n]); err != nil {
			t.Fatal(err)
		}
		rows = rows[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A memory file says it has small pages, and Populate maps the pages of
// the range it is given (and few more) before anything reads them; a file
// on disk has no small pages to say.
func TestMemoryFilePopulate(t *testing.T) {
	mem, err := shm.NewMemFile("test")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if _, err := mem.Write(bytes.Repeat([]byte("0123456789abcde\n"), 1<<16)); err != nil { // 1 MiB
		t.Fatal(err)
	}
	f, err := Open(shm.MemFilePath(mem), Mmap, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.SmallPages() {
		t.Error("a memory file: SmallPages false")
	}
	rss := func() int64 {
		kb, err := smapsKB(addr(f.Bytes()), "Rss")
		if err != nil {
			t.Fatal(err)
		}
		return kb[0]
	}
	if kb := rss(); kb != 0 {
		t.Fatalf("a fresh mapping holds %d KiB", kb)
	}
	f.Populate(4096+100, 512<<10)
	if kb := rss(); kb < 512 || kb > 640 {
		t.Errorf("after Populate of 512 KiB: %d KiB mapped", kb)
	}

	path := filepath.Join(t.TempDir(), "x.csv")
	os.WriteFile(path, []byte("a\n1\n"), 0o644)
	g, err := Open(path, Mmap, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.SmallPages() {
		t.Error("a file on disk: SmallPages true")
	}
}

// Head copies a file's first bytes, all of a shorter file, none of an
// empty one, and refuses a FIFO without waiting for a writer.
func TestHead(t *testing.T) {
	p := write(t, "a.csv", []byte("a;b\n1;2\n"))
	for _, c := range []struct {
		n    int
		want string
	}{{4, "a;b\n"}, {100, "a;b\n1;2\n"}, {0, ""}} {
		if got, err := Head(p, c.n); err != nil || string(got) != c.want {
			t.Errorf("Head(%d) = %q, %v; want %q", c.n, got, err, c.want)
		}
	}
	if got, err := Head(write(t, "empty.csv", nil), 10); err != nil || len(got) != 0 {
		t.Errorf("Head of an empty file: %q, %v", got, err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if _, err := Head(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Head of a FIFO: %v, want ErrNotRegular", err)
	}
	if _, err := Head(filepath.Join(t.TempDir(), "missing"), 10); err == nil {
		t.Error("Head of a missing file: no error")
	}
}

// A file the page cache lacks, its head read by Head and then mapped and
// read front to back, is in 2 MiB folios all the same (a pread of its head
// left most of it in small ones).
func TestHeadLeavesHugeFolios(t *testing.T) {
	const size = 16 << 20
	p := evictedFile(t, size)
	if _, err := Head(p, 64<<10); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p, Mmap, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, c := range f.Bytes() { // front to back, as a seq scan reads
		sum += int(c)
	}
	f.Close()
	if huge, cached := folios(t, p); cached != size || huge != size {
		t.Errorf("after Head, %d of %d cached bytes in 2 MiB folios (sum %d)", huge, cached, sum)
	}
}

// evictedFile writes a file of size bytes 2 MiB at a time, which leaves it
// in 2 MiB folios where the filesystem keeps large folios (ext4 from Linux
// 6.16, xfs, not tmpfs; else the test is skipped), and evicts it from the
// page cache.
func evictedFile(t *testing.T, size int) string {
	t.Helper()
	p := writeInChunks(t, "h.csv", size, 2<<20)
	if huge, _ := folios(t, p); huge == 0 {
		t.Skip("this filesystem or kernel keeps no 2 MiB folios: nothing maps by PMD")
	}
	if err := Evict(p); err != nil {
		t.Fatal(err)
	}
	if r, _, err := Resident(p); err != nil || r > 0 {
		t.Skipf("could not evict the file (%d pages left, %v)", r, err)
	}
	return p
}
