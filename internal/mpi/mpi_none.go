//go:build !mpi || !cgo

package mpi

import "errors"

// Available reports whether this binary was built with MPI (the build tag
// "mpi", with cgo).
const Available = false

func initWorld() (*Comm, error) {
	return nil, errors.New("this parlab was built without MPI: build bin/parlab-mpi with make build where OpenMPI is installed (Debian: apt install libopenmpi-dev openmpi-bin), and start it with mpirun")
}

func (c *Comm) Gather(b []byte) ([][]byte, error) { return nil, errors.New("mpi: not built in") }

func (c *Comm) Bcast(b []byte) ([]byte, error) { return nil, errors.New("mpi: not built in") }

// Abort and Finalize do nothing in a build without MPI.
func Abort(code int) {}

func Finalize() {}
