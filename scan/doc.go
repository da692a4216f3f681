// Package scan answers one filter-and-sum query over CSV bytes in place.
//
// It is pure: functions over []byte, no syscalls, no allocation per row, so it
// can be fuzzed anywhere. How the bytes arrive (mmap, ReadAt, read) is package
// shm's business; which worker scans which range is package spawn's.
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
// A quoted field may hold commas, CR and LF; a doubled quote inside it stands
// for one quote. A quote inside a bare field, a byte other than "," or a line
// end after a closing quote, and a quote that is never closed are errors. A
// BOM (EF BB BF) is skipped at the start of a file only. A CR directly before
// LF, or at the very end of the input, ends the line and is not part of the
// last field. Rows may have any number of fields, but a row that the query
// needs a column from must have that column.
//
// The first record of each file is its header. Columns are found by name in
// each file's own header, so files may order their columns differently.
//
// # Numbers
//
// Summed columns hold decimal numbers:
//
//	number = [ "+" | "-" ] ( digits [ "." [ digits ] ] | "." digits )
//
// with at most 18 digits after the point. Sums are exact fixed-point integers
// (see Fixed), never floats, so every strategy and worker count prints the same
// digits. Only rows that match the filter have their numbers parsed.
//
// # Speed
//
// Rows are found with bytes.IndexByte (vectorised), and a row that does not
// match costs one look at its filter field. The fast path assumes a row holds
// no quote; a bounded look-ahead (see Table.Scan) proves that before each row
// is trusted, and any row that holds a quote is parsed by the full RFC 4180
// record parser instead, so quoted input gives the same answers.
package scan
