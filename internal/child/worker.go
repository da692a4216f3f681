package child

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// A Go program pays at start for every package it links: their
// initialisers run and the pages they touch fault in. parlab links
// html/template, x/crypto, the decompressors and the FTP lab (gonum/plot
// and its fonts only in parlab-figure: bench/figure), and a
// query worker needs none of it; so `make build` also builds
// bin/parlab-worker (cmd/parlab-worker), which links the query engine and
// nothing else, and the processes strategy starts that; and
// bin/parlab-session, the FTP server alone, for the processes model's
// sessions. What each saves is measured in docs/experiments.md
// (2026-12-05, "a lean worker binary").
//
// A child must come from the same sources as its parent: the child
// protocols, the scanner and the answer are shared code, and a stale child
// could answer differently. So every binary carries a stamp (a hash of the
// sources and the compiler), and Exe takes a lean binary only if its
// stamp is this program's, read from the file without running it. The
// stamp is the binary's GNU build ID note, which make build sets to 8
// bytes with the linker's -B flag: a note survives -trimpath, which leaves
// -ldflags out of the build information, and it is found from the section
// headers alone. Without such a note (go build, go test; an external
// linker's own build ID is 20 bytes) children are this program itself.

// The lean child binaries, by name, beside the parlab binary: the query
// worker (cmd/parlab-worker), the FTP server's session process and the
// load generator's client (cmd/parlab-session), and the session process of
// a server without TLS (cmd/parlab-session-plain, built without crypto/tls:
// it starts in 1.40x a minimal Go program's time, parlab-session in 1.71x).
const (
	WorkerName       = "parlab-worker"
	SessionName      = "parlab-session"
	PlainSessionName = "parlab-session-plain"
)

// NoopArg is argv[1] of a child that exits at once (the spawn lab's
// forkexec methods): what starting a worker costs, minus the work.
const NoopArg = "__parlab_noop"

func init() { Register(NoopArg, func([]string) int { return 0 }) }

// own is this program's stamp, read once from its own file.
var own struct {
	once  sync.Once
	stamp string
}

// Stamp is the sources' stamp this binary was built with ("" for none).
func Stamp() string {
	own.once.Do(func() { own.stamp = stampOf(Self) })
	return own.stamp
}

// NotByHand is what a lean child binary does when it is run without a
// child mode in its arguments: it says who starts it and returns the exit
// code 2.
func NotByHand(w io.Writer, name, startedBy string) int {
	fmt.Fprintf(w, "%s: started by %s, not by hand\n", name, startedBy)
	return 2
}

// Self is the path that starts this program again.
const Self = "/proc/self/exe"

var lean struct {
	mu    sync.Mutex
	paths map[string]string
}

// Exe is the binary a child of the given lean kind (WorkerName,
// SessionName) is started from: that binary beside this executable if it
// carries this program's stamp, else Self. It is found once per name and
// process.
func Exe(name string) string {
	lean.mu.Lock()
	defer lean.mu.Unlock()
	if p, ok := lean.paths[name]; ok {
		return p
	}
	p := Self
	if st := Stamp(); st != "" {
		if q, err := Beside(name); err == nil && stampOf(q) == st {
			p = q
		}
	}
	if lean.paths == nil {
		lean.paths = map[string]string{}
	}
	lean.paths[name] = p
	return p
}

// WorkerExe is Exe(WorkerName): where a query worker starts from.
func WorkerExe() string { return Exe(WorkerName) }

// Beside is the path of the file name beside this executable (parlab's
// lean children, the spawn lab's parlab-nop), whether or not it is there.
func Beside(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(exe), name), nil
}

// stampLen is a stamp's length in bytes: make build's STAMP is 16 hex
// digits.
const stampLen = 8

// stampOf reads the stamp of the binary at path: its GNU build ID note in
// hex, if the note is stampLen bytes long; "" if there is none or path is
// not a 64-bit ELF file.
//
// It walks the section headers itself, for the note sections (SHT_NOTE),
// rather than through debug/elf: every lean child links this package, and
// debug/elf's start (its tables' pages) is about a ninth of a minimal Go
// program's (docs/experiments.md, 2026-12-06).
func stampOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	// the ELF64 header: magic, class (2: 64-bit), data (1 little, 2 big
	// endian); e_shoff at 0x28, e_shentsize, e_shnum at 0x3a, 0x3c
	var h [64]byte
	if _, err := f.ReadAt(h[:], 0); err != nil || string(h[:4]) != "\x7fELF" || h[4] != 2 {
		return ""
	}
	var order binary.ByteOrder
	switch h[5] {
	case 1:
		order = binary.LittleEndian
	case 2:
		order = binary.BigEndian
	default:
		return ""
	}
	shoff, shentsize, shnum := order.Uint64(h[0x28:]), uint64(order.Uint16(h[0x3a:])), uint64(order.Uint16(h[0x3c:]))
	if shentsize < 64 || shnum > 1<<12 {
		return ""
	}
	const shtNote = 7
	var sh [64]byte
	for i := range shnum {
		// a section header: sh_type at 4, sh_offset at 0x18, sh_size at 0x20
		if _, err := f.ReadAt(sh[:], int64(shoff+i*shentsize)); err != nil {
			return ""
		}
		off, size := order.Uint64(sh[0x18:]), order.Uint64(sh[0x20:])
		if order.Uint32(sh[4:]) != shtNote || size > 1<<10 {
			continue
		}
		b := make([]byte, size)
		if _, err := f.ReadAt(b, int64(off)); err != nil {
			return ""
		}
		if s := stampIn(b, order); s != "" {
			return s
		}
	}
	return ""
}

// stampIn is the stamp in an ELF note section's bytes: a GNU build ID
// note of stampLen bytes, in hex, or "" (none, or the bytes end inside a
// note).
func stampIn(b []byte, order binary.ByteOrder) string {
	// notes: name size, description size, type (4 bytes each), then the
	// name and the description, each padded to 4 bytes
	const ntGNUBuildID = 3
	for len(b) >= 12 {
		nameSize, descSize, typ := order.Uint32(b), order.Uint32(b[4:]), order.Uint32(b[8:])
		b = b[12:]
		nameEnd := (uint64(nameSize) + 3) &^ 3
		descEnd := nameEnd + (uint64(descSize)+3)&^3
		if descEnd > uint64(len(b)) {
			return ""
		}
		if typ == ntGNUBuildID && string(b[:nameSize]) == "GNU\x00" && descSize == stampLen {
			return hex.EncodeToString(b[nameEnd : nameEnd+stampLen])
		}
		b = b[descEnd:]
	}
	return ""
}
