package ftp

import (
	"os"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"
)

// session is one client's whole session, as the load lab's simplest script:
// connect, anonymous login, LIST, QUIT.
func benchSession(b *testing.B, addr string) {
	c, err := ftp.Dial(addr, ftp.DialWithTimeout(10*time.Second))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Login("anonymous", "bench@"); err != nil {
		b.Fatal(err)
	}
	ents, err := c.List("/")
	if err != nil || len(ents) == 0 {
		b.Fatalf("LIST: %v, %v", ents, err)
	}
	if err := c.Quit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSessions is sessions by one client, one after another, per
// model: sessions/s is 1/(ns/op).
func BenchmarkSessions(b *testing.B) {
	for _, m := range models {
		b.Run(m.String(), func(b *testing.B) {
			_, addr, _ := benchServer(b, m)
			for b.Loop() {
				benchSession(b, addr)
			}
		})
	}
}

// BenchmarkSessionsAt is the same against a server elsewhere on this
// machine (PARLAB_FTP_ADDR, e.g. vsftpd on 127.0.0.1:2121), to compare.
func BenchmarkSessionsAt(b *testing.B) {
	addr := os.Getenv("PARLAB_FTP_ADDR")
	if addr == "" {
		b.Skip("PARLAB_FTP_ADDR names no server")
	}
	for b.Loop() {
		benchSession(b, addr)
	}
}
