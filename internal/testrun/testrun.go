// Package testrun holds what parlab's tests share about how they are run.
//
// make test runs every test twice: in full without the race detector, and
// with it under -short. The race detector finds races between goroutines
// of one process, at 2 to 20 times the cost, so the race run leaves out
// what it cannot judge: tests whose work is done in child processes (each
// a race-built copy of the test binary there, a second to start, and the
// detector sees nothing across processes), and tests that check
// single-goroutine code against a reference at length. docs/tests.md has
// the plan and its timing.
package testrun

import (
	"bytes"
	"runtime/debug"
	"sync"
	"testing"
)

// FullRunOnly skips t under -short (the race run), saying why in the
// test's output.
func FullRunOnly(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (the race run): " + why + "; the full run covers it")
	}
}

// LessGC lets the test process's heap grow to five times what is live
// before a collection (GOGC=400), for the rest of its life. The tests'
// heaps are small and short-lived: at the default, collections took a
// large share of the CPU of scan's and spawn's tests (docs/tests.md), and
// make test is CPU-bound. It is called from TestMain after a child
// mode has had its turn, so the processes that the tests start (workers,
// sessions, servers) keep the default, and what they measure of memory
// does not change.
func LessGC() { debug.SetGCPercent(400) }

// SyncBuffer is a bytes.Buffer that several goroutines may write at once
// (a process's output, a server's log) while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
