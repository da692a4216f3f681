package scan

// MaxSums is how many columns one query can sum.
const MaxSums = 8

// Result is what a scan of some rows found. It has a fixed size and no
// pointers, so workers can each own one (or one slot of shared memory) and the
// parent merges them; package shm's result region documents its byte layout.
type Result struct {
	Rows    int64 // data rows scanned (blank lines and headers are not rows)
	Matched int64 // rows that passed the filter
	// Quoted counts the rows that held a quote and so took the full parser.
	// A row split relies on it: cuts moved to the next newline are only
	// sure to be row starts in a file none of whose rows holds a quote.
	Quoted int64
	Sums   [MaxSums]Fixed
}

// Merge adds o into r. Sums are exact, so the merged answer is the same digits
// whatever the order; it fails only if a sum leaves the int64 range.
func (r *Result) Merge(o *Result) error {
	for i := range r.Sums {
		if err := r.Sums[i].Add(o.Sums[i].V, int(o.Sums[i].Scale)); err != nil {
			return err
		}
	}
	r.Rows += o.Rows
	r.Matched += o.Matched
	r.Quoted += o.Quoted
	return nil
}
