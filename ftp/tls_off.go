//go:build notls

package ftp

import (
	"errors"
	"net"
	"time"
)

// TLSConfig, in this build without TLS (the notls tag, which only
// parlab-session-plain is built with), is a type no one can fill: a
// server here offers no AUTH TLS, and the processes model starts this
// build only for a server without TLS (tls_on.go has the real one).
type TLSConfig struct{ _ [0]func() }

// errNoTLS is what each TLS step says in this build.
var errNoTLS = errors.New("TLS: this binary was built without it (the notls tag)")

func loadTLS(cfg *Config) error {
	if cfg.CertFile != "" || cfg.TLS != nil {
		return errNoTLS
	}
	return nil
}

func childCert(*TLSConfig) ([][]byte, []byte, error) { return nil, nil, errNoTLS }

func childTLS([][]byte, []byte) (*TLSConfig, error) { return nil, errNoTLS }

func handshake(net.Conn, *TLSConfig, time.Duration) (net.Conn, error) { return nil, errNoTLS }

func sessionTLS(t *TLSConfig) *TLSConfig { return t }

func resumed(net.Conn) bool { return false }
