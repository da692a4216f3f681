package ftp

import (
	"fmt"
	"net"
	"net/netip"
	"os"

	"golang.org/x/sys/unix"
)

// Listen opens a TCP listener on addr ("127.0.0.1:2121", port 0 for any)
// whose listen(2) backlog is exactly backlog: Go's net.Listen always passes
// somaxconn. It makes the socket itself (SOCK_CLOEXEC, SO_REUSEADDR, bind,
// listen) and wraps it with net.FileListener. Linux cuts a backlog above
// net.core.somaxconn to it silently; Backlog reports the value in effect.
func Listen(addr string, backlog int) (net.Listener, error) {
	if backlog < 1 {
		return nil, fmt.Errorf("a backlog must be at least 1, got %d", backlog)
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: want IP:port (%v)", addr, err)
	}
	family := unix.AF_INET
	var sa unix.Sockaddr
	if ap.Addr().Is4() {
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	} else {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("SO_REUSEADDR: %w", err)
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("bind %s: %w", addr, err)
	}
	if err := unix.Listen(fd, backlog); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listen: %w", err)
	}
	f := os.NewFile(uintptr(fd), "ftp-listener")
	ln, err := net.FileListener(f) // dups the descriptor
	f.Close()
	if err != nil {
		return nil, err
	}
	return ln, nil
}

// Backlog is the backlog in effect for a listener Listen made with
// backlog: the kernel cuts it to net.core.somaxconn.
func Backlog(backlog int) int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		return backlog
	}
	var max int
	if _, err := fmt.Sscan(string(b), &max); err != nil || max <= 0 {
		return backlog
	}
	return min(backlog, max)
}
