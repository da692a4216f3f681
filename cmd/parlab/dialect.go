package main

import (
	"flag"
	"strconv"
	"strings"

	"parlab/input/stage"
	"parlab/scan"
)

// dialectFlags are how the inputs are written, beyond their delimiter:
// DuckDB's read_csv options of the same names where it has them.
type dialectFlags struct {
	comment string
	skip    int
	null    listFlag
	ragged  bool
}

func (d *dialectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.comment, "comment", "", "a line that starts with this character is a comment, skipped (DuckDB's comment), e.g. '#'")
	fs.IntVar(&d.skip, "skip", 0, "skip this many lines before the header (a title, metadata), whatever they hold")
	fs.Var(&d.null, "null", "values that mean missing beside the empty one, comma-separated (or the flag given again), e.g. NA,NULL,\\N: an unquoted field equal to one is missing")
	fs.BoolVar(&d.ragged, "ragged", false, "a row shorter than the header has missing values in its last columns (DuckDB's null_padding); a longer one stays an error")
}

// apply puts the flags into d; a fault is a usage error naming the flag.
func (f *dialectFlags) apply(d *stage.Dialect) error {
	switch {
	case len(f.comment) > 1 || f.comment == "\"" || f.comment == "\n" || f.comment == "\r":
		return usagef("--comment wants one character other than a quote or a line end, got %q", f.comment)
	case f.skip < 0:
		return usagef("--skip must not be negative")
	}
	if f.comment != "" {
		d.Comment = f.comment[0]
	}
	d.Skip, d.Ragged = f.skip, f.ragged
	for _, v := range f.null {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				d.Null = append(d.Null, n)
			}
		}
	}
	return nil
}

// nullLike are values that often mean missing (R's NA, SQL's NULL,
// PostgreSQL's \N, pandas' NaN): one of them where a number should be gets
// a hint that names --null.
var nullLike = map[string]bool{"NA": true, "N/A": true, "NULL": true, "null": true, `\N`: true, "NaN": true, "nan": true, "None": true, "-": true, "na": true}

// nullHint is the hint for a parse error's value v, "" if none. It says
// that --null reads only an unquoted value: a quoted one is text (an export
// that quotes every field, given --null, still stops here).
func nullHint(pe *scan.ParseError) string {
	if v := strings.TrimSpace(pe.Value); nullLike[v] {
		return "parlab: " + quoteArg(pe.Value) + " may mean a missing value: --null " + quoteArg(v) + " reads it as one where it is not quoted (a quoted " + strconv.Quote(v) + " is text, which a number column does not hold)\n"
	}
	return ""
}

// quoteArg is s as a shell word, quoted where it must be.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\\'\"$`!*?;&|<>(){}[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
