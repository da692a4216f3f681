package spawn

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"parlab/internal/child"
	"parlab/scan"
	"parlab/shm"
)

// The shared result region of the processes strategy: its layout, in one
// place. Every number is a little-endian uint64 (int64 where signed); every
// section starts on a 64-byte line, and every slot is a whole number of lines,
// so no two workers ever write the same cache line.
//
//	offset   size       what
//	0        64         header: magic | cursor | workers | units | jobLen | t0 |
//	                    heap (bytes of the variable part taken so far)
//	64       jobLen…    the job, child.WriteJob's encoding (paths, query, io mode,
//	                    units, assignment), padded to 64. It keeps strings'
//	                    bytes as they are, so a value or path that is not UTF-8
//	                    reaches the child unchanged (JSON would replace them)
//	W        512 · N    worker slots, one per worker:
//	                      0 marker (markerDone once everything else is written)
//	                      8 start  16 end (ns since t0, CLOCK_MONOTONIC)
//	                      24 units 32 bytes 40 rows  48 peak memory (VmHWM, bytes)
//	                      56 main (ns since t0: the child's code began)
//	                      64 msgLen  72 msg (≤ 440 B)
//	U        1024 · M   unit slots, one per unit:
//	                      0 status (0 pending, 1 done, 2 failed, 3 folded:
//	                        a whole file whose rows the worker added to its
//	                        own result, written in the slot of the last
//	                        such unit it scanned)  8 worker
//	                      16 the result's fixed part: scan.ResultSize opaque
//	                         bytes (scan.Result.AppendBinary; spawn never
//	                         looks inside)
//	                      then varOff, varLen: where the result's variable
//	                         part is in the heap (0, 0 for none)
//	                      then msgLen and msg (the rest of the slot)
//	size     varLen…    the heap: the variable parts of the units' results
//	                    (a group-by's groups, minimums and maximums of
//	                    dates or text: scan.Result.AppendVar),
//	                    one after another, each at size+varOff. It is not
//	                    mapped: a worker takes its range with an atomic add
//	                    on heap and writes it with pwrite(2), which grows
//	                    the memfd and never shrinks it, so workers writing
//	                    at once lose nothing; the parent reads it with
//	                    pread(2) once every worker has exited.
//
// cursor is the dynamic split's next unit, taken with an atomic add. t0 is the
// parent's CLOCK_MONOTONIC at the start of the run: the one clock that every
// process reads alike, so workers' times line up with the parent's.
const (
	regionMagic = 0x31304241_4C524150 // "PARLAB01"
	markerDone  = 0x4B4F4B524F57_5044 // written last by a worker that finished

	hdrMagic, hdrCursor, hdrWorkers, hdrUnits, hdrJobLen, hdrT0, hdrHeap = 0, 8, 16, 24, 32, 40, 48
	jobOff                                                               = 64

	workerSlot = 512
	wMarker    = 0
	wStart     = 8
	wEnd       = 16
	wUnits     = 24
	wBytes     = 32
	wRows      = 40
	wHWM       = 48
	wMain      = 56
	wMsgLen    = 64
	wMsg       = 72

	unitSlot = 1024
	uStatus  = 0
	uWorker  = 8
	uResult  = 16
	uVarOff  = (uResult + scan.ResultSize + 7) &^ 7
	uVarLen  = uVarOff + 8
	uMsgLen  = uVarLen + 8
	uMsg     = uMsgLen + 8

	unitPending, unitDone, unitFailed, unitFolded = 0, 1, 2, 3
)

// job is what every worker needs to know, written once by the parent.
type job struct {
	Paths    []string
	Names    []string // what messages call the files
	Seps     []byte   // their delimiters (Set.Seps)
	Added    []bool   // whether their headers are parlab's (Set.HeadAdded)
	Sizes    []int    // each file's size when the parent planned: a child checks it
	Query    scan.Query
	Mode     int
	Populate bool
	Buffer   int
	Plan     Plan
	Expect   int64 // the groups the parent's sample expects (Set.expect)
}

// layout is where the sections of a region of N workers and M units are.
type layout struct {
	workers, units, size int
	workerOff, unitOff   int
}

func newLayout(jobLen, workers, units int) layout {
	l := layout{workers: workers, units: units}
	l.workerOff = (jobOff + jobLen + 63) &^ 63
	l.unitOff = l.workerOff + workerSlot*workers
	l.size = l.unitOff + unitSlot*units
	return l
}

func (l layout) worker(w int) int { return l.workerOff + w*workerSlot }
func (l layout) unit(u int) int   { return l.unitOff + u*unitSlot }

var le = binary.LittleEndian

// writeRegion creates the region for job and fills its header.
func writeRegion(j *job, workers int, t0 int64) (*shm.Region, layout, error) {
	var buf bytes.Buffer
	if err := child.WriteJob(&buf, j); err != nil {
		return nil, layout{}, err
	}
	enc := buf.Bytes()
	l := newLayout(len(enc), workers, len(j.Plan.Units))
	r, err := shm.NewRegion(l.size)
	if err != nil {
		return nil, l, err
	}
	b := r.Bytes()
	for off, v := range map[int]uint64{hdrMagic: regionMagic, hdrWorkers: uint64(workers),
		hdrUnits: uint64(len(j.Plan.Units)), hdrJobLen: uint64(len(enc)), hdrT0: uint64(t0)} {
		le.PutUint64(b[off:], v)
	}
	copy(b[jobOff:], enc)
	return r, l, nil
}

// readRegion is the worker's side of writeRegion.
func readRegion(r *shm.Region) (*job, layout, int64, error) {
	b := r.Bytes()
	if len(b) < jobOff || le.Uint64(b[hdrMagic:]) != regionMagic {
		return nil, layout{}, 0, fmt.Errorf("shared region: bad magic")
	}
	n := int(le.Uint64(b[hdrJobLen:]))
	var j job
	if jobOff+n > len(b) {
		return nil, layout{}, 0, fmt.Errorf("shared region: job of %d bytes in %d", n, len(b))
	}
	if err := child.ReadJob(bytes.NewReader(b[jobOff:jobOff+n]), &j); err != nil {
		return nil, layout{}, 0, fmt.Errorf("shared region: job: %w", err)
	}
	l := newLayout(n, int(le.Uint64(b[hdrWorkers:])), int(le.Uint64(b[hdrUnits:])))
	if l.size > len(b) || l.units != len(j.Plan.Units) {
		return nil, l, 0, fmt.Errorf("shared region: %d bytes, layout needs %d", len(b), l.size)
	}
	return &j, l, int64(le.Uint64(b[hdrT0:])), nil
}

// putResult writes res into the unit slot b in place (AppendBinary appends
// into the slot's own capacity).
func putResult(b []byte, res *scan.Result) { res.AppendBinary(b[uResult:uResult]) }

func getResult(b []byte) (scan.Result, error) { return scan.DecodeResult(b[uResult:uVarOff]) }

// putVar writes a result's variable part into the heap of region r
// (laid out as l) and records where in the unit slot us.
func putVar(r *shm.Region, l layout, us []byte, res *scan.Result) error {
	return putHeap(r, l, us, res.AppendVar(nil), "result part")
}

// putHeap writes enc (a result's variable part, or a failed unit's
// message too long for its slot: what) into the heap of region r (laid
// out as l) and records where in the unit slot us (varOff, varLen).
func putHeap(r *shm.Region, l layout, us []byte, enc []byte, what string) error {
	if len(enc) == 0 {
		return nil
	}
	off := int(r.Add(hdrHeap, uint64(len(enc)))) - len(enc)
	for done := 0; done < len(enc); {
		n, err := unix.Pwrite(r.Fd(), enc[done:], int64(l.size+off+done))
		if err != nil {
			return fmt.Errorf("writing a %d-byte %s to the shared region: %w", len(enc), what, err)
		}
		done += n
	}
	le.PutUint64(us[uVarOff:], uint64(off))
	le.PutUint64(us[uVarLen:], uint64(len(enc)))
	return nil
}

// getVar reads back what putVar wrote for the unit slot us.
func getVar(r *shm.Region, l layout, us []byte, res *scan.Result) error {
	buf, err := getHeap(r, l, us)
	if err != nil || buf == nil {
		return err
	}
	return res.DecodeVar(buf)
}

// getHeap reads back what putHeap wrote for the unit slot us (nil for
// nothing).
func getHeap(r *shm.Region, l layout, us []byte) ([]byte, error) {
	off, n := int64(le.Uint64(us[uVarOff:])), int64(le.Uint64(us[uVarLen:]))
	if n == 0 {
		return nil, nil
	}
	if heap := int64(r.Load(hdrHeap)); off < 0 || n < 0 || off+n > heap {
		return nil, fmt.Errorf("a result part at %d+%d past the heap's %d bytes", off, n, heap)
	}
	buf := make([]byte, n)
	for done := int64(0); done < n; {
		k, err := unix.Pread(r.Fd(), buf[done:], int64(l.size)+off+done)
		if err != nil {
			return nil, fmt.Errorf("reading a result part from the shared region: %w", err)
		}
		if k == 0 {
			return nil, fmt.Errorf("a result part: the shared region ends %d bytes short", n-done)
		}
		done += int64(k)
	}
	return buf, nil
}

// putFailed marks the unit slot us failed with msg: in the slot if it
// fits, else whole in the heap (a message names a file, a column, a
// value and the flags that would read it: it may be longer than a slot),
// and cut in the slot should the heap not take it.
func putFailed(r *shm.Region, l layout, us []byte, msg string) {
	putMsg(us, uMsgLen, uMsg, unitSlot, msg)
	le.PutUint64(us[uVarOff:], 0)
	le.PutUint64(us[uVarLen:], 0)
	if len(msg) > unitSlot-uMsg {
		putHeap(r, l, us, []byte(msg), "message") // (on error: the cut one)
	}
	le.PutUint64(us[uStatus:], unitFailed)
}

// getFailed is the message putFailed wrote for the unit slot us.
func getFailed(r *shm.Region, l layout, us []byte) string {
	if b, err := getHeap(r, l, us); err == nil && b != nil {
		return string(b)
	}
	return getMsg(us, uMsgLen, uMsg, unitSlot)
}

// putMsg stores an error message (cut to fit) at lenOff, its bytes after.
func putMsg(b []byte, lenOff, msgOff, slot int, msg string) {
	n := min(len(msg), slot-msgOff)
	le.PutUint64(b[lenOff:], uint64(n))
	copy(b[msgOff:], msg[:n])
}

func getMsg(b []byte, lenOff, msgOff, slot int) string {
	n := min(int(le.Uint64(b[lenOff:])), slot-msgOff)
	return string(b[msgOff : msgOff+n])
}

// monotonic is CLOCK_MONOTONIC in ns: comparable across processes, unlike
// time.Now's monotonic reading, which counts from each process's start.
func monotonic() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}
