package ftp

import (
	"fmt"
	"io"
	"io/fs"
	"net"
	"path"
	"sort"
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
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var lines []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".parlab-upload-") {
			continue // an upload in progress is not a file yet
		}
		info, err := root.Stat(path.Join(rel, name))
		if err != nil {
			continue // a symlink out of the jail, or gone: not shown
		}
		lines = append(lines, ss.entry(f, name, info))
	}
	return lines, nil
}

func (ss *session) entry(f listFormat, name string, st fs.FileInfo) string {
	switch f {
	case listNames:
		return name
	case listFacts:
		return facts(st, ss.readOnly) + " " + name
	}
	mode := "-rw-r--r--"
	if st.IsDir() {
		mode = "drwxr-xr-x"
	}
	t := st.ModTime()
	stamp := t.Format("Jan _2 15:04")
	if time.Since(t) > 180*24*time.Hour || t.After(time.Now().Add(time.Hour)) {
		stamp = t.Format("Jan _2  2006")
	}
	return fmt.Sprintf("%s 1 ftp ftp %12d %s %s", mode, st.Size(), stamp, name)
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
	return fmt.Sprintf("type=%s;size=%d;modify=%s;perm=%s;", typ, st.Size(), st.ModTime().UTC().Format("20060102150405"), perm)
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
			b.WriteString(l + "\r\n")
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
