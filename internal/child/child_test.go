package child

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRegistry(t *testing.T) {
	var got []string
	Register("__parlab_test_a", func(args []string) int { got = args; return 7 })
	if code, ok := Run([]string{"prog", "__parlab_test_a", "x"}); !ok || code != 7 || !slices.Equal(got, []string{"prog", "__parlab_test_a", "x"}) {
		t.Errorf("Run: %d %v, args %q", code, ok, got)
	}
	for _, args := range [][]string{nil, {"prog"}, {"prog", "query"}, {"prog", "__parlab_test_b"}} {
		if _, ok := Run(args); ok {
			t.Errorf("Run(%q) ran a mode", args)
		}
	}
	if !slices.Contains(Modes(), "__parlab_test_a") {
		t.Errorf("Modes() = %q", Modes())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a mode twice did not panic")
		}
	}()
	Register("__parlab_test_a", func([]string) int { return 0 })
}

func TestUnreaped(t *testing.T) {
	if err := Unreaped(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range 500 { // until it has exited, not reaped
		if _, state, _ := Stat(cmd.Process.Pid); state == 'Z' {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := Unreaped(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d (true, state Z)", cmd.Process.Pid)) {
		t.Errorf("an unreaped child: %v", err)
	}
	// it only looked: the child's status is still its owner's to take
	if err := cmd.Wait(); err != nil {
		t.Errorf("Wait after Unreaped: %v", err)
	}
	if err := Unreaped(); err != nil {
		t.Error(err)
	}
}

// A binary without a stamp (no GNU build ID, or one of another length than
// a stamp's, as /bin/sh has) or a file that is not ELF has none, so Exe
// never takes it: children are this program itself (the end to end case,
// with stamped binaries, is cmd/parlab's TestWorkerBinary).
func TestStampOf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{exe, "/bin/sh", "/nonexistent"} {
		if s := stampOf(p); s != "" {
			t.Errorf("%s: stamp %q", p, s)
		}
	}
	if Stamp() != "" || Exe(WorkerName) != Self || Exe(SessionName) != Self {
		t.Errorf("a test binary: stamp %q, worker %s, session %s", Stamp(), Exe(WorkerName), Exe(SessionName))
	}
}

// stampIn finds the GNU build ID note of a stamp's length among other
// notes, and nothing in notes of another type, name or length, or in bytes
// that end inside a note.
func TestStampIn(t *testing.T) {
	note := func(name string, typ uint32, desc []byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
		b = binary.LittleEndian.AppendUint32(b, typ)
		b = append(b, name...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		b = append(b, desc...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	stamp := []byte{0x51, 0x51, 0x52, 0x52, 0, 1, 2, 0xff}
	goNote := note("Go\x00\x00", 4, []byte("a go build id of some length"))
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{note("GNU\x00", 3, stamp), "5151525200 0102ff"},
		{append(goNote, note("GNU\x00", 3, stamp)...), "5151525200 0102ff"},
		{note("GNU\x00", 3, make([]byte, 20)), ""},                                     // a linker's own, 20 bytes
		{note("GNU\x00", 5, stamp), ""},                                                // another type
		{note("GNV\x00", 3, stamp), ""},                                                // another owner
		{note("GNU\x00", 3, stamp)[:20], ""},                                           // cut inside the description
		{append(binary.LittleEndian.AppendUint32(nil, 1<<31), make([]byte, 8)...), ""}, // a name past the end
		{nil, ""},
	} {
		want := strings.ReplaceAll(c.want, " ", "")
		if got := stampIn(c.b, binary.LittleEndian); got != want {
			t.Errorf("%x: %q, want %q", c.b, got, want)
		}
	}
}

// stampOf finds the stamp in a 64-bit ELF file's note sections by their
// headers, and in nothing else.
func TestStampOfBuilt(t *testing.T) {
	le := binary.LittleEndian
	note := le.AppendUint32(nil, 4)
	note = le.AppendUint32(note, stampLen)
	note = le.AppendUint32(note, 3)
	note = append(note, "GNU\x00"...)
	note = append(note, 0x51, 0x51, 0x52, 0x52, 0, 1, 2, 0xff)
	elf := func(class byte, typ uint32) []byte {
		h := make([]byte, 64)
		copy(h, "\x7fELF")
		h[4], h[5] = class, 1
		le.PutUint64(h[0x28:], 64) // e_shoff
		le.PutUint16(h[0x3a:], 64) // e_shentsize
		le.PutUint16(h[0x3c:], 2)  // e_shnum: a null section, then the note
		sh := make([]byte, 128)
		le.PutUint32(sh[64+4:], typ)
		le.PutUint64(sh[64+0x18:], 192)
		le.PutUint64(sh[64+0x20:], uint64(len(note)))
		return append(append(h, sh...), note...)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"note", elf(2, 7), "51515252000102ff"},
		{"not a note section", elf(2, 1), ""},
		{"32-bit", elf(1, 7), ""},
		{"cut short", elf(2, 7)[:150], ""},
		{"not ELF", []byte("#!/bin/sh\n"), ""},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := stampOf(p); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := stampOf(filepath.Join(dir, "none")); got != "" {
		t.Errorf("no file: %q", got)
	}
}

// Start runs children from its spawner threads, from any goroutine at
// once (on at most GOMAXPROCS spawners, each of which keeps the children it
// forked: /proc/self/task/*/children): each can be waited for and
// signalled through its pidfd, and a binary that cannot start is an error,
// not a child.
func TestStart(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			p, err := Start(Attr{Exe: sh, Args: []string{"sh", "-c", "exit " + string(rune('0'+i))}})
			if err != nil {
				errs <- err
				return
			}
			defer p.Close()
			ws, _, err := p.Wait()
			if err == nil && ws.ExitStatus() != i {
				err = fmt.Errorf("child %d exited %d", i, ws.ExitStatus())
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	spawners.mu.Lock()
	n := spawners.n
	spawners.mu.Unlock()
	if n < 1 || n > max(1, runtime.GOMAXPROCS(0)) {
		t.Errorf("%d spawners for GOMAXPROCS %d", n, runtime.GOMAXPROCS(0))
	}
	p, err := Start(Attr{Exe: sh, Args: []string{"sh", "-c", "sleep 30"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Signal(syscall.SIGKILL)
	if ws, _, err := p.Wait(); err != nil || !ws.Signaled() {
		t.Errorf("killed: %v, %v", ws, err)
	}
	p.Close()
	if _, err := Start(Attr{Exe: "/nonexistent", Args: []string{"x"}}); err == nil {
		t.Error("a binary that is not there started")
	}
	Reaped(t)
}
