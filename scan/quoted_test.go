package scan

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// refQuoteBatch is quoteBatch the slow, obvious way: row by row, field by
// field, by the rule quoteBatch states.
func refQuoteBatch(src []byte, sep byte, final bool) (ok int, out []byte) {
	for i := 0; i < len(src); {
		var row []byte
		j, simple, complete := i, true, false
	fields:
		for first := true; ; first = false {
			if j < len(src) && src[j] == '"' {
				k := bytes.IndexByte(src[j+1:], '"')
				if k < 0 {
					simple = false
					break
				}
				content := src[j+1 : j+1+k]
				if bytes.IndexByte(content, sep) >= 0 || bytes.IndexByte(content, '\n') >= 0 ||
					bytes.HasSuffix(content, []byte{'\r'}) || first && k == 0 {
					simple = false
					break
				}
				row = append(row, content...)
				switch j += k + 2; {
				case j == len(src):
					complete = final
					break fields
				case src[j] == sep:
					row = append(row, sep)
					j++
				case src[j] == '\n':
					row = append(row, '\n')
					j, complete = j+1, true
					break fields
				case src[j] == '\r' && j+1 < len(src) && src[j+1] == '\n':
					row = append(row, '\r', '\n')
					j, complete = j+2, true
					break fields
				default:
					simple = false
					break fields
				}
				continue
			}
			k := j
			for k < len(src) && src[k] != sep && src[k] != '\n' {
				k++
			}
			if bytes.IndexByte(src[j:k], '"') >= 0 {
				simple = false
				break
			}
			row = append(row, src[j:k]...)
			if k == len(src) {
				j, complete = k, final
				break
			}
			row = append(row, src[k])
			if j = k + 1; src[k] == '\n' {
				complete = true
				break
			}
		}
		if !simple || !complete {
			break
		}
		out = append(out, row...)
		ok, i = j, j
	}
	return ok, out
}

// checkQuoteBatch compares quoteBatch, portable and (where the CPU has it)
// vector, with the reference on src.
func checkQuoteBatch(t testing.TB, src []byte, sep byte, final bool) {
	t.Helper()
	wantOK, want := refQuoteBatch(src, sep, final)
	// A row a batch takes is one rowSimple calls simple (so the full
	// parser's count of rows that are not is the same on every path).
	for _, row := range bytes.SplitAfter(src[:wantOK], []byte{'\n'}) {
		if len(row) > 0 && !rowSimple(row, sep) {
			t.Fatalf("rowSimple(%q, %q) is false, but a batch takes it", row, sep)
		}
	}
	for _, d := range dequoters() {
		vector := d != dequotePortable
		dst := make([]byte, len(src)+64)
		ok, n, _ := quoteBatchWith(d, dst, src, sep, final)
		if vector && !final && ok < wantOK {
			// The vector way leaves the rows in the last bytes to the
			// next batch: its rows must be the reference's first ones.
			wantOK2, want2 := refQuoteBatch(src[:ok], sep, true)
			if ok != wantOK2 || !bytes.Equal(dst[:n], want2) || !bytes.HasPrefix(want, want2) {
				t.Fatalf("vector %d %q (sep %q): took %d bytes %q, a prefix of the reference's %d %q?", d, src, sep, ok, dst[:n], wantOK, want)
			}
			continue
		}
		if ok != wantOK || !bytes.Equal(dst[:n], want) {
			t.Fatalf("dequote %d, final %v, %q (sep %q): took %d bytes as %q, the reference %d as %q", d, final, src, sep, ok, dst[:n], wantOK, want)
		}
	}
}

func TestQuoteBatchCases(t *testing.T) {
	for _, c := range []string{
		"", "\n", "a,b\n", `"a",b` + "\n", `"a","b"` + "\r\n", `"a,b",c` + "\n", `"a""b",c` + "\n",
		`a"b,c` + "\n", `"a"b,c` + "\n", `"a` + "\n" + `b",c` + "\n", `"a` + "\r" + `",c` + "\n",
		`"",x` + "\n", `x,""` + "\n", `""` + "\n", `""` + "\r\n", `""`, `"a"` + "\r", `"a"` + "\rx\n",
		`"a"`, `"a`, `a,"b"`, "a,b", "x\n\"y\"\n\"\",z\n", `"a\rb",c` + "\n", "\"a\"\r\n\"b\"\n",
		`"a"` + "\rb,c\n", `"a"` + "\r\r\n", "\"\"\n", `"a"b` + "\n",
	} {
		for _, sep := range []byte{',', '\t', ';', '|'} {
			s := []byte(c)
			if sep != ',' {
				s = swapSep(s, sep)
			}
			for _, final := range []bool{false, true} {
				checkQuoteBatch(t, s, sep, final)
				// the same after rows that move it across a block's end,
				// and before more rows (which a batch must not take if
				// it is not simple)
				tail := bytes.Repeat([]byte("\"t\",u\n"), 40)
				for pad := 1; pad < 70; pad++ {
					lead := bytes.Repeat([]byte("\"ab\","), pad/5)
					lead = append(lead, bytes.Repeat([]byte{'x'}, pad%5)...)
					lead = append(lead, '\n')
					all := append(append(lead, s...), '\n')
					all = append(all, tail...)
					if sep != ',' {
						lead, all = swapSep(lead, sep), swapSep(all, sep)
					}
					checkQuoteBatch(t, append(lead, s...), sep, final)
					checkQuoteBatch(t, all, sep, final)
				}
			}
		}
	}
}

// TestQuoteBatchRandom puts every kind of field, quote, CR and delimiter
// at every place of 64-byte blocks.
func TestQuoteBatchRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// the simple pieces first (a row of them is simple unless it
	// starts `""`), then the others
	pieces := []string{"a", "bc", "", `"q"`, `""`, `"c` + "\r" + `r"`, `"x,y"`, `"l` + "\n" + `f"`, `"d""q"`, `"cr` + "\r" + `"`,
		`b"q`, "\r", "\r\n", `"`, "\n", `"q"x`, `"q"` + "\r" + "x", `"q"` + "\r"}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		var b []byte
		simple := rng.IntN(2) == 0 // only simple rows, which a batch must take to the end
		for len(b) < 200+rng.IntN(400) {
			for f := range 1 + rng.IntN(5) {
				if f > 0 {
					b = append(b, ',')
				}
				k := rng.IntN(6)
				if !simple && rng.IntN(20) == 0 {
					k = rng.IntN(len(pieces)) // now and then one of any kind
				}
				b = append(b, pieces[k]...)
			}
			if rng.IntN(4) == 0 {
				b = append(b, '\r')
			}
			b = append(b, '\n')
		}
		if rng.IntN(3) == 0 {
			b = b[:rng.IntN(len(b)+1)]
		}
		for _, sep := range []byte{',', '\t'} {
			s := b
			if sep != ',' {
				s = swapSep(b, sep)
			}
			checkQuoteBatch(t, s, sep, rng.IntN(2) == 0)
		}
	}
}

// masksSWAR, a word at a time, gives the masks masksBytes gives a byte at a
// time, for blocks of the bytes that matter and their neighbours (0x80 and
// 0xff and 0 beside them, where a borrow could cross a byte).
func TestMasksSWAR(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{'"', ',', '\t', ';', '|', '\n', '\r', 'a', 0x80, 0xff, 0, 0x21, 0x23, 0x0b, 0x0c}
	b := make([]byte, 66)
	for range 20000 {
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		for _, sep := range []byte{',', '\t', ';', '|'} {
			q, d, n, c, nd, ncl, nq := masksSWAR(b, sep)
			got := [7]uint64{q, d, n, c, nd, ncl, nq}
			q, d, n, c, nd, ncl, nq = masksBytes(b, 0, sep, false)
			if want := [7]uint64{q, d, n, c, nd, ncl, nq}; got != want {
				t.Fatalf("%q (sep %q): SWAR %x, bytes %x", b, sep, got, want)
			}
		}
	}
}

func FuzzQuoteBatch(f *testing.F) {
	f.Add([]byte("\"a\",b\n\"c,d\",e\n"), uint8(0), true)
	f.Add([]byte("\"\"\r\n\"a\"\r\n"), uint8(1), false)
	f.Fuzz(func(t *testing.T, src []byte, sepi uint8, final bool) {
		sep := []byte{',', '\t', ';', '|'}[sepi%4]
		checkQuoteBatch(t, src, sep, final)
	})
}

// TestDequoteLayout checks the field offsets dequoteAVX512 uses
// (quoted_amd64.s).
func TestDequoteLayout(t *testing.T) {
	var s dequote
	got := fmt.Sprint(unsafe.Offsetof(s.inq), unsafe.Offsetof(s.prevD), unsafe.Offsetof(s.prevN), unsafe.Offsetof(s.prevC),
		unsafe.Offsetof(s.lastNL), unsafe.Offsetof(s.outNL), unsafe.Offsetof(s.out), unsafe.Offsetof(s.quotes), unsafe.Offsetof(s.stop))
	if want := "0 8 16 24 32 40 48 56 64"; got != want {
		t.Errorf("dequote's offsets %s, quoted_amd64.s has %s", got, want)
	}
}

// TestQuotedBatchPauses scans files whose quoted fields hold a delimiter
// (every quoted row one the full parser must read, as pandas' minimal
// quoting writes them), long enough that batches pause and start again,
// and the same with simple quoted rows between such stretches, in every
// mode, against the reference.
func TestQuotedBatchPauses(t *testing.T) {
	oneGoroutine(t)
	base := generated(t, 3000, 1)[0]
	lines := bytes.SplitAfter(base.data, []byte("\n"))
	var minimal, mixed bytes.Buffer
	for i, l := range lines {
		minimal.Write(l)
		if i == 0 {
			mixed.Write(l)
			continue
		}
		if i%7 == 3 { // a quoted comma in the Country field, one row in 7
			f := bytes.SplitN(l, []byte(","), 3)
			if len(f) == 3 {
				minimal.Truncate(minimal.Len() - len(l))
				fmt.Fprintf(&minimal, "%s,\"%s, the\",%s", f[0], f[1], f[2])
			}
		}
		// mixed: stretches of 600 rows, every text field quoted (simple)
		// then quoted minimally
		if f := bytes.SplitN(l, []byte(","), 3); (i/600)%2 == 0 && len(f) == 3 {
			fmt.Fprintf(&mixed, "\"%s\",\"%s\",%s", f[0], f[1], f[2])
		} else if len(f) == 3 && i%5 == 0 {
			fmt.Fprintf(&mixed, "%s,\"%s, the\",%s", f[0], f[1], f[2])
		} else {
			mixed.Write(l)
		}
	}
	for name, d := range map[string][]byte{"minimal": minimal.Bytes(), "mixed": mixed.Bytes()} {
		files := []refFile{{"m.csv", d}}
		r, _ := check(t, name, files, Query{Filters: []Cond{Eq("Region", "Europe")}, Sum: []string{"Total Profit"}})
		if r.Quoted == 0 {
			t.Errorf("%s: no row took the full parser", name)
		}
		checkGen(t, name, files, Query{By: []string{"Country"}, Sum: []string{"Total Profit"}, Max: []string{"Order Date"}})
	}
}

// refQuotedLead is quotedLeadOK's definition, byte by byte: every row that
// ends in w (a window from a row's start) starts with a quote, and each of
// its fields is bare (no quote in it) or a quote, bytes with no quote,
// delimiter or LF, and a quote.
func refQuotedLead(w []byte, sep byte) bool {
	last := bytes.LastIndexByte(w, '\n')
	if last < 0 {
		return false
	}
	for _, row := range bytes.Split(w[:last], []byte{'\n'}) {
		if len(row) == 0 || row[0] != '"' {
			return false
		}
		for _, f := range bytes.Split(row, []byte{sep}) {
			switch {
			case bytes.IndexByte(f, '"') < 0:
			case len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' && bytes.IndexByte(f[1:len(f)-1], '"') < 0:
			default:
				return false // (a field split at a quoted delimiter ends up here too)
			}
		}
	}
	return true
}

// quotedLeadOK, and quotedLeadWords (amd64) and the portable loop both,
// say what refQuotedLead says of windows of every kind of field, quote,
// CR, delimiter and line end at every place of their 64-byte words.
func TestQuotedLeadOK(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{`"Europe"`, `"Asia"`, "12.5", "", `""`, `"a b"`, "x", // simple
		`"x,y"`, `"l` + "\n" + `f"`, `"d""q"`, `b"q`, `"q"x`, `"`, `"q"` + "\r", "\r", "Europe"}
	n, found := 20000, [2]int{}
	if testing.Short() {
		n = 2000
	}
	for range n {
		var b []byte
		for len(b) < winBytes+64 {
			for f := range 1 + rng.IntN(8) {
				if f > 0 {
					b = append(b, ',')
				}
				k := rng.IntN(7)
				if f == 0 {
					k = rng.IntN(2)
				}
				if rng.IntN(200) == 0 {
					k = rng.IntN(len(pieces))
				}
				b = append(b, pieces[k]...)
			}
			b = append(b, '\n')
		}
		w := b[:rng.IntN(winBytes)+1]
		for _, sep := range []byte{',', '\t'} {
			s := w
			if sep != ',' {
				s = swapSep(w, sep)
			}
			var mk marks
			n := classify(s, &mk, 'E', sep)
			want := refQuotedLead(s, sep)
			m2, n2 := mk, n
			if got := quotedLeadOK(&mk, s, 'E', &n); got != want {
				t.Fatalf("quotedLeadOK = %v, reference %v, for %d bytes %q", got, want, len(s), s)
			}
			if want { // sp: the rows that end in s whose second byte is 'E'
				var sp marks
				starts := 0
				for p := 0; p < bytes.LastIndexByte(s, '\n'); p = starts + 1 {
					if s[p+1] == 'E' {
						sp.sp[p/64] |= 1 << (p % 64)
					}
					starts = p + bytes.IndexByte(s[p:], '\n')
				}
				if mk.sp != sp.sp {
					t.Fatalf("sp %x, reference %x, for %q", mk.sp, sp.sp, s)
				}
				var nz uint64
				for i, w := range sp.sp {
					if w != 0 {
						nz |= 1 << i
					}
				}
				if n.sp != countBits(&sp.sp, 0, len(s)) || n.nz != nz || n.nl != n2.nl {
					t.Fatalf("tally %+v, classify's %+v, for %q", n, n2, s)
				}
			}
			if quotedLeadAsm {
				words := (len(s) + 63) / 64
				w := words - 1
				for w >= 0 && m2.nl[w] == 0 {
					w--
				}
				if w >= 0 {
					last := uint(63 - bits.LeadingZeros64(m2.nl[w]))
					got, nsp, nz := quotedLeadPortable(&m2, s, 'E', w, last)
					if got != want || want && (!slices.Equal(m2.sp[:w+1], mk.sp[:w+1]) || nsp != n.sp || nz != n.nz) {
						t.Fatalf("quotedLeadPortable = %v %d %x, reference %v, quotedLeadWords' %d %x, for %q", got, nsp, nz, want, n.sp, n.nz, s)
					}
				}
			}
			found[boolBit64(want)]++
		}
	}
	if found[0] < n/10 || found[1] < n/10 {
		t.Errorf("windows turned away and taken: %v of %d, a weak test", found, 2*n)
	}
}

func boolBit64(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rStyle writes b's records as R's write.csv does: text and dates in
// quotes, numbers bare; every k-th row (k > 0) is made one of the rows a
// window walked in place cannot hold (quotedLeadOK), in turn: a bare first
// field, a doubled quote, a quoted comma, a quoted line end, a quoted
// number, an empty first field, a CR LF end. With k < 0 every number
// loses its trailing zeros, as DuckDB writes them (9.30 is 9.3, 10.00 is
// 10; and every 50th row's with three decimals: sums at four scales,
// which hotWalk hands back).
func rStyle(t testing.TB, b []byte, k int) []byte {
	trim := k < 0
	k = max(k, 0)
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	numeric := map[int]bool{6: true, 8: true, 9: true, 10: true, 11: true, 12: true, 13: true}
	var out bytes.Buffer
	for i, r := range recs {
		odd := -1
		if k > 0 && i > 0 && i%k == 0 {
			odd = i / k % 7
		}
		for j, f := range r {
			if j > 0 {
				out.WriteByte(',')
			}
			switch {
			case odd == 0 && j == 0:
				out.WriteString(f) // bare
			case odd == 1 && j == 1:
				out.WriteString(`"` + f + ` ""the"""`)
			case odd == 2 && j == 2:
				out.WriteString(`"` + f + `, more"`)
			case odd == 3 && j == 3:
				out.WriteString(`"` + f + "\nline\"")
			case odd == 4 && j == 13:
				out.WriteString(`"` + f + `"`)
			case odd == 5 && j == 0:
				out.WriteString(`""`)
			case numeric[j] && i > 0:
				if trim && strings.Contains(f, ".") {
					f = strings.TrimSuffix(strings.TrimRight(f, "0"), ".")
					if i%50 == 0 {
						f += ".125" // (a sum at a fourth scale, or a syntax error the reference reports too)
						if strings.Count(f, ".") > 1 {
							f = strings.Replace(f, ".125", "125", 1)
						}
					}
				}
				out.WriteString(f)
			default:
				out.WriteString(`"` + f + `"`)
			}
		}
		if odd == 6 {
			out.WriteByte('\r')
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// R's quoted files, walked in place (quotedLeadOK) where every window
// allows it and as before where one does not, give the reference's
// answers in every hot mode, whole and in two ranges cut anywhere.
func TestQuotedLeadScan(t *testing.T) {
	oneGoroutine(t)
	base := generated(t, 2000, 2)
	queries := []Query{
		{Filters: []Cond{Eq("Region", "Europe")}},
		{Filters: []Cond{Eq("Region", "Asia")}, Sum: []string{"Units Sold"}},
		{Filters: []Cond{Eq("Region", "")}},
	}
	for _, k := range []int{0, 997, 61, -1} {
		var files []refFile
		for _, f := range base {
			files = append(files, refFile{f.name, rStyle(t, f.data, k)})
		}
		for _, q := range queries {
			check(t, fmt.Sprintf("every %d-th row odd, %v", k, q.Filters), files, q)
			tb, whole := scanWhole(t, files[0].name, files[0].data, q)
			s, e := tb.Body()
			for _, cut := range []int{s + 1, s + 5000, (s + e) / 2, e - 100} {
				c := bytes.IndexByte(files[0].data[cut-1:], '\n') + cut
				if parts, err := scanInTwo(tb, c); err != nil || !reflect.DeepEqual(parts, whole) {
					t.Errorf("every %d-th row odd, cut at %d: %+v (%v), whole %+v", k, c, parts, err, whole)
				}
			}
		}
	}
}

// Group-bys over money as R and DuckDB write it (9.3, 10, and a fourth
// scale now and then), plain and quoted: slot mode reads 9.3 and 10 as
// cents and each key's sum keeps its own values' largest scale (keys whose
// every value has one decimal or none print so), as the reference's do, in
// every hot mode and key split.
func TestGroupMoneyScales(t *testing.T) {
	oneGoroutine(t)
	base := generated(t, 1500, 2)
	unquote := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte{'"'}, nil) }
	for _, quoted := range []bool{false, true} {
		var files []refFile
		for _, f := range base {
			b := rStyle(t, f.data, -1)
			if !quoted {
				b = unquote(b)
			}
			files = append(files, refFile{f.name, b})
		}
		for _, q := range []Query{
			{By: []string{"Country"}, Sum: []string{"Unit Price", "Total Profit"}},
			{By: []string{"Item Type"}, Sum: []string{"Unit Cost"}},
			{By: []string{"Order Priority"}, Sum: []string{"Units Sold", "Total Revenue"}, Filters: []Cond{Eq("Sales Channel", "Online")}},
		} {
			checkGen(t, fmt.Sprintf("quoted %v, %v", quoted, q.By), files, q)
		}
	}
}
