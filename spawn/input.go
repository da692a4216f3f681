package spawn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"parlab/scan"
	"parlab/shm"
)

// Stdin is the PATH that names standard input.
const Stdin = "-"

// Inputs are a query's PATHs made ready to scan. A plain CSV file is
// scanned where it is (Paths[i] is its path). Anything else lands once in a
// memory file (shm.NewMemFile) in the dialect scan reads, which every
// strategy then maps in place like a file, child processes included
// (Paths[i] is /proc/PID/fd/N): standard input ("-") or a pipe (a FIFO,
// bash's <(…)), a compressed file (.gz, .zst, or a stream that starts as
// one), and a file with
// another delimiter (Stage's sep, or a tab for .tsv and .tab), transcoded
// by scan.Transcode. Names[i] is what messages call input i (its PATH, or
// "standard input").
type Inputs struct {
	Paths, Names []string
	mem          []*os.File
}

// Close releases the memory files. The Paths that named them must not be
// opened after.
func (in *Inputs) Close() {
	for _, f := range in.mem {
		f.Close()
	}
	in.mem = nil
}

// Delimiters are the field delimiters parlab reads, by their flag names.
var Delimiters = map[string]byte{",": ',', "comma": ',', ";": ';', "semicolon": ';', "|": '|', "pipe": '|', "tab": '\t', "\t": '\t'}

// ParseDelimiter reads a --delimiter value (0 for "", which means: by
// each file's name).
func ParseDelimiter(s string) (byte, error) {
	if s == "" {
		return 0, nil
	}
	if d, ok := Delimiters[strings.ToLower(s)]; ok {
		return d, nil
	}
	return 0, fmt.Errorf("unknown delimiter %q (want , ; | or tab)", s)
}

// Stage makes paths (files, as ExpandPaths gives them, and Stdin) ready to
// scan, reading standard input from stdin. sep is every file's delimiter,
// or 0 for each file's by its name. On error nothing stays open.
func Stage(paths []string, sep byte, stdin io.Reader) (*Inputs, error) {
	in := &Inputs{}
	for _, p := range paths {
		name, zip, fsep := p, compression(p), sep
		if fsep == 0 {
			fsep = ','
			if base := strings.ToLower(p[:len(p)-len(zip)]); strings.HasSuffix(base, ".tsv") || strings.HasSuffix(base, ".tab") {
				fsep = '\t'
			}
		}
		pipe := false
		if p != Stdin {
			st, err := os.Stat(p)
			pipe = err == nil && isPipe(st)
		}
		if p != Stdin && !pipe && zip == "" && fsep == ',' {
			in.Paths, in.Names = append(in.Paths, p), append(in.Names, p)
			continue
		}
		var src io.Reader
		if p == Stdin {
			if stdin == nil {
				in.Close()
				return nil, errors.New("standard input (-) is not available here")
			}
			src, name = stdin, "standard input"
		} else {
			f, err := os.Open(p) // (a pipe: waits for its writer, as cat does)
			if err != nil {
				in.Close()
				return nil, err
			}
			defer f.Close()
			src = f
		}
		if p == Stdin || pipe { // a stream: compressed if its first bytes say so
			br := bufio.NewReaderSize(src, 1<<20)
			magic, _ := br.Peek(4)
			switch {
			case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
				zip = ".gz"
			case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
				zip = ".zst"
			}
			src = br
		}
		mem, err := stage(src, zip, fsep, name)
		if err != nil {
			in.Close()
			return nil, err
		}
		in.mem = append(in.mem, mem)
		in.Paths, in.Names = append(in.Paths, shm.MemFilePath(mem)), append(in.Names, name)
	}
	return in, nil
}

// compression is the compression a file's name says (".gz", ".zst", or "").
func compression(p string) string {
	switch l := strings.ToLower(p); {
	case strings.HasSuffix(l, ".gz"):
		return ".gz"
	case strings.HasSuffix(l, ".zst"):
		return ".zst"
	}
	return ""
}

// stage writes src, decompressed and transcoded to ',', into a new memory
// file.
func stage(src io.Reader, zip string, sep byte, name string) (*os.File, error) {
	switch zip {
	case ".gz":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("%s: not gzip data: %w", name, err)
		}
		defer zr.Close()
		src = zr
	case ".zst":
		zr, err := zstd.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		src = zr
	}
	mem, err := shm.NewMemFile("parlab-input")
	if err != nil {
		return nil, err
	}
	if sep == ',' {
		_, err = io.Copy(mem, src)
	} else {
		err = scan.Transcode(mem, src, sep, name)
	}
	if err != nil {
		mem.Close()
		var pe *scan.ParseError
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return mem, nil
}
