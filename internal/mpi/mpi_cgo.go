//go:build mpi && cgo

package mpi

/*
#cgo pkg-config: ompi
#include <mpi.h>
#include <stdlib.h>

// MPI_COMM_WORLD, MPI_BYTE and MPI_LONG_LONG are macros over addresses of
// OpenMPI's globals, which cgo cannot name: these wrappers can.
static int pl_init(int *provided) {
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
}
static int pl_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int pl_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
// The collectives are the non-blocking ones, waited for by pl_test: see wait.
static int pl_gather_len(long long *n, long long *all, MPI_Request *r) {
	return MPI_Igather(n, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD, r);
}
static int pl_gatherv(void *b, int n, void *all, int *counts, int *displs, MPI_Request *r) {
	return MPI_Igatherv(b, n, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD, r);
}
static int pl_bcast_len(long long *n, MPI_Request *r) { return MPI_Ibcast(n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD, r); }
static int pl_bcast(void *b, int n, MPI_Request *r) { return MPI_Ibcast(b, n, MPI_BYTE, 0, MPI_COMM_WORLD, r); }
static int pl_test(MPI_Request *r, int *done) { return MPI_Test(r, done, MPI_STATUS_IGNORE); }
static int pl_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static int pl_finalize(void) { return MPI_Finalize(); }
static void pl_errstr(int code, char *s, int *n) { MPI_Error_string(code, s, n); }
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"
)

// Available reports whether this binary was built with MPI (the build tag
// "mpi", with cgo).
const Available = true

func mpiErr(what string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	buf := make([]byte, C.MPI_MAX_ERROR_STRING)
	var n C.int
	C.pl_errstr(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("mpi: %s: %s", what, buf[:n])
}

func initWorld() (*Comm, error) {
	calls = make(chan func())
	ready := make(chan error)
	c := &Comm{}
	go func() {
		runtime.LockOSThread() // for the process's life: MPI's thread
		var provided C.int
		err := mpiErr("MPI_Init_thread", C.pl_init(&provided))
		if err == nil && provided < C.MPI_THREAD_FUNNELED {
			err = fmt.Errorf("mpi: MPI_Init_thread gave thread level %d, parlab needs MPI_THREAD_FUNNELED", provided)
		}
		var r, s C.int
		if err == nil {
			err = mpiErr("MPI_Comm_rank", C.pl_rank(&r))
		}
		if err == nil {
			err = mpiErr("MPI_Comm_size", C.pl_size(&s))
		}
		c.rank, c.size = int(r), int(s)
		ready <- err
		if err != nil {
			return
		}
		for f := range calls {
			f()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// wait waits for the non-blocking collective that start began, testing it
// with pauses that grow from 10 µs to 1 ms: a rank that waits (rank 0 for
// the others' parts, a rank for rank 0's next broadcast) leaves its core
// to the ranks that work, where MPI's blocking calls would spin on it. It
// costs a wait up to a pause longer than the collective.
func wait(what string, start func(*C.MPI_Request) C.int) error {
	var req C.MPI_Request
	if err := mpiErr(what, start(&req)); err != nil {
		return err
	}
	pause := 10 * time.Microsecond
	for {
		var done C.int
		if err := mpiErr(what, C.pl_test(&req, &done)); err != nil {
			return err
		}
		if done != 0 {
			return nil
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Millisecond)
	}
}

// Gather sends b to rank 0. At rank 0 it returns every rank's bytes, in
// rank order (its own at 0); elsewhere nil. The result is the caller's.
func (c *Comm) Gather(b []byte) ([][]byte, error) {
	if len(b) > maxPart {
		return nil, tooBig(len(b))
	}
	var out [][]byte
	var err error
	do(func() {
		n := C.longlong(len(b))
		var lens []C.longlong
		if c.rank == 0 {
			lens = make([]C.longlong, c.size)
		}
		if err = wait("MPI_Igather", func(r *C.MPI_Request) C.int { return C.pl_gather_len(&n, ptr(lens), r) }); err != nil {
			return
		}
		var all []byte
		var counts, displs []C.int
		if c.rank == 0 {
			total := 0
			counts, displs = make([]C.int, c.size), make([]C.int, c.size)
			for i, l := range lens {
				if l > maxPart || total+int(l) > maxPart {
					err = tooBig(total + int(l))
					// Every rank is in the Gatherv below: only an abort
					// ends the job now.
					C.pl_abort(1)
					return
				}
				counts[i], displs[i] = C.int(l), C.int(total)
				total += int(l)
			}
			all = make([]byte, total+1) // +1: a pointer even when every part is empty
		}
		send := b
		if len(send) == 0 {
			send = []byte{0} // a pointer even for an empty b
		}
		err = wait("MPI_Igatherv", func(r *C.MPI_Request) C.int {
			return C.pl_gatherv(unsafe.Pointer(&send[0]), C.int(len(b)), bytePtr(all), ptr(counts), ptr(displs), r)
		})
		if err != nil || c.rank != 0 {
			return
		}
		out = make([][]byte, c.size)
		for i := range out {
			out[i] = all[displs[i] : displs[i]+counts[i] : displs[i]+counts[i]]
		}
	})
	return out, err
}

// Bcast sends rank 0's b to every rank and returns it there (rank 0 gets b;
// other ranks' b is ignored). The result is the caller's.
func (c *Comm) Bcast(b []byte) ([]byte, error) {
	if c.rank == 0 && len(b) > maxPart {
		return nil, tooBig(len(b))
	}
	var out []byte
	var err error
	do(func() {
		n := C.longlong(len(b))
		if err = wait("MPI_Ibcast", func(r *C.MPI_Request) C.int { return C.pl_bcast_len(&n, r) }); err != nil {
			return
		}
		buf := make([]byte, int(n)+1)
		if c.rank == 0 {
			copy(buf, b)
		}
		if err = wait("MPI_Ibcast", func(r *C.MPI_Request) C.int { return C.pl_bcast(unsafe.Pointer(&buf[0]), C.int(n), r) }); err == nil {
			out = buf[:n:n]
		}
	})
	return out, err
}

// Abort ends every rank of the job with code (MPI_Abort): what a rank does
// when the job must not give an answer. If MPI's thread is inside a
// collective that will not end (a rank stopped waiting for one), it exits
// with code instead: mpirun ends a job one of whose ranks exited without
// MPI_Finalize. It does nothing if MPI was never initialised or has ended.
func Abort(code int) {
	mu.Lock()
	if world == nil || ended {
		mu.Unlock()
		return
	}
	ended = true
	mu.Unlock()
	select {
	case calls <- func() { C.pl_abort(C.int(code)) }:
		time.Sleep(time.Minute) // MPI_Abort ends this process
	case <-time.After(time.Second):
	}
	os.Exit(code)
}

// Finalize ends MPI in this process (every rank calls it before it exits;
// it waits for the others). It does nothing if MPI was never initialised
// or has ended.
func Finalize() {
	mu.Lock()
	defer mu.Unlock()
	if world == nil || ended {
		return
	}
	ended = true
	do(func() { C.pl_finalize() })
}

func ptr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func bytePtr(s []byte) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// calls are served by the goroutine locked to MPI's thread.
var calls chan func()

// do runs f on MPI's thread and waits for it.
func do(f func()) {
	done := make(chan struct{})
	calls <- func() { f(); close(done) }
	<-done
}

// maxPart is the most bytes one rank may send in one Gather: MPI counts
// bytes in a C int.
const maxPart = 1<<31 - 1

func tooBig(n int) error {
	return fmt.Errorf("mpi: a part of %d bytes is more than MPI can send in one message (%d)", n, maxPart)
}
