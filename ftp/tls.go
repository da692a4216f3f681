package ftp

import (
	"bufio"
	"strings"
)

// startTLS is AUTH TLS (RFC 4217): 234, then the TLS handshake on the
// control connection, which carries everything after it. PROT P then puts
// the data connections under TLS too.
func (ss *session) startTLS(arg string) bool {
	if m := strings.ToUpper(strings.TrimSpace(arg)); m != "TLS" && m != "TLS-C" && m != "SSL" {
		ss.reply(504, "Only AUTH TLS is supported.")
		return false
	}
	if ss.tls {
		ss.reply(503, "TLS is already on.")
		return false
	}
	if ss.loggedIn || ss.user != "" { // RFC 2228: a login made in the clear is not made secure after
		ss.reply(503, "AUTH TLS comes before USER: a login in the clear stays in the clear. Reconnect and send AUTH TLS first.")
		return false
	}
	if ss.reply(234, "AUTH TLS OK: start the handshake.") != nil {
		return true
	}
	ss.tlsCfg = sessionTLS(ss.srv.cfg.TLS)
	tc, err := handshake(ss.c, ss.tlsCfg, ss.srv.cfg.DataTimeout)
	if err != nil {
		ss.setResult("TLS handshake failed")
		return true // nothing can be said: the channel is neither clear nor secure
	}
	ss.wmu.Lock()
	ss.c, ss.r, ss.tls = tc, bufio.NewReaderSize(tc, ss.srv.cfg.MaxLine+2), true
	ss.wmu.Unlock()
	return false
}

func (ss *session) cmdPbsz(arg string) bool {
	if !ss.tls {
		ss.reply(503, "PBSZ comes after AUTH TLS.")
		return false
	}
	ss.reply(200, "PBSZ=0")
	return false
}

func (ss *session) cmdProt(arg string) bool {
	if !ss.tls {
		ss.reply(503, "PROT comes after AUTH TLS.")
		return false
	}
	switch strings.ToUpper(strings.TrimSpace(arg)) {
	case "P":
		ss.protP = true
		ss.reply(200, "Data connections are protected (TLS).")
	case "C":
		ss.protP = false
		ss.reply(200, "Data connections are clear.")
	default:
		ss.reply(536, "Only PROT P and C are supported.")
	}
	return false
}

// plainRefused reports whether this server refuses the session's login
// (user) in the clear: TLS is configured, not AllowPlain, and the user is
// not anonymous (vsftpd's force_local_logins_ssl; anonymous data is
// public, as vsftpd's allow_anon_ssl=NO has it).
func (ss *session) plainRefused(user string) bool {
	cfg := &ss.srv.cfg
	return cfg.TLS != nil && !cfg.AllowPlain && !ss.tls && !(cfg.Anonymous && anonymousNames[strings.ToLower(user)])
}

// clearDataRefused reports whether a data connection must be refused for
// want of PROT P: a TLS login (not anonymous) on a server that requires
// TLS (vsftpd's force_local_data_ssl).
func (ss *session) clearDataRefused() bool {
	cfg := &ss.srv.cfg
	return cfg.TLS != nil && !cfg.AllowPlain && ss.tls && !ss.protP && !ss.readOnly
}
