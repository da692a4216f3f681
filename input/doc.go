// Package input is how a query's bytes arrive, from the PATHs on the
// command line to the byte slices package scan reads:
//
//   - finding files (ExpandPaths: files, directories, standard input, pipes;
//     paths.go);
//   - the dialect of each (a delimiter given, named by the file, or sniffed
//     from its first line by scan.SniffDelimiter; the compression a name or
//     a stream's first bytes say; dialect.go);
//   - opening a file for the scan (Open) in a Mode: mapped in place, or
//     copied by one of the two copying paths, so users can measure what
//     zero-copy buys; nothing downstream knows which path was taken;
//     RegionPath names part of a memory file as a file of its own;
//   - the page cache: a file's head read so that the cache keeps large
//     folios (Head), how much of a set is cached and in which folios
//     (State, Folios, Resident), eviction and warming (Evict, Warm).
//
// What must land somewhere before it is scanned (standard input and pipes,
// .gz and .zst, UTF-16, JSON lines) is package input/stage's: it links the
// decompressors, which the query workers, importing this package to open
// their files, do not. Its own tests check paths, dialects, modes and
// mappings; spawn's run every strategy over what it opens. Package shm keeps
// the memory shared between processes (the result region, memory files).
// unsafe.go is its one file with unsafe.
//
// # The SIGBUS hazard
//
// A mapping of a file is only as long-lived as the file's length: if another
// process truncates a file while it is mapped, touching a page past the new
// end raises SIGBUS. The Go runtime turns that into a fatal "unexpected fault
// address" unless the goroutine has called debug.SetPanicOnFault(true), in
// which case it is a recoverable panic. Package spawn scans with that set and
// reports such a fault as an error naming the file, never as a wrong total.
// The copying modes read through File.ReadAt into their callers' buffers;
// the ReadAt mode copies out of a mapping of its own, so its reads are
// guarded the same way (ErrFault), and the Read mode sees a short read.
package input
