package ftp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"

	"parlab/shm"
)

// The logins a server knows: Config.Users, until SetUsers replaces them
// (SIGHUP, in parlab ftp serve). A session looks a name up when its PASS
// comes. A session process (the processes model) has no table of its
// own: it reads its parent's, written out once into a memory file whose
// descriptor it inherits ("name:hash" lines), and looks up the one name
// it needs there. Every session got the whole table in its configuration
// before: with 20,001 users a session's greeting took 44 ms, not 2.6.

// usersTable is a server's logins and what sessions need of them.
type usersTable struct {
	mu    sync.RWMutex
	users map[string][]byte
	dummy []byte   // compared against for an unknown name (see dummyHash)
	file  *os.File // the processes model's parent: users written out, for its children
	child *os.File // a session process: its parent's file
}

// checkNames refuses names a users file cannot hold.
func checkNames(users map[string][]byte) error {
	for name := range users {
		if name == "" || strings.ContainsAny(name, ":\r\n") {
			return fmt.Errorf("user name %q: a user name must be non-empty, without ':' or line breaks", name)
		}
	}
	return nil
}

// set replaces the logins (and the dummy hash, and the file for session
// processes if withFile); on error nothing changes.
func (t *usersTable) set(users map[string][]byte, dummy []byte, withFile bool) error {
	if err := checkNames(users); err != nil {
		return err
	}
	if dummy == nil {
		var err error
		if dummy, err = dummyHash(users); err != nil {
			return err
		}
	}
	var f *os.File
	if withFile {
		var b bytes.Buffer
		for name, h := range users {
			fmt.Fprintf(&b, "%s:%s\n", name, h)
		}
		var err error
		if f, err = shm.NewMemFile("parlab-ftp-users"); err != nil {
			return err
		}
		if _, err := f.Write(b.Bytes()); err != nil {
			f.Close()
			return err
		}
	}
	t.mu.Lock()
	old := t.file
	t.users, t.dummy, t.file = users, dummy, f
	t.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// lookup is name's hash, if it is a user's, and the dummy hash.
func (t *usersTable) lookup(name string) (hash []byte, known bool, dummy []byte) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.child != nil {
		hash, known = fileLookup(t.child, name)
		return hash, known, t.dummy
	}
	hash, known = t.users[name]
	return hash, known, t.dummy
}

// fileLookup finds name's line in a users file f.
func fileLookup(f *os.File, name string) ([]byte, bool) {
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, false
	}
	key := []byte(name + ":")
	for line := range bytes.Lines(b) {
		if h, ok := bytes.CutPrefix(line, key); ok {
			return bytes.TrimSuffix(h, []byte{'\n'}), true
		}
	}
	return nil, false
}

// withFile runs f with the users file (the processes model's parent), so
// that a reload does not close it under a child's start.
func (t *usersTable) withFile(f func(*os.File) error) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return f(t.file)
}

// SetUsers replaces the server's logins: a session already logged in
// keeps its login, and the next PASS is checked against users (parlab ftp
// serve rereads its --users file on SIGHUP).
func (s *Server) SetUsers(users map[string][]byte) error {
	return s.users.set(users, nil, s.cfg.Model == Processes && !s.cfg.inSession)
}

// close releases the users file (the processes model's parent).
func (t *usersTable) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file != nil {
		t.file.Close()
		t.file = nil
	}
}
