// Package stage makes a query's inputs ready where they cannot be scanned
// where they are: Stage lands standard input and pipes, .gz and .zst files,
// UTF-16, the delimiters and options that need transcoding, and JSON lines
// once in a memory file in scan's dialect; Stream leaves a lone
// comma-separated stream, and compressed files opened as the workers take
// them, streams for seq and goroutines to scan while they read. The
// decompressors live here, apart from package input, so that the query
// workers, which only scan files input opens, do not link them.
//
// A new input format is one file here and its tests, as JSON lines is
// (ndjson.go on valyala/fastjson, ndjson_flat.go for its flat lines). Its
// own tests check its bounds and archives (stage_test.go) and the JSON
// lines conversion (ndjson_test.go, ndjson_flat_test.go); spawn's
// (input_test.go, hostile_test.go) run what it stages in every strategy.
package stage
