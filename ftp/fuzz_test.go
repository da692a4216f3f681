package ftp

import (
	"bufio"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

var replyLine = regexp.MustCompile(`^([1-5][0-9][0-9][ -]| )`)

// FuzzSession sends arbitrary command lines, after a login, to a real
// session and checks that every line that comes back is a well-formed reply
// line (a code and a space or hyphen, or a multi-line reply's continuation)
// with no raw control byte, and that the session ends when it should: the
// server never hangs on them nor crashes.
func FuzzSession(f *testing.F) {
	for _, s := range []string{"PWD", "CWD ..\nPWD", "LIST -la", "RETR ../../etc/passwd", "PORT 1,2,3,4,5,6",
		"EPRT |2|::1|5000|", "REST 99999999999999999999", "TYPE L 8", "STAT\nSTAT /", "RNFR hello.txt\nRNTO /sub/x",
		"MKD a\nRMD a", "OPTS UTF8 ON\nFEAT", "\x00\xff USER", "EPSV ALL\nPASV", "MLST", "SIZE sub"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		_, addr, _ := testServer(t, Goroutines, func(c *Config) {
			c.DataTimeout, c.Idle, c.LoginDelay = 200*time.Millisecond, 2*time.Second, time.Millisecond
		})
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		lines := []string{"USER alice", "PASS secret"}
		for _, l := range strings.Split(script, "\n") {
			lines = append(lines, strings.TrimRight(l, "\r"))
		}
		lines = append(lines, "QUIT")
		go func() {
			for _, l := range lines {
				if _, err := c.Write([]byte(l + "\r\n")); err != nil {
					return
				}
			}
		}()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatalf("the session hung on %q", script)
				}
				return // closed: after QUIT, 421 or 500
			}
			if !replyLine.MatchString(line) || hasControl(strings.TrimSuffix(line, "\r\n")) {
				t.Fatalf("a malformed reply line %q for %q", line, script)
			}
		}
	})
}
