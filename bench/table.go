package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Table is one section of a report: a title, lines before the table, the
// table itself (if any), and lines after it. Every renderer (text, Markdown,
// CSV, and a study's HTML) takes the same Table, so a report's figures are
// computed once.
type Table struct {
	ID     string // a short name (for anchors and CSV file names)
	Title  string
	Intro  []string // paragraphs before the table
	Header []string
	Rows   [][]string
	// Left: columns aligned left in text (by default every column but the
	// first is right-aligned, as numbers are).
	Left  []int
	Notes []string // paragraphs after the table
}

func (t *Table) left(i int) bool {
	if i == 0 {
		return true
	}
	for _, l := range t.Left {
		if l == i {
			return true
		}
	}
	return false
}

// WriteText renders the table as a terminal report does: the title and
// intro, the columns aligned (numbers right), the notes.
func (t *Table) WriteText(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "\n%s\n", t.Title)
	}
	for _, p := range t.Intro {
		fmt.Fprintln(w, p)
	}
	if len(t.Header) > 0 {
		// tabwriter aligns a whole table one way: pad left-aligned cells by
		// hand in a right-aligned writer.
		width := make([]int, len(t.Header))
		for _, r := range append([][]string{t.Header}, t.Rows...) {
			for i, c := range r {
				if i < len(width) {
					width[i] = max(width[i], len([]rune(c)))
				}
			}
		}
		var out strings.Builder
		tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, r := range append([][]string{t.Header}, t.Rows...) {
			var b strings.Builder
			for i := range t.Header {
				c := ""
				if i < len(r) {
					c = r[i]
				}
				if t.left(i) {
					c += strings.Repeat(" ", width[i]-len([]rune(c)))
				}
				b.WriteString(c)
				b.WriteByte('\t')
			}
			fmt.Fprintln(tw, b.String())
		}
		tw.Flush()
		for _, l := range strings.SplitAfter(out.String(), "\n") {
			if l != "" {
				fmt.Fprintln(w, strings.TrimRight(l, " \n"))
			}
		}
	}
	for _, p := range t.Notes {
		fmt.Fprintln(w, p)
	}
}

// WriteMarkdown renders the table as a Markdown section (a GitHub table).
func (t *Table) WriteMarkdown(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "\n### %s\n\n", strings.TrimSuffix(t.Title, ":"))
	}
	for _, p := range t.Intro {
		fmt.Fprintf(w, "%s\n\n", p)
	}
	if len(t.Header) > 0 {
		cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
		var b strings.Builder
		b.WriteString("|")
		for _, h := range t.Header {
			b.WriteString(" " + cell(h) + " |")
		}
		b.WriteString("\n|")
		for i := range t.Header {
			if t.left(i) {
				b.WriteString(" --- |")
			} else {
				b.WriteString(" ---: |")
			}
		}
		b.WriteString("\n")
		for _, r := range t.Rows {
			b.WriteString("|")
			for i := range t.Header {
				c := ""
				if i < len(r) {
					c = r[i]
				}
				b.WriteString(" " + cell(c) + " |")
			}
			b.WriteString("\n")
		}
		fmt.Fprint(w, b.String())
		if len(t.Notes) > 0 {
			fmt.Fprintln(w)
		}
	}
	for _, p := range t.Notes {
		fmt.Fprintf(w, "%s\n\n", p)
	}
}

// WriteCSV writes the table's header and rows as CSV (RFC 4180), for a
// spreadsheet.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}
