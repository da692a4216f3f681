package spawn

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"golang.org/x/sys/unix"

	"parlab/scan"
	"parlab/shm"
)

// The shared result region of the processes strategy: its layout, in one
// place. Every number is a little-endian uint64 (int64 where signed); every
// section starts on a 64-byte line, and every slot is a whole number of lines,
// so no two workers ever write the same cache line.
//
//	offset   size       what
//	0        64         header: magic | cursor | workers | units | jobLen | t0
//	64       jobLen…    the job, JSON (paths, query, io mode, units, assignment),
//	                    padded to 64
//	W        512 · N    worker slots, one per worker:
//	                      0 marker (markerDone once everything else is written)
//	                      8 start  16 end (ns since t0, CLOCK_MONOTONIC)
//	                      24 units 32 bytes 40 rows  48 msgLen  56 msg (≤ 456 B)
//	U        512 · M    unit slots, one per unit:
//	                      0 status (0 pending, 1 done, 2 failed)  8 worker
//	                      16 rows 24 matched 32 quoted
//	                      40 sums: 8 × (value, scale)
//	                      168 msgLen  176 msg (≤ 336 B)
//
// cursor is the dynamic split's next unit, taken with an atomic add. t0 is the
// parent's CLOCK_MONOTONIC at the start of the run: the one clock that every
// process reads alike, so workers' times line up with the parent's.
const (
	regionMagic = 0x31304241_4C524150 // "PARLAB01"
	markerDone  = 0x4B4F4B524F57_5044 // written last by a worker that finished

	hdrMagic, hdrCursor, hdrWorkers, hdrUnits, hdrJobLen, hdrT0 = 0, 8, 16, 24, 32, 40
	jobOff                                                      = 64

	workerSlot = 512
	wMarker    = 0
	wStart     = 8
	wEnd       = 16
	wUnits     = 24
	wBytes     = 32
	wRows      = 40
	wMsgLen    = 48
	wMsg       = 56

	unitSlot = 512
	uStatus  = 0
	uWorker  = 8
	uRows    = 16
	uMatched = 24
	uQuoted  = 32
	uSums    = 40
	uMsgLen  = uSums + 16*scan.MaxSums
	uMsg     = uMsgLen + 8

	unitPending, unitDone, unitFailed = 0, 1, 2
)

// job is what every worker needs to know, written once by the parent.
type job struct {
	Paths    []string
	Sizes    []int // each file's size when the parent planned: a child checks it
	Query    scan.Query
	Mode     int
	Populate bool
	Plan     Plan
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
	enc, err := json.Marshal(j)
	if err != nil {
		return nil, layout{}, err
	}
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
	if err := json.Unmarshal(b[jobOff:jobOff+n], &j); err != nil {
		return nil, layout{}, 0, fmt.Errorf("shared region: job: %w", err)
	}
	l := newLayout(n, int(le.Uint64(b[hdrWorkers:])), int(le.Uint64(b[hdrUnits:])))
	if l.size > len(b) || l.units != len(j.Plan.Units) {
		return nil, l, 0, fmt.Errorf("shared region: %d bytes, layout needs %d", len(b), l.size)
	}
	return &j, l, int64(le.Uint64(b[hdrT0:])), nil
}

func putResult(b []byte, res *scan.Result) {
	le.PutUint64(b[uRows:], uint64(res.Rows))
	le.PutUint64(b[uMatched:], uint64(res.Matched))
	le.PutUint64(b[uQuoted:], uint64(res.Quoted))
	for i, s := range res.Sums {
		le.PutUint64(b[uSums+16*i:], uint64(s.V))
		le.PutUint64(b[uSums+16*i+8:], uint64(s.Scale))
	}
}

func getResult(b []byte) scan.Result {
	var res scan.Result
	res.Rows = int64(le.Uint64(b[uRows:]))
	res.Matched = int64(le.Uint64(b[uMatched:]))
	res.Quoted = int64(le.Uint64(b[uQuoted:]))
	for i := range res.Sums {
		res.Sums[i].V = int64(le.Uint64(b[uSums+16*i:]))
		res.Sums[i].Scale = int64(le.Uint64(b[uSums+16*i+8:]))
	}
	return res
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
