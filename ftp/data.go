package ftp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// portPool hands out passive ports from a range, each to one session at a
// time (0, 0: the kernel picks any).
type portPool struct {
	mu       sync.Mutex
	min, max int
	used     map[int]bool
	next     int
}

func newPortPool(lo, hi int) *portPool {
	return &portPool{min: lo, max: hi, used: map[int]bool{}, next: lo}
}

// listen opens a passive listener on ip, on a free port of the range.
func (p *portPool) listen(ip net.IP) (net.Listener, int, error) {
	if p.min == 0 && p.max == 0 {
		ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: ip})
		if err != nil {
			return nil, 0, err
		}
		return ln, ln.Addr().(*net.TCPAddr).Port, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for range p.max - p.min + 1 {
		port := p.next
		if p.next++; p.next > p.max {
			p.next = p.min
		}
		if p.used[port] {
			continue
		}
		ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: ip, Port: port})
		if err != nil {
			continue // taken by someone else
		}
		p.used[port] = true
		return ln, port, nil
	}
	return nil, 0, fmt.Errorf("every passive port of %d-%d is in use", p.min, p.max)
}

func (p *portPool) release(port int) {
	p.mu.Lock()
	delete(p.used, port)
	p.mu.Unlock()
}

// InUse is how many passive ports of the range are held.
func (s *Server) PassivePortsInUse() int {
	s.pasv.mu.Lock()
	defer s.pasv.mu.Unlock()
	return len(s.pasv.used)
}

func (ss *session) closePasv() {
	ss.dmu.Lock()
	defer ss.dmu.Unlock()
	if ss.pasv != nil {
		ss.pasv.Close()
		ss.srv.pasv.release(ss.pasvPort)
		ss.pasv, ss.pasvPort = nil, 0
	}
}

// openPasv replaces the session's data setting with a new passive listener
// on the control connection's own address.
func (ss *session) openPasv() (net.IP, int, error) {
	ss.closePasv()
	ip := ss.c.LocalAddr().(*net.TCPAddr).IP
	ln, port, err := ss.srv.pasv.listen(ip)
	if err != nil {
		return nil, 0, err
	}
	ss.dmu.Lock()
	ss.pasv, ss.pasvPort, ss.active = ln, port, ""
	ss.dmu.Unlock()
	return ip, port, nil
}

func (ss *session) cmdPasv(string) bool {
	if ss.epsvAll {
		ss.reply(501, "EPSV ALL was sent: only EPSV now.")
		return false
	}
	ip, port, err := ss.openPasv()
	if err == nil && ip.To4() == nil {
		ss.closePasv()
		ss.reply(522, "PASV needs IPv4; use EPSV.")
		return false
	}
	if err != nil {
		ss.reply(425, "Cannot open a passive port: "+err.Error())
		return false
	}
	v4 := ip.To4()
	ss.reply(227, fmt.Sprintf("Entering Passive Mode (%d,%d,%d,%d,%d,%d).", v4[0], v4[1], v4[2], v4[3], port>>8, port&0xFF))
	return false
}

func (ss *session) cmdEpsv(arg string) bool {
	switch strings.ToUpper(strings.TrimSpace(arg)) {
	case "ALL":
		ss.epsvAll = true
		ss.reply(200, "EPSV ALL: only EPSV from now on.")
		return false
	case "", "1", "2":
	default:
		ss.reply(522, "Unknown network protocol; use (1,2).")
		return false
	}
	_, port, err := ss.openPasv()
	if err != nil {
		ss.reply(425, "Cannot open a passive port: "+err.Error())
		return false
	}
	ss.reply(229, fmt.Sprintf("Entering Extended Passive Mode (|||%d|).", port))
	return false
}

// setActive checks an active data address: the control connection's own IP
// and a port of 1024 or more (RFC 2577: no FTP bounce).
func (ss *session) setActive(ip net.IP, port int) bool {
	if ss.epsvAll {
		ss.reply(501, "EPSV ALL was sent: only EPSV now.")
		return false
	}
	if !ip.Equal(ss.remoteIP()) || port < 1024 || port > 65535 {
		ss.reply(504, "PORT and EPRT may name only your own address and a port of 1024 or more.")
		return false
	}
	ss.closePasv()
	ss.dmu.Lock()
	ss.active = net.JoinHostPort(ip.String(), strconv.Itoa(port))
	ss.dmu.Unlock()
	ss.reply(200, "Active data connection to "+ss.active+".")
	return false
}

func (ss *session) cmdPort(arg string) bool {
	f := strings.Split(strings.TrimSpace(arg), ",")
	var n [6]int
	ok := len(f) == 6
	for i := 0; ok && i < 6; i++ {
		v, err := strconv.Atoi(f[i])
		ok = err == nil && v >= 0 && v <= 255
		n[i] = v
	}
	if !ok {
		ss.reply(501, "PORT wants h1,h2,h3,h4,p1,p2.")
		return false
	}
	return ss.setActive(net.IPv4(byte(n[0]), byte(n[1]), byte(n[2]), byte(n[3])), n[4]<<8|n[5])
}

func (ss *session) cmdEprt(arg string) bool {
	arg = strings.TrimSpace(arg)
	if len(arg) < 2 {
		ss.reply(501, "EPRT wants |proto|address|port|.")
		return false
	}
	f := strings.Split(arg, arg[:1])
	if len(f) != 5 || f[0] != "" || f[4] != "" {
		ss.reply(501, "EPRT wants |proto|address|port|.")
		return false
	}
	ip := net.ParseIP(f[2])
	port, err := strconv.Atoi(f[3])
	if ip == nil || err != nil || (f[1] != "1" && f[1] != "2") {
		ss.reply(501, "EPRT wants |proto|address|port|.")
		return false
	}
	return ss.setActive(ip, port)
}

// openData opens the data connection the session set up: it accepts on the
// passive listener (refusing connections from other addresses) or dials
// the active address, within DataTimeout; PROT P wraps it in TLS.
func (ss *session) openData() (net.Conn, error) {
	ss.dmu.Lock()
	ln, active := ss.pasv, ss.active
	ss.dmu.Unlock()
	timeout := ss.srv.cfg.DataTimeout
	var c net.Conn
	switch {
	case ln != nil:
		defer ss.closePasv() // one data connection a PASV
		defer context.AfterFunc(ss.ctx, func() { ln.Close() })()
		peer := ss.remoteIP()
		deadline := time.Now().Add(timeout)
		for {
			ln.(*net.TCPListener).SetDeadline(deadline)
			d, err := ln.Accept()
			if err != nil {
				return nil, err
			}
			if d.RemoteAddr().(*net.TCPAddr).IP.Equal(peer) {
				c = d
				break
			}
			ss.srv.ForeignData.Add(1)
			d.Close()
		}
	case active != "":
		d, err := (&net.Dialer{Timeout: timeout}).DialContext(ss.ctx, "tcp", active)
		if err != nil {
			return nil, err
		}
		c = d
	default:
		return nil, errors.New("no data connection set up: send PASV, EPSV, PORT or EPRT first")
	}
	if ss.protP && ss.tlsCfg != nil {
		stop := context.AfterFunc(ss.ctx, func() { c.Close() })
		tc, err := handshake(c, ss.tlsCfg, timeout)
		stop()
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("TLS on the data connection: %w", err)
		}
		if !ss.srv.cfg.AllowNoReuse && !resumed(tc) {
			tc.Close()
			return nil, errNoReuse
		}
		c = tc
	}
	return c, nil
}

// errNoReuse: a PROT P data connection did not resume its control
// connection's TLS session (Config.AllowNoReuse).
var errNoReuse = errors.New("TLS session reuse required: the data connection must resume the control connection's TLS session")

// startTransfer opens the data connection (having said 150 first) and runs
// body on it in a goroutine of its own; the control loop goes on reading,
// for ABOR and STAT. The goroutine replies 226 or 426 when it ends.
//
// It reports whether body runs (false: the data connection did not open,
// 425, and body never will).
func (ss *session) startTransfer(what string, body func(data net.Conn) (int64, error)) bool {
	if ss.clearDataRefused() {
		ss.reply(521, "Data connections must be protected on this server: send PROT P.")
		return false
	}
	ss.reply(150, "Opening data connection for "+what+".")
	data, err := ss.openData()
	if err != nil {
		code := 425
		if errors.Is(err, errNoReuse) {
			code = 522
		}
		ss.reply(code, "Cannot open the data connection: "+err.Error())
		return false
	}
	t := &transfer{data: data, done: make(chan struct{}), step: ss.cur}
	if t.step >= 0 {
		ss.lmu.Lock()
		ss.steps[t.step].xfer = true // this command's entry: the goroutine ends it
		ss.lmu.Unlock()
	}
	ss.dmu.Lock()
	ss.xfer = t
	ss.dmu.Unlock()
	go func() {
		defer close(t.done)
		defer context.AfterFunc(ss.ctx, func() { t.stop.Store(true); data.Close() })()
		// a stalled data connection ends at DataTimeout
		data.SetDeadline(time.Now().Add(ss.srv.cfg.DataTimeout))
		_, err := body(&deadlineConn{data, ss.srv.cfg.DataTimeout})
		if cerr := data.Close(); err == nil {
			err = cerr
		}
		ss.dmu.Lock()
		ss.xfer = nil
		ss.dmu.Unlock()
		ss.c.SetReadDeadline(time.Now().Add(ss.srv.cfg.Idle)) // the idle clock starts again
		code, text := 226, "Transfer complete."
		switch {
		case t.stop.Load():
			code, text = 426, "Connection closed; transfer aborted."
		case noSpace(err):
			code, text = 552, "Insufficient storage space (the disk is full, or the file too large): nothing was stored."
		case err != nil:
			code, text = 426, "Transfer failed: "+reasonIO(err)
		}
		ss.endTransferStep(t.step, code)
		ss.send(code, text)
	}()
	return true
}

// deadlineConn moves a data connection's deadline on with every read and
// write, so only a stall (not a long transfer) hits DataTimeout.
type deadlineConn struct {
	net.Conn
	d time.Duration
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.d))
	return c.Conn.Read(b)
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.d))
	return c.Conn.Write(b)
}

func reasonIO(err error) string {
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "the data connection stalled"
	case errors.As(err, &oe), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrUnexpectedEOF):
		return "the data connection broke"
	}
	return "the file could not be written or read (" + reason(err) + ")"
}

// abortTransfer stops a running transfer and waits for it; it reports
// whether there was one.
func (ss *session) abortTransfer() bool {
	ss.dmu.Lock()
	t := ss.xfer
	ss.dmu.Unlock()
	if t == nil {
		return false
	}
	t.stop.Store(true)
	t.data.Close()
	<-t.done
	return true
}

func (ss *session) cmdAbor(string) bool {
	if ss.abortTransfer() {
		ss.reply(226, "Abort successful.")
	} else {
		ss.reply(225, "No transfer to abort.")
	}
	return false
}

// busy refuses a second transfer while one runs.
func (ss *session) busy() bool {
	if ss.transferring() {
		ss.reply(450, "A transfer is running: wait for it, or ABOR.")
		return true
	}
	return false
}

func (ss *session) cmdRetr(arg string) bool {
	if ss.busy() {
		return false
	}
	client, rel := ss.resolve(arg)
	f, err := ss.srv.root.Open(rel)
	if err != nil {
		ss.reply(550, clip(client, 200)+": "+reason(err))
		return false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		ss.reply(550, clip(client, 200)+": not a plain file.")
		return false
	}
	offset := ss.rest
	ss.rest = 0
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil || offset > st.Size() {
			f.Close()
			ss.reply(554, fmt.Sprintf("Cannot restart at %d.", offset))
			return false
		}
	}
	binary := ss.binary
	sent := ss.startTransfer(fmt.Sprintf("%s (%d bytes)", clip(client, 200), st.Size()-offset), func(data net.Conn) (int64, error) {
		defer f.Close()
		var n int64
		var err error
		if binary {
			// *os.File to a TCP connection: the kernel's sendfile,
			// through progressTCP's ReadFrom (io.Copy would take the
			// file's WriteTo, which finds the socket itself and sends
			// with the deadline never moved)
			if w, ok := unwrap(data).(io.ReaderFrom); ok {
				n, err = w.ReadFrom(f)
			} else {
				n, err = io.Copy(data, f)
			}
		} else {
			w := bufio.NewWriter(data)
			n, err = io.Copy(&crlfWriter{w: w}, f)
			if err == nil {
				err = w.Flush()
			}
		}
		ss.bytesOut.Add(n)
		return n, err
	})
	if !sent {
		f.Close() // (no data connection: the body never runs)
	}
	return false
}

// unwrap returns the plain TCP connection under a deadlineConn, so io.Copy
// finds its ReadFrom (sendfile); the deadline is then the one set at the
// transfer's start, moved on by nothing: a stall still ends it.
func unwrap(c net.Conn) io.Writer {
	if d, ok := c.(*deadlineConn); ok {
		if tc, ok := d.Conn.(*net.TCPConn); ok {
			return &progressTCP{tc, d.d}
		}
	}
	return c
}

// progressTCP is a TCP connection whose deadline moves on with the
// data: a client is dropped only if it takes nothing for a whole
// DataTimeout. sendfile writes a piece of sendChunk bytes a call, each
// with the deadline moved on; and while a call waits for room in the
// socket (the kernel wakes a writer only when half its send buffer has
// drained: megabytes), a watcher moves it on as long as the bytes the
// socket holds unsent go down (SIOCOUTQ), that is, as the client takes
// them. (One deadline a piece of 8 MiB dropped any client slower than 8
// MiB a minute, data flowing: 100 KB/s, at 9.68 MB.)
type progressTCP struct {
	*net.TCPConn
	d time.Duration
}

// sendChunk is progressTCP's piece: a sendfile call each.
const sendChunk = 1 << 20

func (p *progressTCP) ReadFrom(r io.Reader) (int64, error) {
	stop := p.watch()
	defer stop()
	var total int64
	for {
		p.SetWriteDeadline(time.Now().Add(p.d))
		n, err := p.TCPConn.ReadFrom(io.LimitReader(r, sendChunk))
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// watch moves the write deadline on, every quarter of it, while the
// socket's unsent bytes go down; it returns its stop.
func (p *progressTCP) watch() func() {
	rc, err := p.SyscallConn()
	if err != nil {
		return func() {}
	}
	unsent := func() (n int) {
		n = -1
		rc.Control(func(fd uintptr) {
			if v, err := unix.IoctlGetInt(int(fd), unix.SIOCOUTQ); err == nil {
				n = v
			}
		})
		return n
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(p.d / 4)
		defer t.Stop()
		last := unsent()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if n := unsent(); n >= 0 && n < last {
					p.SetWriteDeadline(time.Now().Add(p.d))
					last = n
				} else if n > last {
					last = n // (refilled by the next piece)
				}
			}
		}
	}()
	return func() { close(done) }
}

// cmdStore is STOR and APPE (upload.go says how each reaches the disk):
// what can be refused is refused before 150 (a directory of that name, a
// REST past the target's end, a directory that is not there); the file is
// made only once the data connection is open.
func (ss *session) cmdStore(arg string, appendTo bool) bool {
	if ss.busy() {
		return false
	}
	client, rel := ss.resolve(arg)
	if rel == "." {
		ss.reply(553, "Give a file name.")
		return false
	}
	root := ss.srv.root
	st, err := root.Lstat(rel)
	if err == nil && st.IsDir() {
		ss.reply(550, clip(client, 200)+": a directory.")
		return false
	}
	offset := ss.rest
	ss.rest = 0
	if !appendTo && offset > 0 && (err != nil || !st.Mode().IsRegular() || offset > st.Size()) {
		// RFC 3659: a restart point the file does not reach is refused
		// (it wrote at the file's old end, or at 0, and said 226)
		have := int64(0)
		if err == nil {
			have = st.Size()
		}
		ss.reply(554, fmt.Sprintf("Cannot restart at %d: %s has %d bytes.", offset, clip(client, 200), have))
		return false
	}
	var dir *os.File
	if !appendTo {
		if dir, err = openDir(root, rel); err != nil {
			ss.reply(553, clip(client, 200)+": "+reason(err))
			return false
		}
	}
	binary := ss.binary
	copyIn := func(w io.Writer, data net.Conn) (int64, error) {
		if binary {
			return io.Copy(w, data)
		}
		lw := &lfWriter{w: w}
		n, err := io.Copy(lw, data)
		if err == nil && lw.cr {
			_, err = w.Write([]byte{'\r'}) // a CR the stream ended on
		}
		return n, err
	}
	ok := ss.startTransfer(clip(client, 200), func(data net.Conn) (int64, error) {
		var n int64
		var err error
		if appendTo {
			n, err = appendUpload(ss.ctx, root, rel, func(w io.Writer) (int64, error) {
				n, err := copyIn(w, data)
				if err == nil && ss.xferStopped() {
					err = errAborted
				}
				return n, err
			})
			ss.bytesIn.Add(n)
			return n, err
		}
		u, err := newUpload(dir)
		if err != nil {
			dir.Close()
			return 0, err
		}
		defer u.close()
		if offset > 0 { // STOR after REST: the target's bytes up to the offset first
			if err := copyHead(root, rel, u.f, offset); err != nil {
				return 0, err
			}
		}
		n, err = copyIn(u.f, data)
		ss.bytesIn.Add(n)
		if err == nil && ss.xferStopped() {
			err = errAborted
		}
		if err == nil {
			err = u.commit(path.Base(rel))
		}
		return n, err
	})
	if !ok && dir != nil {
		dir.Close()
	}
	return false
}

// errAborted is an upload's error after ABOR: nothing is stored.
var errAborted = errors.New("aborted")

// copyHead copies rel's first n bytes (under root) to w: a resumed STOR's.
func copyHead(root *os.Root, rel string, w io.Writer, n int64) error {
	old, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer old.Close()
	if k, err := io.Copy(w, io.LimitReader(old, n)); err != nil || k != n {
		return fmt.Errorf("the file to resume shrank to %d bytes: %w", k, err)
	}
	return nil
}

func (ss *session) xferStopped() bool {
	ss.dmu.Lock()
	defer ss.dmu.Unlock()
	return ss.xfer != nil && ss.xfer.stop.Load()
}

// crlfWriter writes LF as CR LF (TYPE A, file to wire).
type crlfWriter struct {
	w    io.Writer
	prev byte
}

func (c *crlfWriter) Write(b []byte) (int, error) {
	out := make([]byte, 0, len(b)+len(b)/32)
	for _, x := range b {
		if x == '\n' && c.prev != '\r' {
			out = append(out, '\r')
		}
		out = append(out, x)
		c.prev = x
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// lfWriter writes CR LF as LF (TYPE A, wire to file).
type lfWriter struct {
	w  io.Writer
	cr bool // a CR is held back
}

func (l *lfWriter) Write(b []byte) (int, error) {
	out := make([]byte, 0, len(b)+1)
	for _, x := range b {
		if l.cr && x != '\n' {
			out = append(out, '\r')
		}
		l.cr = x == '\r'
		if !l.cr {
			out = append(out, x)
		}
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
