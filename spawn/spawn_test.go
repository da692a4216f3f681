package spawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"parlab/data"
	"parlab/input"
	"parlab/internal/child"
	"parlab/internal/testrun"
	"parlab/scan"
)

// The processes strategy starts this test binary as its workers.
func TestMain(m *testing.M) {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	testrun.LessGC()
	os.Exit(m.Run())
}

func genSet(t testing.TB, rows, files int) []string {
	t.Helper()
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: rows, Files: files, Seed: 11}, false, nil); err != nil {
		t.Fatal(err)
	}
	paths, err := input.ExpandPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// quotedSet writes files whose Country fields are quoted and hold commas,
// doubled quotes and newlines, with CRLF line ends: a row split that cuts
// at a newline lands inside a quoted field, so these exercise the rescan.
// rQuotedSet is genSet's rows as R's write.csv writes them: every text
// field quoted, the numbers bare, no line end inside quotes.
func rQuotedSet(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, p := range genSet(t, 20000, 3) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var w strings.Builder
		for _, line := range strings.SplitAfter(string(b), "\n") {
			body := strings.TrimSuffix(line, "\n")
			if body == "" {
				continue
			}
			for i, f := range strings.Split(body, ",") {
				if i > 0 {
					w.WriteByte(',')
				}
				if _, err := strconv.ParseFloat(f, 64); err != nil {
					f = `"` + f + `"`
				}
				w.WriteString(f)
			}
			w.WriteByte('\n')
		}
		q := p + ".R.csv"
		if err := os.WriteFile(q, []byte(w.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, q)
	}
	return out
}

func quotedSet(t testing.TB) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for f := range 3 {
		var b strings.Builder
		b.WriteString("Region,Country,Total Revenue,Total Profit\r\n")
		for i := range 400 {
			region := []string{"Europe", "Asia", "\"Europe\""}[i%3]
			country := fmt.Sprintf("\"Land %d,\r\n with \"\"quotes\"\"\n and\nlines\"", i)
			if i%5 == 0 {
				country = "Plain"
			}
			fmt.Fprintf(&b, "%s,%s,%d.%02d,-%d.5\r\n", region, country, i*7+f, i%100, i)
			if i%50 == 0 {
				b.WriteString("\r\n") // a blank line now and then
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("q%d.csv", f))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// harness is the processes strategy with its workers run in-process
// (Processes.inProcess): the full matrices run it; real children run at
// fewer points, and in every way a child can fail.
var harness = Processes{inProcess: true}

// mpiLocal{2}: the mpi strategy, two in-process ranks (see mpi_test.go).
var parallel = []Strategy{Goroutines{}, harness, Processes{}, mpiLocal{2}}

// isReal tells whether st starts real child processes.
func isReal(st Strategy) bool {
	p, ok := st.(Processes)
	return ok && !p.inProcess
}

// underShort is st for a matrix's way: under -short (the race run, where
// a real child is a race-built test binary, a second to start, and out of
// the detector's sight) real children are replaced by the harness, which
// runs their code in this process, where the detector sees it.
func underShort(st Strategy) Strategy {
	if isReal(st) && testing.Short() {
		return harness
	}
	return st
}

// workersOf is how many workers st runs for n: n a rank for mpi.
func workersOf(st Strategy, n int) int {
	if m, ok := st.(mpiLocal); ok {
		return n * m.ranks
	}
	return n
}

// stName is st's name, the harness marked.
func stName(st Strategy) string {
	if p, ok := st.(Processes); ok && p.inProcess {
		return st.Name() + "(in-process)"
	}
	return st.Name()
}

func cfg(paths []string, st Split, workers int) Config {
	return Config{Paths: paths, Query: scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}},
		Mode: input.Mmap, Opt: input.Options{Populate: true}, Workers: workers, Split: st, Chunk: 64 << 10,
		Timeout: time.Minute}
}

// One tester, every strategy: the same answer, digit for digit, for every
// split and worker count, as the sequential scan.
func TestStrategiesAgree(t *testing.T) {
	sets := map[string][]string{"generated": genSet(t, 30000, 7), "quoted": quotedSet(t), "R": rQuotedSet(t)}
	for name, paths := range sets {
		want, err := Sequential{}.Run(context.Background(), cfg(paths, SplitFile, 1))
		if err != nil {
			t.Fatal(err)
		}
		if want.Result.Matched == 0 {
			t.Fatalf("%s: nothing matched", name)
		}
		rescans := 0
		for _, st := range parallel {
			for _, split := range []Split{SplitFileNaive, SplitFile, SplitRows, SplitDynamic} {
				workers := []int{1, 2, 3, 8, 64}
				if isReal(st) {
					workers = []int{1, 3}
				}
				if isReal(st) && testing.Short() {
					continue // the harness ran these in-process
				}
				for _, n := range workers {
					label := fmt.Sprintf("%s %s %s %d", name, stName(st), split, n)
					got, err := st.Run(context.Background(), cfg(paths, split, n))
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					if !got.Result.Equal(&want.Result) {
						t.Fatalf("%s: %+v, want %+v", label, got.Result, want.Result)
					}
					if len(got.PerWorker) != workersOf(st, n) {
						t.Fatalf("%s: %d worker stats", label, len(got.PerWorker))
					}
					var rows int64
					for _, w := range got.PerWorker {
						rows += w.Rows
					}
					if len(got.Rescanned) == 0 && rows != want.Result.Rows {
						t.Errorf("%s: workers counted %d rows, want %d", label, rows, want.Result.Rows)
					}
					rescans += len(got.Rescanned)
				}
			}
		}
		if name == "quoted" && rescans == 0 {
			t.Error("no row split of the quoted set cut a quoted field: the rescan went untested")
		}
		if name == "R" && rescans != 0 {
			t.Errorf("%d rescans of a set whose quoted fields hold no line end: every cut was a row start", rescans)
		}
	}
}

func TestPlans(t *testing.T) {
	paths := genSet(t, 20000, 20)
	set, err := Open(paths, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, input.Mmap, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	count := func(p *Plan) []int {
		var n []int
		for _, a := range p.Assign {
			n = append(n, len(a))
		}
		return n
	}
	// The reference's naive split: 20 files over 8 workers gives 2 each and
	// the last worker 6.
	p, _ := NewPlan(set, SplitFileNaive, 8, 0)
	if got := fmt.Sprint(count(p)); got != "[2 2 2 2 2 2 2 6]" {
		t.Errorf("file-naive 8: %s", got)
	}
	p, _ = NewPlan(set, SplitFile, 8, 0)
	if got := fmt.Sprint(count(p)); got != "[2 3 2 3 2 3 2 3]" {
		t.Errorf("file 8: %s", got)
	}
	p, _ = NewPlan(set, SplitFileNaive, 30, 0)
	if got := count(p); got[29] != 20 || got[0] != 0 {
		t.Errorf("file-naive 30: %v", got)
	}
	// Row and dynamic splits cover every body byte exactly once, at row
	// starts once the worker has moved the ends (Set.rows; the row split
	// cuts there already), and never hand out an empty unit.
	for _, split := range []Split{SplitRows, SplitDynamic} {
		for _, n := range []int{1, 3, 8, 64} {
			p, err := NewPlan(set, split, n, 16<<10)
			if err != nil {
				t.Fatal(err)
			}
			next := map[int]int{}
			for _, u := range p.Units {
				a, _ := set.Tables[u.File].Body()
				if _, ok := next[u.File]; !ok {
					next[u.File] = a
				}
				d := set.Files[u.File].Bytes()
				if u.Start != next[u.File] || u.End <= u.Start {
					t.Fatalf("%s %d: unit %+v does not continue at %d", split, n, u, next[u.File])
				}
				if s, e, _ := set.rows(u); d[s-1] != '\n' || (e < len(d) && d[e-1] != '\n') || (split == SplitRows && (s != u.Start || e != u.End)) {
					t.Fatalf("%s %d: unit %+v covers rows %d..%d", split, n, u, s, e)
				}
				next[u.File] = u.End
			}
			for f := range set.Tables {
				if _, b := set.Tables[f].Body(); next[f] != b {
					t.Fatalf("%s %d: file %d covered to %d of %d", split, n, f, next[f], b)
				}
			}
			if split == SplitRows {
				seen := map[int]bool{}
				for _, a := range p.Assign {
					for _, i := range a {
						if seen[i] {
							t.Fatalf("unit %d assigned twice", i)
						}
						seen[i] = true
					}
				}
				if len(seen) != len(p.Units) {
					t.Fatalf("%d of %d units assigned", len(seen), len(p.Units))
				}
			}
		}
	}
	if _, err := NewPlan(set, SplitRows, 0, 0); err == nil {
		t.Error("0 workers: no error")
	}
}

// More workers than work: the extra ones get nothing, say so, and do not
// fail.
func TestIdleWorkers(t *testing.T) {
	paths := genSet(t, 100, 2)
	for _, st := range parallel {
		if isReal(st) && testing.Short() {
			continue // the race run: the harness runs their code in-process
		}
		rep, err := st.Run(context.Background(), cfg(paths, SplitFile, 5))
		if err != nil {
			t.Fatalf("%s: %v", st.Name(), err)
		}
		idle := 0
		for _, w := range rep.PerWorker {
			if w.Units == 0 {
				idle++
			}
		}
		if idle != workersOf(st, 5)-2 || rep.Result.Rows != 100 {
			t.Errorf("%s: %d idle workers, %d rows", st.Name(), idle, rep.Result.Rows)
		}
	}
}

func openFds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func mappings(t *testing.T, dir string) int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), dir) + strings.Count(string(b), "parlab-results")
}

// hangTimeout is the run's timeout where a child hangs: long enough for
// the others to start and finish (a race-built child takes up to a
// second to start).
func hangTimeout() time.Duration {
	if raceBuild {
		return 3 * time.Second
	}
	return 300 * time.Millisecond
}

// A child that exits, is killed, or hangs fails the whole query with an
// error that names it and the cause; nothing leaks, failed or not.
func TestWorkerFailures(t *testing.T) {
	testrun.FullRunOnly(t, "real worker processes fail")
	paths := genSet(t, 5000, 4)
	dir := filepath.Dir(paths[0])
	fds, maps := openFds(t), mappings(t, dir)
	tests := []struct {
		fp, want string
	}{
		{"child-exit:1", "worker 1 (pid "},
		{"child-exit:1", "exited with status 3"},
		{"child-kill:0", "was killed by signal 9 (killed)"},
		{"child-hang:2", "worker 2 (pid "},
		{"child-hang:2", "was killed: the run did not finish within the timeout (" + hangTimeout().String() + ")"},
		{"child-exit:0,child-kill:2", "and 1 more workers failed"},
	}
	for _, tt := range tests {
		t.Setenv(FailpointEnv, tt.fp)
		c := cfg(paths, SplitDynamic, 3)
		c.Timeout = time.Minute // (a loaded machine must not turn an exit or a kill into a timeout)
		if strings.Contains(tt.fp, "hang") {
			c.Timeout = hangTimeout()
		}
		rep, err := Processes{}.Run(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), tt.want) || rep != nil {
			t.Errorf("%s: error %v, want %q and no report", tt.fp, err, tt.want)
		}
		child.Reaped(t)
	}
	os.Unsetenv(FailpointEnv)
	if _, err := (Processes{}).Run(context.Background(), cfg(paths, SplitRows, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := (Goroutines{}).Run(context.Background(), cfg(paths, SplitRows, 3)); err != nil {
		t.Fatal(err)
	}
	child.Reaped(t)
	if got := openFds(t); got != fds {
		t.Errorf("%d open fds after the runs, %d before", got, fds)
	}
	if got := mappings(t, dir); got != maps {
		t.Errorf("%d data or region mappings after the runs, %d before", got, maps)
	}
}

// Bad data fails every strategy with the error the sequential scan gives,
// at the same file, line and column, also when a row split cut the file.
func TestBadDataSameError(t *testing.T) {
	paths := genSet(t, 3000, 3)
	b, _ := os.ReadFile(paths[1])
	lines := strings.SplitAfter(string(b), "\n")
	for i := 200; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "Europe,") {
			f := strings.Split(lines[i], ",")
			f[11] = "12x.50"
			lines[i] = strings.Join(f, ",")
			break
		}
	}
	os.WriteFile(paths[1], []byte(strings.Join(lines, "")), 0o644)
	_, want := Sequential{}.Run(context.Background(), cfg(paths, SplitFile, 1))
	var pe *scan.ParseError
	if !errors.As(want, &pe) || pe.File != paths[1] {
		t.Fatalf("sequential: %v", want)
	}
	for _, st := range parallel {
		if isReal(st) && testing.Short() {
			continue // the race run: the harness runs their code in-process
		}
		for _, split := range []Split{SplitFile, SplitRows, SplitDynamic} {
			rep, err := st.Run(context.Background(), cfg(paths, split, 4))
			if err == nil || rep != nil || !strings.Contains(err.Error(), want.Error()) {
				t.Errorf("%s %s: %v, want %v", st.Name(), split, err, want)
			}
		}
	}
}

func TestFloorCountsLines(t *testing.T) {
	paths := genSet(t, 5000, 3)
	for _, split := range []Split{SplitFile, SplitRows, SplitDynamic} {
		rep, err := Floor{}.Run(context.Background(), cfg(paths, split, 3))
		if err != nil || rep.Result.Rows != 5000 {
			t.Errorf("%s: %v, %d lines; want 5000 (the body's)", split, err, rep.Result.Rows)
		}
	}
}

// A file that changes between the parent's planning and a child's mapping
// fails the run, naming the file, instead of scanning stale offsets.
func TestFileChangedUnderChildren(t *testing.T) {
	paths := genSet(t, 2000, 2)
	set, err := Open(paths, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, input.Mmap, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The file split: worker 0 has file 0, worker 1 file 1.
	plan, _ := NewPlan(set, SplitFile, 2, 0)
	j := &job{Paths: paths, Sizes: []int{len(set.Files[0].Bytes()) + 1, len(set.Files[1].Bytes())},
		Query: set.Query, Mode: int(input.Mmap), Plan: *plan}
	set.Close()
	region, l, err := writeRegion(j, 2, monotonic())
	if err != nil {
		t.Fatal(err)
	}
	defer region.Close()
	exe, _ := os.Executable()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	run := func(w int) (int, string) {
		pid, err := syscall.ForkExec(exe, []string{exe, WorkerArg, strconv.Itoa(w)}, &syscall.ProcAttr{
			Env: os.Environ(), Files: []uintptr{devnull.Fd(), devnull.Fd(), os.Stderr.Fd(), uintptr(region.Fd())}})
		if err != nil {
			t.Fatal(err)
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		return ws.ExitStatus(), getMsg(region.Bytes()[l.worker(w):], wMsgLen, wMsg, workerSlot)
	}
	if code, msg := run(0); code != 1 || !strings.Contains(msg, "changed size") || !strings.Contains(msg, paths[0]) {
		t.Errorf("worker 0: exit %d, message %q", code, msg)
	}
	// A worker opens only the files of its own units: file 0's size is
	// not worker 1's concern.
	if code, msg := run(1); code != 0 || msg != "" || region.Load(l.worker(1)+wMarker) != markerDone {
		t.Errorf("worker 1: exit %d, message %q", code, msg)
	}
}

// A file truncated while it is mapped raises SIGBUS on the next touch of a
// page past its new end; the scan reports that as an error naming the file,
// not as a crash and never as a total.
// So does a worker's population of its unit (input.File.Populate reads a
// byte of every page).
func TestTruncatedWhileMapped(t *testing.T) {
	for _, populate := range []bool{false, true} {
		paths := genSet(t, 20000, 1)
		set, err := OpenLazy(paths, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, input.Mmap, input.Options{Populate: populate})
		if err != nil {
			t.Fatal(err)
		}
		defer set.Close()
		if err := os.Truncate(paths[0], 4096); err != nil {
			t.Fatal(err)
		}
		var r scan.Result
		err = set.scanUnit(context.Background(), set.WholeFile(0), &r)
		if err == nil || !errors.Is(err, input.ErrFault) || !strings.Contains(err.Error(), paths[0]) {
			t.Fatalf("populate %v: scan of a truncated mapping: %v", populate, err)
		}
	}
}

func TestUnstartableWorker(t *testing.T) {
	paths := genSet(t, 100, 2)
	c := cfg(paths, SplitFile, 3)
	c.Exe = filepath.Join(t.TempDir(), "no-such-parlab")
	rep, err := Processes{}.Run(context.Background(), c)
	if err == nil || rep != nil || !strings.Contains(err.Error(), "starting worker 0") {
		t.Errorf("err %v", err)
	}
	child.Reaped(t)
}

// A real child's phases line up on one clock: the parent's ForkExec call
// (Launched, Fork), the child's main (after the exec and the Go runtime's
// start), its scan's start and end; ChildStart and ChildSetup are the
// steps between. Report.Child names the binary started.
func TestChildPhases(t *testing.T) {
	testrun.FullRunOnly(t, "real worker processes")
	paths := genSet(t, 3000, 2)
	rep, err := Processes{}.Run(context.Background(), Config{Paths: paths, Query: scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}},
		Workers: 2, Split: SplitRows, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Child == "" {
		t.Error("no child binary named")
	}
	for w, s := range rep.PerWorker {
		// (not Main after Launched+Fork: the workers start side by side,
		// and a parent's goroutine may resume from its ForkExec call after
		// its child, started, has reached main: see WorkerStat.ChildStart)
		if s.Fork <= 0 || s.Launched < 0 || s.Main <= s.Launched || s.Start < s.Main || s.End < s.Start ||
			s.ChildSetup() < 0 {
			t.Errorf("worker %d: launched %v, fork %v, main %v, start %v, end %v", w, s.Launched, s.Fork, s.Main, s.Start, s.End)
		}
	}
	child.Reaped(t)
}
