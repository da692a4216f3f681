// Package scan answers a query over CSV bytes in place: filters (= != < <=
// > >=, all of which must hold; see Cond and ParseCond for their grammar),
// an optional group-by, and per group the count and exact sums, minimums,
// maximums and averages (see Query). A minimum or maximum also reads dates
// and text (see Word for the order of kinds).
//
// It is pure: functions over []byte, no allocation per row (a group-by
// allocates per new group), and no system call but one hint that changes no
// answer (huge pages asked for a group-by's large arrays: huge_linux.go), so
// it can be fuzzed anywhere. How the bytes arrive (mmap, pread, a copy) is
// package input's business; which worker scans which range is package spawn's.
//
// # The dialect
//
// The accepted grammar is RFC 4180 with the usual relaxations:
//
//	file    = [BOM] { blank } header { record | blank }
//	header  = record
//	record  = field { "," field } ( LF | CRLF | end-of-input )
//	blank   = LF | CRLF                  (skipped; not a row)
//	field   = quoted | bare
//	quoted  = DQUOTE { any byte but DQUOTE | DQUOTE DQUOTE } DQUOTE
//	bare    = { any byte but "," LF DQUOTE }
//
// A quoted field may hold commas, CR and LF. Its value is the bytes between
// its quotes as the file has them, each doubled quote made one and nothing
// else changed: a quoted CR LF stays CR LF (RFC 4180 and Python's csv keep
// it; encoding/csv would make it LF), so "Once upon ⏎a time" written with
// CR LF equals "Once upon \r\na time". Outside quotes, a CR directly before
// LF, or at the very end of the input, ends the line and is not part of the
// last field; any other CR is a byte of its field.
//
// A quote inside a bare field, a byte other than "," or a line end after a
// closing quote, and a quote that is never closed are errors (ErrBareQuote,
// ErrQuote, ErrOpenQuote).
//
// The delimiter may be a tab, ';' or '|' in place of "," (NewTableSep), the
// same grammar with it; a tab's (a TSV's) quotes are relaxed as Transcode
// relaxes them: a quote inside a bare field is a byte of it, and a field
// that starts with a quote is quoted only if it closes as one. A BOM (EF BB BF) is skipped at the start of a file
// only. Rows may have any number of fields, but a row that passes every
// other filter must reach each filter's column, and a matching row every
// summed column (ErrShortRow); a filter's value that cannot be compared is
// likewise an error only in a row that passes every other filter.
//
// The first record of each file is its header; an empty header cell is
// named column and its position from 0 (column0), as DuckDB names one. Columns are found by name in
// each file's own header, so files may order their columns differently; how
// a query's name resolves to a field is resolve's rule (exact, then loose,
// then the reference's short names).
//
// # Numbers
//
// Summed columns hold decimal numbers:
//
//	number = [ "+" | "-" ] ( digits [ "." [ digits ] ] | "." digits ) [ exponent ]
//	exponent = ( "e" | "E" ) [ "+" | "-" ] digit [ digit [ digit ] ]
//
// with spaces and tabs around it allowed (a hand-written "a, 12"; inside
// it, none), read exactly (1.5E-3 is 15 at scale 4), with at most MaxDigits (38)
// significant digits and at most MaxScale (38) digits after the point once
// the exponent is applied (ErrOverflow otherwise): a value may lie anywhere
// around its point (99999999999999999999999999999999999999 and
// 0.00000000000000000000000000000000000001 are both read, and summed
// exactly). A value of up to 18 digits is an int64 mantissa, the fast
// paths' (ParseFixed); a longer one is a 320-bit wide (parseWide), which
// the fast paths hand to the general ones. An empty field is not a
// number but a missing value, which aggregates leave out (Result.Skipped)
// and which only COL= matches (Cond). Sums are exact (see
// Fixed): no sum overflows, in any order, so every strategy, split and worker
// count prints the same digits. Only rows that match the filter have their
// numbers parsed.
//
// # How a scan runs
//
// Table.Scan classifies the bytes a 4 KiB window at a time into bitmaps of
// newlines, commas and quotes (marks.go; AVX-512, AVX2 or portable), then
// walks the rows by their bits. A window with no quote and a filter on the
// first column is taken by bulk: its rows are counted by popcount, and only
// those whose first byte could start the value are looked at, by hotWalk
// (amd64 assembly) or hit (Go), which parse cents directly. A window with
// a quote is first read by quoteBatch (quoted.go): its rows whose quotes
// only enclose whole fields holding no delimiter or line end (what R,
// Excel and most exporters write) are copied without those quotes and
// scanned by the same fast paths. Any other row goes to line (a quote-free
// row) or slowRow (the full record parser, for any row that holds a quote
// out of that pattern), which give the exact answer or error for anything
// the fast paths decline. The tests run every input through each path and
// compare with a slow reference (ref_test.go).
//
// # Lifetimes
//
// A Table keeps the slice it was given and never copies it: the bytes must
// stay valid and unchanged (for a mapping: mapped, and the file not
// truncated) until its last Scan returns. Result holds no pointers.
package scan
