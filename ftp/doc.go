// Package ftp is parlab's FTP server (RFC 959 with 1123, 2389, 2428, 3659
// and 2577): one protocol engine, and concurrency models that only decide
// who runs a session and when, so a load test compares architectures with
// everything else equal.
//
// # The engine
//
// A session reads command lines (CRLF or LF, at most MaxLine bytes; a longer
// one gets 500 and the session is closed), answers each with one reply
// (multi-line as RFC 959 4.2 says), and keeps the session's state: user,
// working directory, type (A or I), restart offset, rename source, and at
// most one data connection: a passive listener (PASV, EPSV, inside the
// configured port range, released when the session ends) or an active
// address (PORT, EPRT). Transfers stream between the file and the data
// connection (io.Copy, so the kernel's sendfile and splice paths are used:
// a transfer's memory does not grow with the file) in a goroutine of their
// own, so the control connection still answers ABOR, STAT and NOOP while
// one runs.
//
// # Safe by default
//
//   - The jail: every path a client names is cleaned as an absolute path
//     under "/" (path.Clean("/" + cwd + "/" + arg)) and opened through an
//     os.Root of the server's root, which refuses any component that leaves
//     it, follows symlinks only while they stay inside and refuses absolute
//     ones. Replies show only the client's paths.
//   - Login is required. Users come from a users file of bcrypt hashes
//     (Users, "parlab ftp passwd" makes a line); Anonymous allows read-only
//     "anonymous" and "ftp". A failed login is answered after LoginDelay;
//     the third failure gets 421 and the session is closed (RFC 2577).
//   - Before login only USER, PASS, QUIT, FEAT, HELP, AUTH, PBSZ and PROT
//     are accepted; anything else gets 530.
//   - PORT and EPRT may name only the control connection's own IP and a port
//     of 1024 or more, else 504 (no FTP bounce); a passive data connection
//     from another IP is closed and counted.
//   - Every limit answers: over MaxConns or MaxPerIP a client gets 421 and
//     is closed; an idle control connection gets 421 after Idle (never while
//     a transfer runs); a data connection that does not come, or stalls, is
//     dropped after DataTimeout with 425 or 426. Unknown commands get 500,
//     known but unsupported ones 502.
//   - STOR and APPE receive into a temporary file beside the target, so an
//     aborted or dropped upload leaves no partial file: STOR renames it over
//     the target, APPE appends it whole under a flock on the target, so
//     concurrent appends all land (see cmdStore).
//
// # Models
//
// Single serves one session at a time (the next connection is accepted when
// it ends); Goroutines one goroutine a connection (thread-per-client); Batch
// the reference's OpenMP model (accept every connection already waiting,
// serve that batch with N workers, wait for all of it, repeat); Pool N
// long-lived workers fed by a bounded queue (full: 421); Processes one child
// process a connection, vsftpd's model (this binary started in a hidden
// session mode registered with internal/child, the connection its fd 3; see
// processes.go). Every model answers a connection within a second, if only
// with 120 or 421.
package ftp
