// Package render writes what a query run found (a spawn.Report) in
// parlab's three forms: Text, the aligned report a person reads (and
// Workers, the per-worker table of --verbose); CSV, a header and rows for
// other tools; and JSON, one object whose schema is QueryDoc. A group-by's
// table, which may have millions of rows, is never one buffer: WritePieces
// makes it in pieces on every core and writes them in order, and JSON
// streams it as the object's last field. The command line parses flags
// and calls these; it prints nothing of its own for a query.
//
// Cells from a file reach a terminal only through DisplayCell, which
// quotes any control byte or invalid UTF-8 (cell.go).
package render
