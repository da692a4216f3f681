package ftp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// session is one client's control connection and its state. The command
// loop runs in one goroutine; a transfer runs in another and replies when
// it ends, so replies are serialised by wmu.
type session struct {
	srv *Server
	c   net.Conn
	r   *bufio.Reader
	wmu sync.Mutex

	user               string
	loggedIn, readOnly bool
	failures           int
	cwd                string
	binary             bool // TYPE I; TYPE A converts line ends
	rest               int64
	renameFrom         string
	epsvAll            bool
	tls, protP         bool       // AUTH TLS done; PROT P
	tlsCfg             *TLSConfig // this session's (sessionTLS), from AUTH TLS on

	dmu      sync.Mutex // guards the data connection setup and xfer
	pasv     net.Listener
	pasvPort int
	active   string // PORT/EPRT address
	xfer     *transfer

	start             time.Time
	cmds              int
	code              int        // the last reply the control loop sent (see reply)
	cur               int        // the running command's index in steps, or -1
	lmu               sync.Mutex // guards steps: a transfer's goroutine ends its own
	steps             []logStep  // with a log (Config.Log): the first maxLogSteps commands
	bytesIn, bytesOut atomic.Int64
	result            atomic.Pointer[string] // how it ended, for the log: set by the loop, or by kill
	killed            atomic.Bool
	// ctx ends when the session is killed or ends: whatever waits on the
	// session's behalf (a passive accept, a dial, a data handshake, a
	// transfer, a lock) stops then, so a shutdown ends within its grace.
	ctx    context.Context
	cancel context.CancelFunc
}

// transfer is a running data transfer.
type transfer struct {
	data net.Conn
	done chan struct{}
	stop atomic.Bool // ABOR asked for it
	step int         // its command's in steps, or -1
}

// logStep is one command in the session's log line: its verb (never its
// argument: a password, a path), the code of the reply that ended it (a
// transfer's 226 or 426, not its 150) and the seconds from its line's
// arrival to that reply.
type logStep struct {
	Verb    string  `json:"verb"`
	Code    int     `json:"code"`
	Seconds float64 `json:"s"`
	start   time.Time
	xfer    bool // a transfer ends it, in its goroutine
}

// maxLogSteps bounds a session's log line; "commands" still counts all.
const maxLogSteps = 1000

func newSession(srv *Server, c net.Conn) *session {
	oobInline(c)
	ss := &session{srv: srv, c: c, r: bufio.NewReaderSize(c, srv.cfg.MaxLine+2), cwd: "/", start: time.Now(), cur: -1}
	ss.ctx, ss.cancel = context.WithCancel(context.Background())
	ss.setResult("closed by client")
	return ss
}

func (ss *session) setResult(r string) { ss.result.Store(&r) }

// oobInline keeps urgent data in c's stream (SO_OOBINLINE). A client's
// urgent byte is the last of what it sent with MSG_OOB: the IAC of a
// Synch, or the LF of Python ftplib's abort(), which sends "ABOR\r\n"
// urgent. Out of band, that byte would be lost from the line.
func oobInline(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		if rc, err := tc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) {
				syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_OOBINLINE, 1)
			})
		}
	}
}

// errLineTooLong is a command line over the limit.
var errLineTooLong = errors.New("command line too long")

// readLine reads one command line (CRLF or LF) of at most the buffer's
// size less its line end, with its Telnet commands taken out (telnet).
func readLine(r *bufio.Reader) (string, error) {
	b, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", errLineTooLong
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(telnet(b)), "\r\n"), nil
}

// Telnet's bytes (RFC 854) that a control connection may carry: RFC 959
// has a client send IP and then the Synch (an urgent IAC DM) before ABOR.
const (
	iac  = 0xff
	dm   = 0xf2 // data mark, the Synch's end
	will = 0xfb // WILL, WONT, DO and DONT (0xfb-0xfe) take an option byte
)

// telnet removes Telnet commands from a control line, in place: IAC IAC is
// one 0xff byte; IAC WILL, WONT, DO or DONT with its option, and IAC with
// any other command (IP, DM, AYT …) go; so does a DM at the line's start,
// what is left of a Synch when its urgent IAC was taken out of band. So
// "\xff\xf4\xff\xf2ABOR" and "\xff\xf4\xf2ABOR" are ABOR. No UTF-8 text holds
// 0xff, and no verb starts with 0xf2.
func telnet(b []byte) []byte {
	if bytes.IndexByte(b, iac) < 0 && (len(b) == 0 || b[0] != dm) {
		return b
	}
	out := b[:0]
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] != iac:
			if b[i] == dm && len(out) == 0 {
				continue
			}
			out = append(out, b[i])
		case i+1 < len(b) && b[i+1] == iac:
			out = append(out, iac)
			i++
		case i+1 < len(b) && b[i+1] >= will && b[i+1] < iac:
			i += 2
		default:
			i++
		}
	}
	return out
}

// ParseCommand splits a command line into its verb (upper case) and its
// argument (what follows the first space, as it is).
func ParseCommand(line string) (verb, arg string) {
	verb, arg, _ = strings.Cut(line, " ")
	return strings.ToUpper(verb), arg
}

// reply sends a reply from the control loop, which notes its code for the
// log; a transfer's goroutine sends with send.
func (ss *session) reply(code int, text string) error {
	ss.code = code
	return ss.send(code, text)
}

// send writes one reply; text with line breaks is a multi-line reply
// (RFC 959 4.2: "code-" first, "code " last, lines between start with a
// space if they could be mistaken for either).
func (ss *session) send(code int, text string) error {
	lines := strings.Split(text, "\n")
	b := make([]byte, 0, len(text)+8*len(lines))
	for i, l := range lines {
		switch {
		case len(lines) == 1:
			b = fmt.Appendf(b, "%d ", code)
		case i == 0:
			b = fmt.Appendf(b, "%d-", code)
		case i == len(lines)-1:
			b = fmt.Appendf(b, "%d ", code)
		default:
			if !strings.HasPrefix(l, " ") {
				b = append(b, ' ')
			}
		}
		b = append(appendPrintable(b, l), '\r', '\n')
	}
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	ss.c.SetWriteDeadline(time.Now().Add(ss.srv.cfg.DataTimeout))
	_, err := ss.c.Write(b)
	return err
}

// remote is the control connection's peer IP (through TLS too).
func (ss *session) remoteIP() net.IP { return ss.c.RemoteAddr().(*net.TCPAddr).IP }

// kill ends the session from outside (shutdown): the reply, then the
// connection closed under the command loop.
func (ss *session) kill(reply string) {
	ss.killed.Store(true)
	ss.setResult("closed by server shutdown")
	ss.cancel()
	ss.wmu.Lock()
	ss.c.SetWriteDeadline(time.Now().Add(time.Second))
	io.WriteString(ss.c, reply+"\r\n")
	ss.wmu.Unlock()
	ss.c.Close()
}

// serve is the command loop: the greeting, then a reply a command, until
// QUIT, a fault, a limit, or the client leaves.
func (ss *session) serve() {
	defer ss.end()
	if ss.reply(220, "parlab FTP server ready.") != nil {
		return
	}
	cfg := &ss.srv.cfg
	for {
		if ss.transferring() {
			ss.c.SetReadDeadline(time.Time{}) // the idle timeout waits for the transfer
		} else {
			ss.c.SetReadDeadline(time.Now().Add(cfg.Idle))
		}
		line, err := readLine(ss.r)
		var ne net.Error
		switch {
		case errors.Is(err, errLineTooLong):
			ss.setResult("command line too long")
			ss.reply(500, fmt.Sprintf("Command line too long (the most is %d bytes); closing.", cfg.MaxLine))
			return
		case errors.As(err, &ne) && ne.Timeout() && !ss.killed.Load():
			if ss.transferring() {
				continue
			}
			ss.setResult("idle timeout")
			ss.reply(421, fmt.Sprintf("Idle for %v; closing.", cfg.Idle))
			return
		case err != nil:
			return
		}
		ss.cmds++
		verb, arg := ParseCommand(line)
		i := ss.beginStep(verb)
		end := ss.handle(verb, arg)
		ss.endStep(i)
		if end {
			return
		}
	}
}

// beginStep opens a command's entry in the log, if there is a log and
// room: its index, else -1.
func (ss *session) beginStep(verb string) int {
	ss.cur, ss.code = -1, 0
	if ss.srv.cfg.Log == nil || len(ss.steps) >= maxLogSteps {
		return -1
	}
	ss.lmu.Lock()
	defer ss.lmu.Unlock()
	ss.steps = append(ss.steps, logStep{Verb: clip(verb, 16), start: time.Now()})
	ss.cur = len(ss.steps) - 1
	return ss.cur
}

// endStep closes entry i with the last reply, unless a transfer does.
func (ss *session) endStep(i int) {
	if i < 0 {
		return
	}
	ss.lmu.Lock()
	defer ss.lmu.Unlock()
	if st := &ss.steps[i]; !st.xfer {
		st.Code, st.Seconds = ss.code, time.Since(st.start).Seconds()
	}
}

// endTransferStep closes a transfer's entry (from its goroutine).
func (ss *session) endTransferStep(i, code int) {
	if i < 0 {
		return
	}
	ss.lmu.Lock()
	defer ss.lmu.Unlock()
	st := &ss.steps[i]
	st.Code, st.Seconds = code, time.Since(st.start).Seconds()
}

// end releases what the session holds and logs it.
func (ss *session) end() {
	defer ss.cancel()
	ss.abortTransfer()
	ss.closePasv()
	ss.c.Close()
	if w := ss.srv.cfg.Log; w != nil {
		ss.lmu.Lock()
		steps := ss.steps
		ss.lmu.Unlock()
		b, _ := json.Marshal(struct {
			Start    time.Time `json:"start"`
			End      time.Time `json:"end"`
			Peer     string    `json:"peer"`
			Model    string    `json:"model"`
			User     string    `json:"user"`
			Commands int       `json:"commands"`
			Steps    []logStep `json:"steps"`
			BytesIn  int64     `json:"bytes_in"`
			BytesOut int64     `json:"bytes_out"`
			Result   string    `json:"result"`
		}{ss.start, time.Now(), ss.c.RemoteAddr().String(), ss.srv.cfg.Model.String(), ss.user, ss.cmds, steps,
			ss.bytesIn.Load(), ss.bytesOut.Load(), *ss.result.Load()})
		ss.srv.logMu.Lock()
		w.Write(append(b, '\n'))
		ss.srv.logMu.Unlock()
	}
}

func (ss *session) transferring() bool {
	ss.dmu.Lock()
	defer ss.dmu.Unlock()
	return ss.xfer != nil
}

// resolve turns a client's path into the client's absolute path and the
// name to open through the root: cleaned under "/", so ".." stops there.
func (ss *session) resolve(arg string) (client, rel string) {
	p := arg
	if !strings.HasPrefix(p, "/") {
		p = ss.cwd + "/" + p
	}
	client = path.Clean("/" + p)
	rel = strings.TrimPrefix(client, "/")
	if rel == "" {
		rel = "."
	}
	return client, rel
}

// command is one verb's handler: it returns true to end the session.
type command struct {
	run     func(ss *session, arg string) bool
	noLogin bool // allowed before login
	write   bool // changes the tree: refused to read-only users
	path    bool // its argument is a path: no control characters (553)
}

var commands map[string]command

// unsupported verbs are known (RFC 959 and later) and answered 502.
var unsupported = map[string]bool{"ACCT": true, "SMNT": true, "REIN": true, "STOU": true, "SITE": true,
	"LPRT": true, "LPSV": true, "ADAT": true, "CCC": true, "CONF": true, "ENC": true, "MIC": true, "LANG": true}

func (ss *session) handle(verb, arg string) bool {
	cmd, ok := commands[verb]
	switch {
	case !ok && unsupported[verb]:
		ss.reply(502, verb+" is not implemented.")
		return false
	case !ok:
		ss.reply(500, fmt.Sprintf("Unknown command %q.", clip(verb, 16)))
		return false
	case !cmd.noLogin && !ss.loggedIn:
		ss.reply(530, "Please log in with USER and PASS first.")
		return false
	case cmd.write && ss.readOnly:
		ss.reply(550, "Permission denied: this login is read-only.")
		return false
	case cmd.path && hasControl(arg):
		ss.reply(553, "A name may not hold control characters (CR, LF, NUL and the like).")
		return false
	case cmd.path && arg != "":
		if client, _ := ss.resolve(arg); reservedName(client) {
			ss.reply(553, "Names starting with "+tempPrefix+" are the server's own (uploads in progress).")
			return false
		}
	}
	return cmd.run(ss, arg)
}

// hasControl reports whether s holds a C0 control byte or DEL. No name a
// client gives may hold one: a CR or LF in a name would end a reply or a
// listing's line early (a listing could carry a forged "226"), and a NUL
// cannot be in a Unix name. Listings leave out such names found on disk.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// appendPrintable appends line with each control byte (as hasControl
// sees them) written as \xNN: a reply never carries a raw one.
func appendPrintable(b []byte, line string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 0x20 || c == 0x7f {
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return b
}

// clip shortens s for a reply.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
