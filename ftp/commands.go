package ftp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func init() {
	commands = map[string]command{
		"USER": {run: (*session).cmdUser, noLogin: true},
		"PASS": {run: (*session).cmdPass, noLogin: true},
		"QUIT": {run: (*session).cmdQuit, noLogin: true},
		"FEAT": {run: (*session).cmdFeat, noLogin: true},
		"HELP": {run: (*session).cmdHelp, noLogin: true},
		"AUTH": {run: (*session).cmdAuth, noLogin: true},
		"PBSZ": {run: (*session).cmdPbsz, noLogin: true},
		"PROT": {run: (*session).cmdProt, noLogin: true},
		"NOOP": {run: simple(200, "OK.")},
		"SYST": {run: simple(215, "UNIX Type: L8")},
		"ALLO": {run: simple(202, "No storage allocation is needed.")},
		"OPTS": {run: (*session).cmdOpts},
		"PWD":  {run: (*session).cmdPwd},
		"XPWD": {run: (*session).cmdPwd},
		"CWD":  {run: (*session).cmdCwd, path: true},
		"XCWD": {run: (*session).cmdCwd, path: true},
		"CDUP": {run: func(ss *session, _ string) bool { return ss.cmdCwd("..") }},
		"XCUP": {run: func(ss *session, _ string) bool { return ss.cmdCwd("..") }},
		"TYPE": {run: (*session).cmdType},
		"MODE": {run: (*session).cmdMode},
		"STRU": {run: (*session).cmdStru},
		"STAT": {run: (*session).cmdStat, path: true},
		"SIZE": {run: (*session).cmdSize, path: true},
		"MDTM": {run: (*session).cmdMdtm, path: true},
		"REST": {run: (*session).cmdRest},
		"DELE": {run: (*session).cmdDele, write: true, path: true},
		"MKD":  {run: (*session).cmdMkd, write: true, path: true},
		"XMKD": {run: (*session).cmdMkd, write: true, path: true},
		"RMD":  {run: (*session).cmdRmd, write: true, path: true},
		"XRMD": {run: (*session).cmdRmd, write: true, path: true},
		"RNFR": {run: (*session).cmdRnfr, write: true, path: true},
		"RNTO": {run: (*session).cmdRnto, write: true, path: true},
		"PASV": {run: (*session).cmdPasv},
		"EPSV": {run: (*session).cmdEpsv},
		"PORT": {run: (*session).cmdPort},
		"EPRT": {run: (*session).cmdEprt},
		"RETR": {run: (*session).cmdRetr, path: true},
		"STOR": {run: func(ss *session, a string) bool { return ss.cmdStore(a, false) }, write: true, path: true},
		"APPE": {run: func(ss *session, a string) bool { return ss.cmdStore(a, true) }, write: true, path: true},
		"LIST": {run: func(ss *session, a string) bool { return ss.cmdList(a, listLong) }, path: true},
		"NLST": {run: func(ss *session, a string) bool { return ss.cmdList(a, listNames) }, path: true},
		"MLSD": {run: func(ss *session, a string) bool { return ss.cmdList(a, listFacts) }, path: true},
		"MLST": {run: (*session).cmdMlst, path: true},
		"ABOR": {run: (*session).cmdAbor},
	}
}

func simple(code int, text string) func(*session, string) bool {
	return func(ss *session, _ string) bool { ss.reply(code, text); return false }
}

// anonymousNames may log in when Config.Anonymous is set, read-only.
var anonymousNames = map[string]bool{"anonymous": true, "ftp": true}

func (ss *session) cmdUser(arg string) bool {
	if ss.loggedIn {
		ss.reply(530, "Already logged in; a session keeps its user.")
		return false
	}
	if ss.plainRefused(arg) {
		ss.reply(530, "This server takes logins over TLS only: send AUTH TLS first.")
		return false
	}
	ss.user = arg
	if ss.srv.cfg.Anonymous && anonymousNames[strings.ToLower(arg)] {
		ss.reply(331, "Anonymous login: send any password.")
		return false
	}
	ss.reply(331, "Password required for "+clip(arg, 64)+".")
	return false
}

// dummyHash is the hash an unknown user's password is compared against,
// so that a wrong user name takes as long as a wrong password: made once,
// by New, at the highest cost among the users' hashes (a cheaper one would
// answer an unknown name sooner). A session process gets its parent's:
// making one in each child would add its time to every login of an
// unknown user. Without users it is nil and no check is made: every name
// is unknown then, so there is nothing for a time to tell, and a bcrypt
// hash at the default cost is not made for nothing at each start.
func dummyHash(users map[string][]byte) ([]byte, error) {
	if len(users) == 0 {
		return nil, nil
	}
	cost := 0
	for _, h := range users {
		if c, err := bcrypt.Cost(h); err == nil && c > cost {
			cost = c
		}
	}
	if cost == 0 { // no valid hash among them: config.go refuses such users
		cost = bcrypt.DefaultCost
	}
	h, err := bcrypt.GenerateFromPassword([]byte("parlab-no-such-user"), cost)
	if err != nil {
		return nil, fmt.Errorf("the dummy password hash: %w", err)
	}
	return h, nil
}

func (ss *session) cmdPass(arg string) bool {
	switch {
	case ss.loggedIn:
		ss.reply(503, "Already logged in.")
		return false
	case ss.user == "":
		ss.reply(503, "Send USER first.")
		return false
	}
	cfg := &ss.srv.cfg
	ok := false
	if cfg.Anonymous && anonymousNames[strings.ToLower(ss.user)] {
		ok, ss.readOnly = true, true
	} else if h, known, dummy := ss.srv.users.lookup(ss.user); known {
		ok = bcrypt.CompareHashAndPassword(h, []byte(arg)) == nil
	} else if dummy != nil {
		bcrypt.CompareHashAndPassword(dummy, []byte(arg)) // as long as a known user's check
	}
	if ok {
		ss.loggedIn = true
		ss.reply(230, "Logged in.")
		return false
	}
	// RFC 2577: delay a failure, and close after a few
	ss.failures++
	time.Sleep(cfg.LoginDelay)
	ss.user = ""
	if ss.failures >= 3 {
		ss.setResult("login failed 3 times")
		ss.reply(421, "Login failed 3 times; closing.")
		return true
	}
	ss.reply(530, "Login incorrect.")
	return false
}

func (ss *session) cmdQuit(string) bool {
	ss.setResult("ok")
	ss.reply(221, "Goodbye.")
	return true
}

func (ss *session) features() []string {
	f := []string{"EPRT", "EPSV", "MDTM", "MLST type*;size*;modify*;perm*;", "PASV", "REST STREAM", "SIZE", "TVFS", "UTF8"}
	if ss.srv.cfg.TLS != nil {
		f = append(f, "AUTH TLS", "PBSZ", "PROT")
	}
	sort.Strings(f)
	return f
}

func (ss *session) cmdFeat(string) bool {
	var b strings.Builder
	b.WriteString("Features:\n")
	for _, f := range ss.features() {
		b.WriteString(" " + f + "\n")
	}
	b.WriteString("End")
	ss.reply(211, b.String())
	return false
}

func (ss *session) cmdHelp(string) bool {
	var verbs []string
	for v := range commands {
		verbs = append(verbs, v)
	}
	sort.Strings(verbs)
	var b strings.Builder
	b.WriteString("The commands this server knows:\n")
	for i := 0; i < len(verbs); i += 10 {
		b.WriteString(" " + strings.Join(verbs[i:min(i+10, len(verbs))], " ") + "\n")
	}
	b.WriteString("Help OK.")
	ss.reply(214, b.String())
	return false
}

func (ss *session) cmdAuth(arg string) bool {
	if ss.srv.cfg.TLS == nil {
		ss.reply(502, "TLS is not configured on this server.")
		return false
	}
	return ss.startTLS(arg)
}

func (ss *session) cmdOpts(arg string) bool {
	opt, _, _ := strings.Cut(strings.ToUpper(arg), " ")
	switch opt {
	case "UTF8", "UTF-8":
		ss.reply(200, "UTF-8 is always on.")
	case "MLST":
		ss.reply(200, "MLST facts: type;size;modify;perm;")
	default:
		ss.reply(501, "Unknown option.")
	}
	return false
}

// quote is a path in a 257 reply: double quotes doubled (RFC 959).
func quote(p string) string { return `"` + strings.ReplaceAll(p, `"`, `""`) + `"` }

func (ss *session) cmdPwd(string) bool {
	ss.reply(257, quote(ss.cwd)+" is the current directory.")
	return false
}

func (ss *session) cmdCwd(arg string) bool {
	client, rel := ss.resolve(arg)
	st, err := ss.srv.root.Stat(rel)
	if err != nil || !st.IsDir() {
		ss.reply(550, clip(client, 200)+": not a directory you can enter.")
		return false
	}
	ss.cwd = client
	ss.reply(250, "Directory is now "+quote(client)+".")
	return false
}

func (ss *session) cmdType(arg string) bool {
	switch strings.ToUpper(strings.TrimSpace(arg)) {
	case "I", "L 8":
		ss.binary = true
		ss.reply(200, "Type set to I (binary).")
	case "A", "A N":
		ss.binary = false
		ss.reply(200, "Type set to A (ASCII: line ends as CRLF on the wire).")
	default:
		ss.reply(504, "Only TYPE A and I are supported.")
	}
	return false
}

func (ss *session) cmdMode(arg string) bool {
	if strings.EqualFold(strings.TrimSpace(arg), "S") {
		ss.reply(200, "Mode S (stream).")
	} else {
		ss.reply(504, "Only MODE S is supported.")
	}
	return false
}

func (ss *session) cmdStru(arg string) bool {
	if strings.EqualFold(strings.TrimSpace(arg), "F") {
		ss.reply(200, "Structure F (file).")
	} else {
		ss.reply(504, "Only STRU F is supported.")
	}
	return false
}

// cmdStat without an argument is the server's and the session's status;
// with one, a listing over the control connection.
func (ss *session) cmdStat(arg string) bool {
	if arg == "" {
		st := ss.srv.Stats()
		typ := "A (ASCII)"
		if ss.binary {
			typ = "I (binary)"
		}
		data := "none"
		ss.dmu.Lock()
		switch {
		case ss.xfer != nil:
			data = "a transfer is running"
		case ss.pasv != nil:
			data = "passive, listening on port " + strconv.Itoa(ss.pasvPort)
		case ss.active != "":
			data = "active, to " + ss.active
		}
		ss.dmu.Unlock()
		ss.reply(211, fmt.Sprintf("parlab FTP server status:\nmodel %s; sessions active %d, queued %d, served %d\nuser %s; type %s; mode S; structure F\ndata connection: %s\nEnd of status.",
			st.Model, st.Active, st.Queued, st.Served, clip(ss.user, 64), typ, data))
		return false
	}
	lines, err := ss.listing(arg, listLong)
	if err != nil {
		ss.reply(550, err.Error())
		return false
	}
	ss.reply(213, "Status of "+clip(arg, 200)+":\n"+strings.Join(lines, "\n")+"\nEnd of status.")
	return false
}

// fileInfo stats a client path through the root.
func (ss *session) fileInfo(arg string) (string, fs.FileInfo, error) {
	client, rel := ss.resolve(arg)
	st, err := ss.srv.root.Stat(rel)
	if err != nil {
		return client, nil, fmt.Errorf("%s: %s", clip(client, 200), reason(err))
	}
	return client, st, nil
}

// reason is an error's cause in words that show no real path.
func reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrExist):
		return "already exists"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return "not reachable"
	}
	return "failed"
}

func (ss *session) cmdSize(arg string) bool {
	_, st, err := ss.fileInfo(arg)
	switch {
	case err != nil:
		ss.reply(550, err.Error())
	case !st.Mode().IsRegular():
		ss.reply(550, "Not a plain file.")
	default:
		ss.reply(213, strconv.FormatInt(st.Size(), 10))
	}
	return false
}

func (ss *session) cmdMdtm(arg string) bool {
	_, st, err := ss.fileInfo(arg)
	if err != nil {
		ss.reply(550, err.Error())
		return false
	}
	ss.reply(213, st.ModTime().UTC().Format("20060102150405"))
	return false
}

func (ss *session) cmdRest(arg string) bool {
	n, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
	if err != nil || n < 0 {
		ss.reply(501, "REST wants a byte offset.")
		return false
	}
	ss.rest = n
	ss.reply(350, fmt.Sprintf("Restarting at %d. Send RETR or STOR.", n))
	return false
}

func (ss *session) cmdDele(arg string) bool {
	client, rel := ss.resolve(arg)
	st, err := ss.srv.root.Lstat(rel)
	if err == nil && st.IsDir() {
		ss.reply(550, clip(client, 200)+": a directory (use RMD).")
		return false
	}
	if err == nil {
		err = ss.srv.root.Remove(rel)
	}
	if err != nil {
		ss.reply(550, clip(client, 200)+": "+reason(err))
		return false
	}
	ss.reply(250, "Deleted "+clip(client, 200)+".")
	return false
}

func (ss *session) cmdMkd(arg string) bool {
	client, rel := ss.resolve(arg)
	if err := ss.srv.root.Mkdir(rel, 0o755); err != nil {
		ss.reply(550, clip(client, 200)+": "+reason(err))
		return false
	}
	ss.reply(257, quote(client)+" created.")
	return false
}

func (ss *session) cmdRmd(arg string) bool {
	client, rel := ss.resolve(arg)
	st, err := ss.srv.root.Lstat(rel)
	if err == nil && !st.IsDir() {
		ss.reply(550, clip(client, 200)+": not a directory.")
		return false
	}
	if err == nil && rel != "." {
		err = ss.srv.root.Remove(rel)
	} else if rel == "." {
		err = fs.ErrPermission
	}
	if err != nil {
		ss.reply(550, clip(client, 200)+": "+reason(err))
		return false
	}
	ss.reply(250, "Removed "+clip(client, 200)+".")
	return false
}

func (ss *session) cmdRnfr(arg string) bool {
	client, rel := ss.resolve(arg)
	if _, err := ss.srv.root.Lstat(rel); err != nil || rel == "." {
		ss.reply(550, clip(client, 200)+": nothing to rename.")
		return false
	}
	ss.renameFrom = rel
	ss.reply(350, "Ready for RNTO.")
	return false
}

func (ss *session) cmdRnto(arg string) bool {
	from := ss.renameFrom
	ss.renameFrom = ""
	if from == "" {
		ss.reply(503, "Send RNFR first.")
		return false
	}
	client, rel := ss.resolve(arg)
	if err := ss.srv.root.Rename(from, rel); err != nil {
		ss.reply(550, clip(client, 200)+": "+reason(err))
		return false
	}
	ss.reply(250, "Renamed to "+clip(client, 200)+".")
	return false
}
