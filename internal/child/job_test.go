package child

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

type jobPart struct {
	K, N int32
	Name string
}

type jobKind int

// testJob has a field of every kind the codec carries, nested as the real
// jobs nest them (spawn's job and rankPart, ftp's childConfig, the load
// client's job).
type testJob struct {
	Paths  []string
	Ok     bool
	N      int
	I8     int8
	U      uint64
	U16    uint16
	D      time.Duration
	Kind   jobKind
	Raw    []byte
	Chain  [][]byte
	Users  map[string][]byte
	Expect map[string]string
	ByNum  map[int]string
	Parts  []jobPart
	Assign [][]int
	One    jobPart
	Empty  []string
}

func fullJob() testJob {
	return testJob{
		Paths: []string{"a.csv", "b\xff\xfe.csv", ""}, Ok: true, N: -1 << 40, I8: -128, U: 1<<64 - 1, U16: 65535,
		D: -3 * time.Second, Kind: 7, Raw: []byte{0, 1, 255}, Chain: [][]byte{{1}, nil, {2, 3}},
		Users:  map[string][]byte{"ann": []byte("$2a$hash"), "bob": {0xff}},
		Expect: map[string]string{"f": "x", "": "empty key"}, ByNum: map[int]string{-1: "m", 3: "t"},
		Parts: []jobPart{{K: 1, N: 2, Name: "p"}, {K: -1}}, Assign: [][]int{{0, 2}, nil, {1}},
		One: jobPart{K: 5, N: 6, Name: "one"},
	}
}

func TestJobRoundTrip(t *testing.T) {
	in := fullJob()
	var buf bytes.Buffer
	if err := WriteJob(&buf, &in); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("after") // ReadJob must take the job's bytes and no more
	var out testJob
	if err := ReadJob(&buf, &out); err != nil {
		t.Fatal(err)
	}
	want := fullJob()
	if !reflect.DeepEqual(out, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, want)
	}
	if rest, _ := io.ReadAll(&buf); string(rest) != "after" {
		t.Errorf("ReadJob left %q of the stream, want \"after\"", rest)
	}
	// A map's order does not change the bytes.
	var a, b bytes.Buffer
	WriteJob(&a, fullJob())
	WriteJob(&b, fullJob())
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two encodings of one job differ")
	}
}

func TestJobErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJob(&buf, struct{ F float64 }{1}); err == nil || !strings.Contains(err.Error(), "F") {
		t.Errorf("a float field: %v, want an error naming it", err)
	}
	if err := WriteJob(&buf, struct{ P *int }{}); err == nil {
		t.Error("a pointer field: no error")
	}
	// unexported fields are refused, never left behind: time.Time's are
	if err := WriteJob(&buf, struct{ When time.Time }{time.Now()}); err == nil || !strings.Contains(err.Error(), "When") {
		t.Errorf("a time.Time field: %v, want an error naming it", err)
	}
	var hidden struct{ n int }
	if err := ReadJob(bytes.NewReader([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0}), &hidden); err == nil {
		t.Error("ReadJob into a struct with an unexported field: no error")
	}
	if buf.Len() != 0 {
		t.Errorf("a refused job wrote %d bytes", buf.Len())
	}
	WriteJob(&buf, fullJob())
	good := buf.Bytes()

	var other struct{ Paths []string }
	if err := ReadJob(bytes.NewReader(good), &other); !errors.Is(err, ErrJob) || !strings.Contains(err.Error(), "another type") {
		t.Errorf("read as another type: %v", err)
	}
	var out testJob
	if err := ReadJob(bytes.NewReader(good), out); !errors.Is(err, ErrJob) {
		t.Errorf("not a pointer: %v", err)
	}
	for cut := 0; cut < len(good); cut++ {
		if err := ReadJob(bytes.NewReader(good[:cut]), &out); !errors.Is(err, ErrJob) {
			t.Fatalf("cut at %d of %d: %v, want ErrJob", cut, len(good), err)
		}
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
	if err := ReadJob(bytes.NewReader(huge), &out); !errors.Is(err, ErrJob) || !strings.Contains(err.Error(), "length") {
		t.Errorf("a length of 4 GiB: %v", err)
	}
}

// FuzzReadJob: any bytes decode to a job or fail with ErrJob, without a
// panic or an allocation larger than the input; a job that decodes
// encodes to bytes that decode to the same job.
func FuzzReadJob(f *testing.F) {
	var buf bytes.Buffer
	WriteJob(&buf, fullJob())
	f.Add(buf.Bytes())
	buf.Reset()
	WriteJob(&buf, testJob{})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		var j testJob
		err := ReadJob(bytes.NewReader(b), &j)
		if err != nil {
			if !errors.Is(err, ErrJob) {
				t.Fatalf("an error not ErrJob: %v", err)
			}
			return
		}
		var again bytes.Buffer
		if err := WriteJob(&again, &j); err != nil {
			t.Fatal(err)
		}
		var k testJob
		if err := ReadJob(&again, &k); err != nil || !reflect.DeepEqual(j, k) {
			t.Fatalf("re-encoded: %v\n%+v\n%+v", err, j, k)
		}
	})
}
