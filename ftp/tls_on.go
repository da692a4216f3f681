//go:build !notls

package ftp

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"sync"
	"time"
)

// TLSConfig is Config.TLS's type: crypto/tls's Config. It is an alias so
// that the one build of this package without TLS (the notls tag:
// parlab-session-plain, a plain session's process, which starts in less
// time without crypto/tls; tls_off.go) can leave crypto/tls out.
type TLSConfig = tls.Config

// loadTLS makes cfg.TLS from CertFile and KeyFile (PEM) if cfg.TLS is not
// set and they are.
func loadTLS(cfg *Config) error {
	if cfg.CertFile == "" || cfg.TLS != nil {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return fmt.Errorf("TLS: %w", err)
	}
	cfg.TLS = tlsConfig(pair)
	return nil
}

// tlsConfig is the server side of explicit FTPS for one certificate.
func tlsConfig(cert tls.Certificate) *tls.Config {
	t := serverTLS()
	t.Certificates = []tls.Certificate{cert}
	return t
}

// serverTLS is the server side of explicit FTPS without its certificate.
func serverTLS() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12}
}

// childCert is t's one certificate as the processes model hands it to a
// session process: its chain (DER) and its key (PKCS #8).
func childCert(t *TLSConfig) (chain [][]byte, key []byte, err error) {
	if len(t.Certificates) != 1 {
		return nil, nil, fmt.Errorf("TLS: the processes model serves exactly one certificate, not %d", len(t.Certificates))
	}
	cert := t.Certificates[0]
	if key, err = x509.MarshalPKCS8PrivateKey(cert.PrivateKey); err != nil {
		return nil, nil, fmt.Errorf("TLS: the key cannot be handed to a session process: %w", err)
	}
	return cert.Certificate, key, nil
}

// childTLS is the configuration a session process makes of what childCert
// handed it. The key is parsed at the session's first handshake, not
// here: most sessions never ask for TLS, and an RSA key's parse (its
// checks and precomputation) is a cost a session's start need not pay
// (docs/experiments.md, 2026-12-06, late night). The parent parsed the
// same key before it handed it on, so the parse does not fail in
// practice; if it does, that handshake fails, and the session says so.
func childTLS(chain [][]byte, key []byte) (*TLSConfig, error) {
	cert := sync.OnceValues(func() (*tls.Certificate, error) {
		k, err := x509.ParsePKCS8PrivateKey(key)
		if err != nil {
			return nil, fmt.Errorf("TLS key: %w", err)
		}
		return &tls.Certificate{Certificate: chain, PrivateKey: k}, nil
	})
	t := serverTLS()
	t.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return cert() }
	return t, nil
}

// handshake is the server side of a TLS handshake on c (a control or a
// data connection) within timeout; the connection it returns carries
// everything after. On error c is left to the caller.
func handshake(c net.Conn, t *TLSConfig, timeout time.Duration) (net.Conn, error) {
	tc := tls.Server(c, t)
	tc.SetDeadline(time.Now().Add(timeout))
	if err := tc.Handshake(); err != nil {
		return nil, err
	}
	tc.SetDeadline(time.Time{})
	return tc, nil
}

// sessionTLS is t for one session's connections, control and data: its
// session tickets are sealed with a key of this session's own, so a data
// connection can resume only this control connection's TLS session, never
// another client's (vsftpd's require_ssl_reuse: a stranger who connects
// to the passive port first and handshakes gets nothing).
func sessionTLS(t *TLSConfig) *TLSConfig {
	c := t.Clone()
	var k [32]byte
	rand.Read(k[:])
	c.SetSessionTicketKeys([][32]byte{k})
	return c
}

// resumed reports whether c, from handshake, resumed a TLS session.
func resumed(c net.Conn) bool {
	tc, ok := c.(*tls.Conn)
	return ok && tc.ConnectionState().DidResume
}
