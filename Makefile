# parlab: `make run` builds, makes the default data set if missing, and runs
# the reference query; `make test` is what CI runs.
GO      ?= go
BIN     := bin/parlab
DATA    := data/sales-1M
FUZZTIME ?= 30s
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Build for this machine's x86-64 level: at v3 (AVX2, BMI1/2, LZCNT...) the
# compiler emits TZCNT, LZCNT, POPCNT and SHLX without runtime checks; the
# 1M-row query's scan went from 15.2 to 14.5 ms with it. A CPU without every
# v3 feature gets v1 (GOAMD64 is ignored off amd64). Tests run at the same
# level, so they test the code that runs.
GOAMD64 ?= $(shell scripts/goamd64.sh)
export GOAMD64

.PHONY: all build run study data test vet lint fmt-check fuzz bench vs-awk vs-duckdb shapes ftp-study pgo clean

all: build

# parlab and its lean children: parlab-worker, the processes strategy's
# (the query engine alone: it starts in half of parlab's time);
# parlab-session, the FTP processes model's (the server alone), and
# parlab-session-plain, the same built without TLS (-tags notls) for a
# server without it:
# internal/child/worker.go. They carry STAMP, a hash of the sources and
# the compiler, as their GNU build ID (the linker's -B); parlab starts a
# lean child only if its stamp is the same, else itself. -trimpath, as in
# make test: a new clone reuses what any checkout of the same sources
# compiled, instead of compiling all of parlab again for its directory
# (make run from a fresh clone: 30 s before, 17 s after; docs/tests.md).
# parlab-nop is the spawn lab's yardstick, the smallest Go program (method
# forkexec-go).
# parlab-figure draws the studies' figures (bench/figure/draw, gonum/plot):
# parlab starts it for each picture, so that parlab itself does not link
# gonum/plot, whose fonts' initialisers cost every parlab process about
# a millisecond at start.
STAMP = $(shell { $(GO) version; cat go.mod go.sum; find . -name '*.go' -not -path './.git/*' | LC_ALL=C sort | xargs cat; } | sha256sum | cut -c1-16)
LDSTAMP = -ldflags "-B 0x$(STAMP)"

# Each binary is then copied over itself (cp, then rename): the linker
# writes its output through a shared mapping, which leaves the file in the
# page cache in 4 KiB folios, and every exec of it then pays more kernel
# time for the same page faults; written with write(2) it lies in large
# folios, as a binary read back from disk does. parlab-session's start
# (2,000 each): 1.44x the smallest Go program's, both as linked; 1.35x,
# both as copied (docs/experiments.md, 2026-12-06, late night).
#
# CGO_ENABLED=0: static binaries, pure Go's resolver and user lookup. A
# binary that links cgo (net, os/user do by default) is loaded by ld.so and
# libc first: parlab-session's exec and exit took 12.7 ms so, 9.1 ms static
# (a minimal Go program 6.4 ms; docs/experiments.md, 2026-12-05). Tests
# keep cgo: the race detector needs it.
#
# bin/parlab-mpi is parlab with the mpi strategy's binding to OpenMPI (cgo,
# the build tag mpi: internal/mpi), built only where OpenMPI is installed
# (Debian: libopenmpi-dev openmpi-bin); run it with mpirun (docs/mpi.md).
MPI_OK = command -v mpicc >/dev/null 2>&1 && pkg-config --exists ompi 2>/dev/null
build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto $(LDSTAMP) -o $(BIN) ./cmd/parlab
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto $(LDSTAMP) -o $(BIN)-worker ./cmd/parlab-worker
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto $(LDSTAMP) -o $(BIN)-session ./cmd/parlab-session
	CGO_ENABLED=0 $(GO) build -trimpath -tags notls -buildvcs=auto $(LDSTAMP) -o $(BIN)-session-plain ./cmd/parlab-session-plain
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)-nop ./cmd/parlab-nop
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto $(LDSTAMP) -o $(BIN)-figure ./cmd/parlab-figure
	@if $(MPI_OK); then \
		echo "CGO_ENABLED=1 $(GO) build -tags mpi ... -o $(BIN)-mpi ./cmd/parlab"; \
		CGO_ENABLED=1 $(GO) build -trimpath -tags mpi -buildvcs=auto $(LDSTAMP) -o $(BIN)-mpi ./cmd/parlab; \
	else \
		echo "make build: OpenMPI (mpicc, libopenmpi-dev) is not installed, so $(BIN)-mpi, the mpi strategy's binary, is not built; everything else works without it"; \
	fi
	@for f in $(BIN) $(BIN)-worker $(BIN)-session $(BIN)-session-plain $(BIN)-nop $(BIN)-figure $(BIN)-mpi; do \
		[ -f $$f ] || continue; \
		cp $$f $$f.new && mv -f $$f.new $$f || exit 1; \
	done

# The last file is renamed into place last, so its presence means a complete set.
$(DATA)/xat.csv: | build
	$(BIN) gen --rows 1000000 --files 20 --seed 1 --out $(DATA)

data: $(DATA)/xat.csv

# The reference query, then a short study (half a minute): every strategy
# and split at 1, 2 and 4 workers, 10 trials interleaved, tables on stdout,
# JSON and plots in out/, and the whole report as one page,
# out/report.html. The set is first put in the page cache in 2 MiB folios
# (parlab cache --warm: a set another program read back sits in small
# ones, and every trial is slower for it). make study runs the full sweep.
run: build data
	$(BIN) cache --warm $(DATA)
	$(BIN) query --where Region=Europe $(DATA)
	@echo
	$(BIN) bench --trials 10 --warmup 1 --workers 1,2,4 \
		--json out/bench.json --log out/trials.jsonl --plot out/plots $(DATA)
	$(BIN) report out/bench.json --html out/report.html

# The full sweep: 1..20 workers, 20 trials (minutes on 2 cores).
study: build data
	$(BIN) cache --warm $(DATA)
	$(BIN) bench --trials 20 --warmup 1 --workers 1,2,4,8,16,20 \
		--json out/study.json --log out/study-trials.jsonl --plot out/study-plots $(DATA)
	$(BIN) report out/study.json --html out/study.html

# The mpi build's cgo files are vetted where OpenMPI is installed.
vet:
	$(GO) vet ./...
	@if $(MPI_OK); then echo "$(GO) vet -tags mpi ./internal/mpi ./spawn"; $(GO) vet -tags mpi ./internal/mpi ./spawn; fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# staticcheck comes from the Go module proxy at a pinned version.
lint:
	$(GO) run $(STATICCHECK) ./...

# The tests run twice, side by side with staticcheck: in full without the
# race detector, and with it under -short, which leaves to the full run
# what the detector cannot judge (child processes, long single-goroutine
# reference checks): docs/tests.md. GORACE (in the script): a race-built
# program sleeps a second at exit by default.
#
# -trimpath: the build cache keys what go test and go vet compile on the
# checkout's directory otherwise, so a new clone recompiled every package
# of parlab for each of them (93 s of CPU, and vet 14 s before the tests
# start: docs/tests.md); trimmed, a clone reuses what any checkout of the
# same sources built. (Only file names in stack traces change: module
# paths, not absolute ones.) The binaries the tests build inherit it.
test: export GOFLAGS := $(strip $(GOFLAGS) -trimpath)
test: fmt-check vet
	GO=$(GO) STATICCHECK=$(STATICCHECK) scripts/test.sh

# Fuzz each target for FUZZTIME (make fuzz FUZZTIME=5m).
fuzz:
	$(GO) test -run XXX -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzKinds$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzParseFixed$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzClassify$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzDecodeGroups$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzDate$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzRowEnd$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzQuoteBatch$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzPlainNumber$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzFieldFits$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzContainsFold$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzSession$$' -fuzztime $(FUZZTIME) ./ftp
	$(GO) test -run XXX -fuzz '^FuzzStream$$' -fuzztime $(FUZZTIME) ./spawn
	$(GO) test -run XXX -fuzz '^FuzzTranscode$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzTranscodeOptions$$' -fuzztime $(FUZZTIME) ./scan
	$(GO) test -run XXX -fuzz '^FuzzCutArchive$$' -fuzztime $(FUZZTIME) ./input/stage
	$(GO) test -run XXX -fuzz '^FuzzJSONToCSV$$' -fuzztime $(FUZZTIME) ./input/stage
	$(GO) test -run XXX -fuzz '^FuzzFlatLine$$' -fuzztime $(FUZZTIME) ./input/stage
	$(GO) test -run XXX -fuzz '^FuzzReadJob$$' -fuzztime $(FUZZTIME) ./internal/child
	$(GO) test -run XXX -fuzz '^FuzzDisplayCell$$' -fuzztime $(FUZZTIME) ./render
	$(GO) test -run XXX -fuzz '^FuzzQueryOutputs$$' -fuzztime $(FUZZTIME) ./cmd/parlab

bench:
	$(GO) test -run XXX -bench . -benchmem ./...

vs-awk: build data
	scripts/vs-awk.sh $(DATA)

# The query shapes against Region = Europe, whole processes, alternating
# (docs/performance.md); SHAPES_DATA wants a big set, say parlab gen --rows
# 10000000 --out data/sales-10M.
SHAPES_DATA ?= $(DATA)
shapes: build data
	scripts/shapes.sh $(SHAPES_DATA)

# The same shapes in DuckDB (2 threads, the schema given), alternating with
# parlab, every parlab answer checked against DuckDB's exact one (exit 1 on a
# difference): npm's @duckdb/node-api, installed into out/duckdb.
vs-duckdb: build data
	mkdir -p out/duckdb && cd out/duckdb && [ -d node_modules/@duckdb/node-api ] || npm install --no-save @duckdb/node-api
	cp scripts/vs-duckdb.mjs out/duckdb/ && cd out/duckdb && node vs-duckdb.mjs $(abspath $(SHAPES_DATA)) 5 $(abspath bin/parlab)

# The FTP load lab: the reference's three sweeps against every model and
# vsftpd. Quick by default (about a minute); FTPFLAGS= runs the full sweeps
# (hours: docs/ftp.md has the estimate).
FTPFLAGS ?= --quick
ftp-study: build
	$(BIN) ftp experiment $(FTPFLAGS) --out out/ftp

# cmd/parlab/default.pgo is a CPU profile of the scanner's benchmark on the
# reference query; go build uses it to inline the hot calls (hit, parseCents):
# 4% off the scan. Rerun this after changing the hot path.
pgo:
	$(GO) test -run XXX -bench '^BenchmarkScanRegion$$' -benchtime 4s -cpuprofile cmd/parlab/default.pgo ./scan
	rm -f scan.test

clean:
	rm -rf bin out
