package child

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A Go program pays at start for every package it links: their
// initialisers run and the pages they touch fault in. parlab links
// gonum/plot and its fonts, html/template, x/crypto and the FTP lab, and a
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
// sources, which make build sets with -ldflags -X), and Exe takes a lean
// binary only if its stamp is this program's, read from its build
// information without running it. Without a stamp (go build, go test,
// and a -trimpath build, whose build information leaves -ldflags out)
// children are this program itself.

// The lean child binaries, by name, beside the parlab binary: the query
// worker (cmd/parlab-worker) and the FTP server's session process
// (cmd/parlab-session).
const (
	WorkerName  = "parlab-worker"
	SessionName = "parlab-session"
)

// NoopArg is argv[1] of a child that exits at once (the spawn lab's
// forkexec methods): what starting a worker costs, minus the work.
const NoopArg = "__parlab_noop"

func init() { Register(NoopArg, func([]string) int { return 0 }) }

// stamp identifies the sources this binary was built from; set by make
// build (-ldflags "-X parlab/internal/child.stamp=…"), empty otherwise.
var stamp string

// Stamp is the sources' stamp this binary was built with ("" for none).
func Stamp() string { return stamp }

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
	if stamp != "" {
		if q, err := Beside(name); err == nil && stampOf(q) == stamp {
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

// stampOf reads the stamp a Go binary at path was built with from its
// build information ("" if it has none or is not a Go binary).
func stampOf(path string) string {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return ""
	}
	const key = "parlab/internal/child.stamp="
	for _, s := range bi.Settings {
		if s.Key != "-ldflags" {
			continue
		}
		if i := strings.Index(s.Value, key); i >= 0 {
			v := s.Value[i+len(key):]
			if j := strings.IndexAny(v, " '\""); j >= 0 {
				v = v[:j]
			}
			return v
		}
	}
	return ""
}
