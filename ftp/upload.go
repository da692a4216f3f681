package ftp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// How an upload reaches the disk. STOR writes into a file of its own and
// puts it in place only once the whole upload has arrived, so a broken or
// aborted one changes nothing (vsftpd writes in place: a broken upload
// leaves half a file). The file is unnamed (O_TMPFILE) in the target's
// directory where the file system allows (ext4, xfs, btrfs, tmpfs): it
// vanishes with its descriptor, whatever ends the server, and nobody can
// see it. Once whole it is linked in under a temporary name and renamed
// over the target at once. Where O_TMPFILE is refused, it is a named
// temporary file from the start. Either name starts with tempPrefix: no
// listing shows one, no client may name one, and New removes those left
// by a server killed in between (reap).
//
// It is made only after the data connection is open (a PORT to a closed
// port made one a try, never removed: 500 tries, 500 hidden files), in the
// directory the target was in when the command came, through a descriptor
// of that directory: renamed meanwhile, the directory takes the upload
// along, as vsftpd's open file would be.
//
// Its disk use: a STOR over an existing file needs the new file's room
// until the rename frees the old one's (vsftpd's in-place write needs
// none, and loses the old file on a failure). APPE writes in place (see
// appendUpload): no second copy.

// tempPrefix starts every temporary upload's name (tempName).
const tempPrefix = ".parlab-upload-"

// tempName is a fresh temporary name: 31 bytes, whatever the target's
// (a 230-byte name was refused: its temporary name, which held it, was
// past NAME_MAX).
func tempName() string {
	var b [8]byte
	rand.Read(b[:])
	return tempPrefix + hex.EncodeToString(b[:])
}

// reservedName reports whether a client's path names a temporary upload
// (a component starting with tempPrefix): refused to every command, so no
// user can make or reach a file that no listing shows.
func reservedName(client string) bool {
	for _, c := range strings.Split(client, "/") {
		if strings.HasPrefix(c, tempPrefix) {
			return true
		}
	}
	return false
}

// pending is one STOR's file, in its directory (dir, held open).
type pending struct {
	dir   *os.File
	f     *os.File
	named string // the file's name in dir, if it has one
}

// openDir opens the directory of rel through root, for an upload into it.
func openDir(root *os.Root, rel string) (*os.File, error) {
	d, err := root.Open(path.Dir(rel))
	if err != nil {
		return nil, err
	}
	if st, err := d.Stat(); err != nil || !st.IsDir() {
		d.Close()
		return nil, fs.ErrNotExist
	}
	return d, nil
}

// newUpload makes the upload's file in dir: unnamed if it can be.
func newUpload(dir *os.File) (*pending, error) {
	u := &pending{dir: dir}
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
	if err != nil {
		u.named = tempName()
		fd, err = unix.Openat(int(dir.Fd()), u.named, unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, &os.PathError{Op: "create", Path: u.named, Err: err}
		}
	}
	u.f = os.NewFile(uintptr(fd), "upload")
	return u, nil
}

// commit puts the whole upload in place as base, a name in its directory,
// replacing what was there at once; on error nothing is left of it.
func (u *pending) commit(base string) error {
	dfd := int(u.dir.Fd())
	if u.named == "" { // unnamed: a name first, that a rename can move
		name := tempName()
		if err := unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", u.f.Fd()), dfd, name, unix.AT_SYMLINK_FOLLOW); err != nil {
			return err
		}
		u.named = name
	}
	if err := unix.Renameat(dfd, u.named, dfd, base); err != nil {
		return err
	}
	u.named = ""
	return nil
}

// close releases the upload, and removes its file if it has a name still
// (not committed).
func (u *pending) close() error {
	err := u.f.Close()
	if u.named != "" {
		unix.Unlinkat(int(u.dir.Fd()), u.named, 0)
	}
	u.dir.Close()
	return err
}

// appendUpload is APPE: the data appended to rel in place, in one piece
// or not at all. It holds an exclusive flock(2) on the target while it
// writes (two sessions appending at once, in any model, land each whole,
// one after the other), and on any failure (the data connection broke,
// the disk is full, ABOR) cuts the file back to its length before, or
// removes it if it made it.
func appendUpload(ctx context.Context, root *os.Root, rel string, copyIn func(io.Writer) (int64, error)) (int64, error) {
	made := true
	to, err := root.OpenFile(rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		made = false
		to, err = root.OpenFile(rel, os.O_WRONLY|os.O_APPEND, 0)
	}
	if err != nil {
		return 0, err
	}
	defer to.Close()
	unlock, err := flock(ctx, to)
	if err != nil {
		return 0, err
	}
	defer unlock()
	st, err := to.Stat()
	if err != nil {
		return 0, err
	}
	n, err := copyIn(to)
	if err != nil {
		if made {
			root.Remove(rel)
		} else {
			to.Truncate(st.Size())
		}
	}
	return n, err
}

// flock takes an exclusive flock(2) on f, waiting for it until ctx ends
// (a shutdown), and returns its release.
func flock(ctx context.Context, f *os.File) (func(), error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	lock := func(how int) (err error) {
		rc.Control(func(fd uintptr) {
			for {
				if err = syscall.Flock(int(fd), how); err != syscall.EINTR {
					return
				}
			}
		})
		return err
	}
	for {
		err := lock(syscall.LOCK_EX | syscall.LOCK_NB)
		if err == nil {
			return func() { lock(syscall.LOCK_UN) }, nil
		}
		if err != syscall.EWOULDBLOCK {
			return nil, err
		}
		select { // another append holds it: look again soon
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// noSpace reports whether err is the disk's: full (ENOSPC), over a quota
// (EDQUOT) or over the largest file allowed (EFBIG): 552, not the data
// connection's fault.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

// reap removes the temporary uploads a server killed between an upload's
// link and its rename left under root (none, where O_TMPFILE works and no
// server was killed at that instant), and returns how many.
func reap(root *os.Root) int {
	n := 0
	fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasPrefix(d.Name(), tempPrefix) && root.Remove(p) == nil {
			n++
		}
		return nil
	})
	return n
}
