package ftp

import (
	"fmt"
	"io"
	"io/fs"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

type listFormat int

const (
	listLong  listFormat = iota // LIST: ls -l, as FileZilla, lftp, curl and jlaffaye/ftp parse it
	listNames                   // NLST: names only
	listFacts                   // MLSD: RFC 3659 facts
)

// listing is the lines for a directory (or one file) in format f. Entries
// are read with ReadDir and each stat'ed through the root, so a symlink is
// shown as what it points to only while that stays inside the jail.
func (ss *session) listing(arg string, f listFormat) ([]string, error) {
	// LIST's flags (-a, -l) as some clients send them: not a path
	if strings.HasPrefix(arg, "-") {
		if i := strings.IndexByte(arg, ' '); i >= 0 {
			arg = arg[i+1:]
		} else {
			arg = ""
		}
	}
	client, rel := ss.resolve(arg)
	root := ss.srv.root
	st, err := root.Stat(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", clip(client, 200), reason(err))
	}
	if !st.IsDir() {
		return []string{ss.entry(f, st.Name(), st)}, nil
	}
	d, err := root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", clip(client, 200), reason(err))
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %s", clip(client, 200), reason(err))
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	lines := make([]string, 0, len(ents))
	now := time.Now()
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".parlab-upload-") || hasControl(name) {
			continue // an upload in progress is not a file yet; see hasControl
		}
		// A directory opened in a Root lstats its entries as it reads
		// them (through its descriptor), so Info costs nothing; only a
		// symlink is stat'ed again, through the root.
		var info fs.FileInfo
		if e.Type()&fs.ModeSymlink == 0 {
			info, err = e.Info()
		} else {
			info, err = root.Stat(path.Join(rel, name))
		}
		if err != nil {
			continue // a symlink out of the jail, or gone: not shown
		}
		lines = append(lines, ss.entryAt(f, name, info, now))
	}
	return lines, nil
}

func (ss *session) entry(f listFormat, name string, st fs.FileInfo) string {
	return ss.entryAt(f, name, st, time.Now())
}

// entryAt is a listing's line for st as of now (ls -l shows the year for
// a file over six months old or more than an hour in the future).
func (ss *session) entryAt(f listFormat, name string, st fs.FileInfo, now time.Time) string {
	switch f {
	case listNames:
		return name
	case listFacts:
		return facts(st, ss.readOnly) + " " + name
	}
	b := make([]byte, 0, 48+len(name))
	if st.IsDir() {
		b = append(b, "drwxr-xr-x 1 ftp ftp "...)
	} else {
		b = append(b, "-rw-r--r-- 1 ftp ftp "...)
	}
	var size [20]byte
	digits := strconv.AppendInt(size[:0], st.Size(), 10)
	for range 12 - len(digits) {
		b = append(b, ' ')
	}
	b = append(append(b, digits...), ' ')
	t := st.ModTime()
	if now.Sub(t) > 180*24*time.Hour || t.After(now.Add(time.Hour)) {
		b = t.AppendFormat(b, "Jan _2  2006")
	} else {
		b = t.AppendFormat(b, "Jan _2 15:04")
	}
	return string(append(append(b, ' '), name...))
}

// facts are an MLSD/MLST entry's facts (RFC 3659 7.5).
func facts(st fs.FileInfo, readOnly bool) string {
	typ, perm := "file", "r"
	if !readOnly {
		perm = "radfw"
	}
	if st.IsDir() {
		typ, perm = "dir", "el"
		if !readOnly {
			perm = "elcmpdf"
		}
	}
	b := make([]byte, 0, 64)
	b = append(append(append(b, "type="...), typ...), ";size="...)
	b = strconv.AppendInt(b, st.Size(), 10)
	b = appendStamp(append(b, ";modify="...), st.ModTime().UTC())
	return string(append(append(append(b, ";perm="...), perm...), ';'))
}

// appendStamp appends t as YYYYMMDDHHMMSS (RFC 3659's time-val without a
// fraction), as t.AppendFormat with "20060102150405" does, but without
// parsing the layout: MLSD writes one for every entry.
func appendStamp(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, "20060102150405")
	}
	h, mi, s := t.Clock()
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	for _, v := range [...]int{int(mo), d, h, mi, s} {
		b = append(b, byte('0'+v/10), byte('0'+v%10))
	}
	return b
}

func (ss *session) cmdList(arg string, f listFormat) bool {
	if ss.busy() {
		return false
	}
	lines, err := ss.listing(arg, f)
	if err != nil {
		ss.reply(550, err.Error())
		return false
	}
	ss.startTransfer("the listing", func(data net.Conn) (int64, error) {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
		n, err := io.WriteString(data, b.String())
		ss.bytesOut.Add(int64(n))
		return int64(n), err
	})
	return false
}

func (ss *session) cmdMlst(arg string) bool {
	client, st, err := ss.fileInfo(arg)
	if err != nil {
		ss.reply(550, err.Error())
		return false
	}
	ss.reply(250, "Listing "+clip(client, 200)+"\n "+facts(st, ss.readOnly)+" "+client+"\nEnd")
	return false
}
