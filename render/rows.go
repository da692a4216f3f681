package render

import (
	"bytes"
	"encoding/csv"
	"io"

	"parlab/scan"
	"parlab/spawn"
)

// Rows writes the rows a query selected (scan.Query.Select), as its scan
// wrote them in format f, after a header line of the columns' names for
// CSV and TSV (JSON lines name them in every row). The rows' bytes are
// written as they are, in one write.
func Rows(out io.Writer, rep *spawn.Report, f scan.OutFormat) error {
	if err := RowsHead(out, rep.Spec.Select, f); err != nil {
		return err
	}
	_, err := out.Write(rep.Result.Out)
	return err
}

// RowsHead writes the header line of rows out in format f, the columns'
// names (CSV and TSV; JSON lines have none).
func RowsHead(out io.Writer, names []string, f scan.OutFormat) error {
	var head []byte
	for k, n := range names {
		switch f {
		case scan.OutCSV:
			if k > 0 {
				head = append(head, ',')
			}
			head = scan.AppendCSVField(head, []byte(n))
		case scan.OutTSV:
			if k > 0 {
				head = append(head, '\t')
			}
			head = scan.AppendTSVField(head, []byte(n))
		}
	}
	if head != nil {
		_, err := out.Write(append(head, '\n'))
		return err
	}
	return nil
}

// RowsText writes the rows a query selected, written as CSV by its scan,
// as an aligned table: a header, a rule, and each row's cells padded to
// their column's width (DisplayCell: a cell shown as a terminal shows it).
// The table is made whole before it is written, so it is for a screenful
// of rows (--limit), not for millions.
func RowsText(out io.Writer, rep *spawn.Report) error {
	table := [][]string{rep.Spec.Select}
	cr := csv.NewReader(bytes.NewReader(rep.Result.Out))
	cr.FieldsPerRecord = len(rep.Spec.Select)
	recs, err := cr.ReadAll()
	if err != nil {
		return err
	}
	table = append(table, recs...)
	type cell struct {
		s string
		w int
	}
	cells := make([][]cell, len(table))
	widths := make([]int, len(rep.Spec.Select))
	for i, row := range table {
		cells[i] = make([]cell, len(row))
		for k, c := range row {
			s, w := DisplayString(c)
			cells[i][k] = cell{s, w}
			widths[k] = max(widths[k], w)
		}
	}
	var b bytes.Buffer
	line := func(row []cell) {
		for k, c := range row {
			if k > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c.s)
			if k < len(row)-1 {
				b.Write(bytes.Repeat([]byte{' '}, widths[k]-c.w))
			}
		}
		b.WriteByte('\n')
	}
	line(cells[0])
	rule := make([]cell, len(widths))
	for k, w := range widths {
		rule[k] = cell{string(bytes.Repeat([]byte{'-'}, w)), w}
	}
	line(rule)
	for _, row := range cells[1:] {
		line(row)
	}
	_, err = out.Write(b.Bytes())
	return err
}
