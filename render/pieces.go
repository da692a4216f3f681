package render

import (
	"io"
	"runtime"
)

// TablePiece is how many rows of a group-by's table WritePieces has made
// at a time in one goroutine (a variable for the tests, which cut tables of
// a few rows into many pieces).
var TablePiece = 4096

// A PieceMaker appends rows [lo, hi) of a table, as text, to dst. Each is
// used by one goroutine (see WritePieces).
type PieceMaker func(dst []byte, lo, hi int) []byte

// WritePieces writes rows [0, n) of a table to out, in order, as the
// PieceMakers that newMaker returns make them: with millions of groups,
// making the text is most of the time after the scan, so pieces of
// TablePiece rows are made by a goroutine a core at once (goroutine k, with
// a PieceMaker of its own, makes pieces k, k+workers, …, each into one of
// its two buffers) and written one after another as they come. The first
// write error stops it.
func WritePieces(out io.Writer, n int, newMaker func() PieceMaker) error {
	piece := TablePiece
	pieces := (n + piece - 1) / piece
	workers := max(1, min(runtime.GOMAXPROCS(0), pieces))
	done := make(chan struct{}) // closed when the writer stops
	defer close(done)
	made := make([]chan []byte, workers) // goroutine k's pieces, in order
	free := make([]chan []byte, workers) // its buffers, back from the writer
	for k := range workers {
		made[k], free[k] = make(chan []byte, 1), make(chan []byte, 2)
		free[k] <- nil
		free[k] <- nil
		go func(mk PieceMaker) {
			for p := k; p < pieces; p += workers {
				var dst []byte
				select {
				case dst = <-free[k]:
				case <-done:
					return
				}
				dst = mk(dst[:0], p*piece, min(n, (p+1)*piece))
				select {
				case made[k] <- dst:
				case <-done:
					return
				}
			}
		}(newMaker())
	}
	for p := range pieces {
		b := <-made[p%workers]
		if _, err := out.Write(b); err != nil {
			return err
		}
		free[p%workers] <- b
	}
	return nil
}
