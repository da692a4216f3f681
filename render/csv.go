package render

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"

	"parlab/scan"
	"parlab/spawn"
)

// ErrNoAnswer: the floor counts lines and answers no query, so it has no
// CSV form.
var ErrNoAnswer = errors.New("the floor answers no query: it has no CSV form")

// CSV writes the answer as CSV: for a group-by, its table's header and
// rows; otherwise the header "matched" and the aggregates' labels, and one
// row. Numbers are exact and ungrouped.
func CSV(out io.Writer, rep *spawn.Report) error {
	ans := rep.Answer()
	if ans == nil {
		return ErrNoAnswer
	}
	cw := csv.NewWriter(out)
	if gt := ans.Groups(); gt != nil {
		cw.Write(gt.Header)
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return WritePieces(out, gt.Len(), csvRows(gt))
	} else {
		head, row := []string{"matched"}, []string{strconv.FormatInt(ans.Matched, 10)}
		for _, v := range ans.Values() {
			head, row = append(head, v.Label), append(row, v.Value)
		}
		cw.Write(head)
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvRows makes pieces of gt's rows as CSV, for WritePieces.
func csvRows(gt *scan.GroupTable) func() PieceMaker {
	return func() PieceMaker {
		t := gt.Fork()
		return func(dst []byte, lo, hi int) []byte {
			// (a piece's own buffers, made once a piece)
			buf := bytes.NewBuffer(dst)
			cw := csv.NewWriter(buf)
			var b []byte
			var ends []int
			cells := make([]string, len(t.Header))
			for i := lo; i < hi; i++ {
				// One string a row, each cell a part of it: csv.Writer
				// quotes what needs it and copies the bytes.
				b, ends = t.AppendRow(b[:0], ends[:0], i, false)
				cw.Write(stringCells(cells, string(b), ends))
			}
			cw.Flush() // (into buf: it cannot fail)
			return buf.Bytes()
		}
	}
}

// stringCells puts row's cells (see scan.Cells) in cells and returns it. A
// function of its own so that the iterator is inlined: in the closure of a
// PieceMaker its state went to the heap, an allocation a row.
func stringCells(cells []string, row string, ends []int) []string {
	for j, v := range scan.Cells(row, ends) {
		cells[j] = v
	}
	return cells
}
