package shm

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// NewMemFile makes an anonymous file in memory (memfd_create, close-on-exec)
// for bytes that cannot be mapped where they are (standard input, a
// decompressed file): write them, then open Path like any file. The bytes
// live until the returned file is closed and no mapping holds them.
func NewMemFile(name string) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	return os.NewFile(uintptr(fd), "memfd:"+name), nil
}

// MemFilePath is a path that opens f (a memory file, or any open file,
// such as standard input redirected from a file) again, from this process
// or from any child of it while this process holds f open: /proc/PID/fd/N.
// So a child process maps a memory file by path, as it maps any input.
func MemFilePath(f *os.File) string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), f.Fd())
}
