// Package data generates deterministic "Sales Records" data sets: the public
// 14-column schema (see Header), split into files named as split(1) names its
// pieces (xaa.csv, xab.csv, …), a header line in each.
//
// The same Options give byte-identical files on any machine and with any
// number of cores: each file has its own random stream, seeded from the seed
// and the file's number, so files can be written in parallel in any order.
package data

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"parlab/internal/civil"
)

// Options say what to generate.
type Options struct {
	Rows  int    // data rows in all files together
	Files int    // files to split them into (at most 676: xaa … xzz)
	Seed  uint64 // the random seed
	// NDJSON: the same rows as JSON lines (xaa.ndjson …), an object a row
	// with the header's names as keys, the numbers as JSON numbers
	NDJSON bool
}

// FileName is the name of file i of the set o writes.
func (o Options) FileName(i int) string {
	if o.NDJSON {
		return strings.TrimSuffix(FileName(i), ".csv") + ".ndjson"
	}
	return FileName(i)
}

// MaxFiles is how many names split(1)'s two-letter suffixes give.
const MaxFiles = 26 * 26

func (o Options) validate() error {
	switch {
	case o.Rows < 0:
		return fmt.Errorf("rows must be 0 or more, got %d", o.Rows)
	case o.Files < 1 || o.Files > MaxFiles:
		return fmt.Errorf("files must be 1 to %d, got %d", MaxFiles, o.Files)
	}
	return nil
}

// FileName is the name of file i (from 0) as split(1) would give it.
func FileName(i int) string {
	return "x" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + ".csv"
}

// RowsIn is how many rows file i holds: the rows are dealt evenly, the first
// Rows%Files files taking one more.
func (o Options) RowsIn(i int) int {
	n := o.Rows / o.Files
	if i < o.Rows%o.Files {
		n++
	}
	return n
}

// ErrNotEmpty is returned when the output directory holds files and force is
// not set; ErrNotOurs when it holds files that Generate does not write, which
// even force never removes.
var (
	ErrNotEmpty = errors.New("directory is not empty")
	ErrNotOurs  = errors.New("directory holds files that parlab gen did not write; refusing to replace them")
)

// ours reports whether name is one Generate writes: a file name of FileName's
// form, or one with ".tmp" after it (an unfinished run's).
func ours(name string) bool {
	base := strings.TrimSuffix(name, ".tmp")
	return len(base) >= len("xaa.csv") && base[0] == 'x' && base[1] >= 'a' && base[1] <= 'z' &&
		base[2] >= 'a' && base[2] <= 'z' && (base[3:] == ".csv" || base[3:] == ".ndjson")
}

// Generate is GenerateContext without a way to stop it.
func Generate(dir string, o Options, force bool, progress func(rows int64)) error {
	return GenerateContext(context.Background(), dir, o, force, progress)
}

// GenerateContext writes the data set into dir, creating it if needed.
//
// A directory that holds anything is refused (ErrNotEmpty), except for an
// unfinished run's ".tmp" files, which are removed. With force, a directory
// that holds only files of Generate's own names (xaa.csv … and their .tmp)
// is emptied of them first; any other file makes it refuse (ErrNotOurs), so
// no file that Generate did not write is ever removed.
//
// Files are written under temporary names and renamed in name order at the
// end, so a set whose last file exists is complete (and a directory that
// still holds a ".tmp" file is not: package spawn refuses to read one). If
// ctx ends or a write fails, every temporary file is removed before it
// returns. progress, if not nil, is called with the rows written so far
// (from several goroutines; it must be safe for that).
func GenerateContext(ctx context.Context, dir string, o Options, force bool, progress func(rows int64)) error {
	if err := o.validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var remove []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".tmp") && ours(name):
			remove = append(remove, name) // an interrupted run's
		case !force:
			return fmt.Errorf("%s: %w", dir, ErrNotEmpty)
		case !ours(name) || !e.Type().IsRegular():
			return fmt.Errorf("%s: %w: %q", dir, ErrNotOurs, name)
		default:
			remove = append(remove, name)
		}
	}
	for _, name := range remove {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	var (
		next    atomic.Int64
		written atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	for range min(runtime.GOMAXPROCS(0), o.Files) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= o.Files {
					return
				}
				err := writeFile(ctx, filepath.Join(dir, o.FileName(i)+".tmp"), o, i, func(n int) {
					if progress != nil {
						progress(written.Add(int64(n)))
					}
				})
				if err != nil {
					errOnce.Do(func() { first = err })
					next.Store(int64(o.Files)) // the others stop after their file
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		for i := range o.Files {
			os.Remove(filepath.Join(dir, o.FileName(i)+".tmp"))
		}
		return fmt.Errorf("%w (the unfinished files were removed)", first)
	}
	for i := range o.Files {
		p := filepath.Join(dir, o.FileName(i))
		if err := os.Rename(p+".tmp", p); err != nil {
			return err
		}
	}
	return nil
}

// chunk is the size of every write but a file's last, each at an offset
// that is a multiple of it: ext4 (Linux 6.16 and later) and xfs then keep
// the file in the page cache as 2 MiB folios, which a mapping maps with one
// PMD each; written 1 MiB at a time, unaligned, a set came out in smaller
// folios and every scan over it was slower (docs/pagecache.md).
const chunk = 2 << 20

func writeFile(ctx context.Context, path string, o Options, i int, progress func(int)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeRows(ctxWriter{ctx, f}, o, i, progress); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ctxWriter fails every write once ctx has ended, so a long file stops
// within a chunk of it.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(b)
}

// writeRows writes file i's header and rows to w in chunks (see chunk),
// telling progress how many rows each write took.
func writeRows(w io.Writer, o Options, i int, progress func(int)) error {
	g := NewRows(o.Seed, i)
	buf := make([]byte, 0, chunk+1024)
	if !o.NDJSON {
		buf = append(buf, strings.Join(Header, ",")...)
		buf = append(buf, '\n')
	}
	var row []byte
	pending := 0
	for range o.RowsIn(i) {
		if o.NDJSON {
			row = g.Append(row[:0])
			buf = AppendJSON(buf, row)
		} else {
			buf = g.Append(buf)
		}
		pending++
		if len(buf) >= chunk {
			if _, err := w.Write(buf[:chunk]); err != nil {
				return err
			}
			buf = append(buf[:0], buf[chunk:]...) // the part of a row past the chunk
			progress(pending)
			pending = 0
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if pending > 0 {
		progress(pending)
	}
	return nil
}

// Rows makes the rows of one file, one at a time.
type Rows struct {
	rng       uint64
	countries []country
}

type country struct{ region, name string }

// allCountries is made on first use, not at start-up: most runs of the
// binary never generate rows.
var allCountries = sync.OnceValue(func() []country {
	var cs []country
	for _, r := range Regions {
		for _, c := range r.Countries {
			cs = append(cs, country{r.Name, c})
		}
	}
	return cs
})

// NewRows starts file i's row stream for seed.
func NewRows(seed uint64, i int) *Rows {
	// Distinct, well-mixed starting states per file (splitmix64's constant).
	g := &Rows{rng: seed ^ (uint64(i)+1)*0x9E3779B97F4A7C15, countries: allCountries()}
	g.next()
	return g
}

// next is splitmix64: tiny, fast, and fixed forever (math/rand's generators
// could change between Go releases; our files must not).
func (g *Rows) next() uint64 {
	g.rng += 0x9E3779B97F4A7C15
	z := g.rng
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a number in [0, n) (Lemire's multiply-shift; its bias is below
// 2^-40 for our n, invisible in a sales data set).
func (g *Rows) intn(n int) int {
	hi, _ := bits.Mul64(g.next(), uint64(n))
	return int(hi)
}

// Dates: orders fall between 2010-01-01 and 2017-07-28, as in the public set;
// an order ships 0 to 50 days later.
var (
	firstDay = civil.Days(2010, 1, 1)
	lastDay  = civil.Days(2017, 7, 28)
)

var priorities = []string{"L", "M", "H", "C"}

// Append appends the next row (with its newline) to dst. It allocates nothing
// once dst has room: no fmt, numbers are formatted by strconv.Append*.
func (g *Rows) Append(dst []byte) []byte {
	c := g.countries[g.intn(len(g.countries))]
	it := &Items[g.intn(len(Items))]
	dst = append(dst, c.region...)
	dst = append(dst, ',')
	dst = append(dst, c.name...)
	dst = append(dst, ',')
	dst = append(dst, it.Name...)
	if g.intn(2) == 0 {
		dst = append(dst, ",Online,"...)
	} else {
		dst = append(dst, ",Offline,"...)
	}
	dst = append(dst, priorities[g.intn(len(priorities))]...)
	dst = append(dst, ',')
	order := firstDay + g.intn(lastDay-firstDay+1)
	dst = appendDate(dst, order)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(100000000+g.intn(900000000)), 10)
	dst = append(dst, ',')
	dst = appendDate(dst, order+g.intn(51))
	dst = append(dst, ',')
	units := int64(1 + g.intn(10000))
	dst = strconv.AppendInt(dst, units, 10)
	rev, cost := units*it.Price, units*it.Cost
	for _, cents := range [...]int64{it.Price, it.Cost, rev, cost, rev - cost} {
		dst = append(dst, ',')
		dst = AppendCents(dst, cents)
	}
	return append(dst, '\n')
}

// numeric says which of Header's columns are numbers (Order ID, Units
// Sold and the money): JSON numbers in a JSON line.
var numeric = [...]bool{6: true, 8: true, 9: true, 10: true, 11: true, 12: true, 13: true}

// AppendJSON appends row, a row as Append writes it (its fields hold no
// comma, quote or backslash), as a JSON line: an object with Header's
// names as keys, numbers as JSON numbers, the rest as strings.
func AppendJSON(dst, row []byte) []byte {
	row = bytes.TrimSuffix(row, []byte("\n"))
	dst = append(dst, '{')
	for k := range Header {
		f := row
		if i := bytes.IndexByte(row, ','); i >= 0 {
			f, row = row[:i], row[i+1:]
		}
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, Header[k]...)
		dst = append(dst, '"', ':')
		if numeric[k] {
			dst = append(dst, f...)
		} else {
			dst = append(dst, '"')
			dst = append(dst, f...)
			dst = append(dst, '"')
		}
	}
	return append(dst, '}', '\n')
}

// AppendCents appends cents as a decimal with two places: 12345 -> "123.45".
func AppendCents(dst []byte, cents int64) []byte {
	if cents < 0 {
		dst = append(dst, '-')
		cents = -cents
	}
	dst = strconv.AppendInt(dst, cents/100, 10)
	c := cents % 100
	return append(dst, '.', byte('0'+c/10), byte('0'+c%10))
}

func appendDate(dst []byte, days int) []byte {
	y, m, d := civil.Date(days)
	dst = strconv.AppendInt(dst, int64(m), 10)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(d), 10)
	dst = append(dst, '/')
	return strconv.AppendInt(dst, int64(y), 10)
}
