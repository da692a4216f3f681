package data

import "testing"

// BenchmarkRows measures row formatting alone: MB/s of CSV text, 0 allocs.
func BenchmarkRows(b *testing.B) {
	g := NewRows(1, 0)
	buf := make([]byte, 0, 1<<20)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if len(buf) > 1<<20-256 {
			buf = buf[:0]
		}
		l := len(buf)
		buf = g.Append(buf)
		n += len(buf) - l
	}
	b.SetBytes(int64(n / b.N))
}

// BenchmarkGenerate writes a 200,000-row set to disk, all cores.
func BenchmarkGenerate(b *testing.B) {
	o := Options{Rows: 200000, Files: 20, Seed: 1}
	b.SetBytes(200000 * 125)
	for b.Loop() {
		if err := Generate(b.TempDir(), o, false, nil); err != nil {
			b.Fatal(err)
		}
	}
}
