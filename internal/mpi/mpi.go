// Package mpi is parlab's binding to MPI (OpenMPI from Debian: libopenmpi-dev),
// the few calls the mpi strategy needs: start (MPI_Init_thread), who am I
// (Comm_rank, Comm_size), gather every rank's bytes at rank 0 (Gather of the
// lengths, then Gatherv), broadcast rank 0's bytes (Bcast), abort the whole
// job (Abort) and end (Finalize).
//
// The binding is cgo behind the build tag "mpi" (make build makes
// bin/parlab-mpi with it when mpicc is present). Without the tag the
// package is pure Go: Available is false and World fails with an error that
// says how to get an MPI build, so the default build needs no MPI at all.
//
// Concurrency: MPI is initialised with MPI_THREAD_FUNNELED, and every MPI
// call of this process runs on one OS thread, the one that initialised it: a
// goroutine locked to it serves the calls one at a time. So any goroutine
// may call any method, and MPI never sees two threads.
package mpi

import (
	"os"
	"sync"
)

// Launched reports whether this process was started by an MPI launcher
// (mpirun, mpiexec, srun): whether it is one rank of a job. OpenMPI sets
// OMPI_COMM_WORLD_SIZE in every rank; PMI_SIZE and PMIX_RANK are the
// process-management interfaces' own.
func Launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// Comm is MPI_COMM_WORLD, as World initialised it. Its methods are
// collective where MPI's are: every rank must call Gather and Bcast, in the
// same order.
type Comm struct {
	rank, size int
}

// Rank is this process's rank, 0 ≤ Rank < Size.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the job.
func (c *Comm) Size() int { return c.size }

var (
	once  sync.Once
	world *Comm
	err0  error
	ended bool // Finalize or Abort ran (under mu)
	mu    sync.Mutex
)

// World initialises MPI on first use and returns the world communicator.
// Every later call returns the same one, or the same error.
func World() (*Comm, error) {
	once.Do(func() { world, err0 = initWorld() })
	return world, err0
}

// Initialized reports whether World has initialised MPI (and it has not
// ended since).
func Initialized() bool {
	mu.Lock()
	defer mu.Unlock()
	return world != nil && !ended
}
