package bench

import (
	"encoding/csv"
	"strings"
	"testing"
)

func TestTableRenderers(t *testing.T) {
	tb := Table{Title: "Results:", Intro: []string{"before"}, Header: []string{"name", "split", "ms"},
		Rows: [][]string{{"seq", "-", "11.1"}, {"goroutines", "a|b", "5.9"}}, Left: []int{1}, Notes: []string{"after"}}
	var text strings.Builder
	tb.WriteText(&text)
	want := "\nResults:\nbefore\n  name        split    ms\n  seq         -      11.1\n  goroutines  a|b     5.9\nafter\n"
	if text.String() != want {
		t.Errorf("text:\n%q\nwant\n%q", text.String(), want)
	}
	var md strings.Builder
	tb.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "### Results\n") || !strings.Contains(md.String(), "| name | split | ms |\n| --- | --- | ---: |\n") ||
		!strings.Contains(md.String(), `| goroutines | a\|b | 5.9 |`) {
		t.Errorf("markdown:\n%s", md.String())
	}
	var c strings.Builder
	if err := tb.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(c.String())).ReadAll()
	if err != nil || len(recs) != 3 || recs[2][1] != "a|b" || recs[0][2] != "ms" {
		t.Errorf("csv %q: %v", recs, err)
	}
}
