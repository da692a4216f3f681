package scan

// The group-by's arrays (a Groups' keys and figures, its index's slots)
// reach hundreds of megabytes with millions of groups, and each first
// touch of a 4 KiB page of fresh memory is a page fault, dear on a VM
// (docs/performance.md, "Group-by memory"). makeHuge
// and growHuge make such arrays and ask the kernel to back them with
// transparent huge pages (adviseHuge), so a fault maps 2 MiB. Go's heap
// does not ask for them itself, and most hosts give them only where asked
// (THP "madvise").

// hugeMin is the size in bytes from which an array is worth the advice:
// below two huge pages, little of it could be backed by one.
const hugeMin = 4 << 20

// makeHuge is make([]T, n, c), with the advice if it is large.
func makeHuge[T any](n, c int) []T {
	s := make([]T, n, c)
	adviseHuge(s)
	return s
}

// growHuge returns s with room for at least extra more elements: s itself
// if it has it, else a copy in an array of twice its capacity or more
// (made by makeHuge), as append would grow it.
func growHuge[T any](s []T, extra int) []T {
	if len(s)+extra <= cap(s) {
		return s
	}
	t := makeHuge[T](len(s), max(2*cap(s), len(s)+extra, 16))
	copy(t, s)
	return t
}

// appendHuge is append, growing s by growHuge.
func appendHuge[T any](s []T, v ...T) []T { return append(growHuge(s, len(v)), v...) }
