package scan

import (
	"os"
	"path/filepath"
	"testing"
)

func bigFiles(b *testing.B) []refFile {
	var out []refFile
	ps, _ := filepath.Glob("/tmp/s10m/xa[a-d].csv")
	for _, p := range ps {
		d, _ := os.ReadFile(p)
		out = append(out, refFile{p, d})
	}
	return out
}

func benchBig(b *testing.B, q Query) {
	files := bigFiles(b)
	var tables []*Table
	n := 0
	for _, f := range files {
		tb, _ := NewTable(f.name, f.data, &q)
		tables = append(tables, tb)
		n += len(f.data)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		var r Result
		for _, tb := range tables {
			s, e := tb.Body()
			tb.Scan(s, e, &r)
		}
	}
}

func BenchmarkBigRegion(b *testing.B)   { benchBig(b, Query{Where: "Region", Equals: "Europe"}) }
func BenchmarkBigAll(b *testing.B)      { benchBig(b, Query{}) }
func BenchmarkBigByRegion(b *testing.B) { benchBig(b, Query{By: []string{"Region"}}) }
