package scan

import (
	"slices"
	"strconv"
	"strings"
)

// Answer is a query's answer with what names its numbers: the filter's
// column as the header spells it ("" for none) and its value, and the
// summed columns' header names, in query order (Sums[i] is SumNames[i]'s).
// It owns the answer's forms: equality (Equal), the lines a report prints
// (Lines), the values a machine reads (Values, for JSON), and a one-line
// form for logs (String); Result owns the merge and the binary form.
type Answer struct {
	Filter, Value string
	SumNames      []string
	Result
}

// Equal reports whether a and b answer the same question the same way: the
// same names, rows, matches and Equal sums. (Result.Quoted, how many rows
// took the full parser, is how the answer was found, not part of it.)
func (a *Answer) Equal(b *Answer) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Filter != b.Filter || a.Value != b.Value || !slices.Equal(a.SumNames, b.SumNames) ||
		a.Rows != b.Rows || a.Matched != b.Matched {
		return false
	}
	for i := range a.SumNames {
		if !a.Sums[i].Equal(b.Sums[i]) {
			return false
		}
	}
	return true
}

// Line is one labelled figure of an answer, as a report prints it.
type Line struct{ Label, Value string }

// Lines are the answer's figures for a text report: the matching rows, then
// each sum, exact, with thousands grouped.
func (a *Answer) Lines() []Line {
	out := []Line{{"Matching orders", string(Fixed{V: a.Matched}.Append(nil, true))}}
	for i, n := range a.SumNames {
		out = append(out, Line{n, string(a.Sums[i].Append(nil, true))})
	}
	return out
}

// Values are the answer's figures as a machine reads them (JSON, CSV): each
// sum's exact decimal, ungrouped, in query order.
func (a *Answer) Values() []Line {
	out := make([]Line, len(a.SumNames))
	for i, n := range a.SumNames {
		out[i] = Line{n, a.Sums[i].String()}
	}
	return out
}

// String is the answer on one line: "matched=259409; Total Revenue=…".
func (a *Answer) String() string {
	if a == nil {
		return "no answer"
	}
	var b strings.Builder
	b.WriteString("matched=")
	b.WriteString(strconv.FormatInt(a.Matched, 10))
	for i, n := range a.SumNames {
		b.WriteString("; ")
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(a.Sums[i].String())
	}
	return b.String()
}
