// Package fastjson measures valyala/fastjson against encoding/json on a
// trial log of 100,000 lines (issue 46): run from the repository root
// after make run,
//
//	cd scripts/fastjson && go test -bench . -benchtime 5x -count 5
//
// It is a module of its own, so parlab does not depend on fastjson for a
// measurement; the result is in docs/experiments.md (2026-12-05).
package fastjson

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/valyala/fastjson"
)

type trial struct {
	Parameters struct {
		Strategy, Split string
		Workers         int
	} `json:"parameters"`
	Trial    int                `json:"trial"`
	Time     float64            `json:"time"`
	Phases   map[string]float64 `json:"phases"`
	Answer   string             `json:"answer"`
	DiskRead int64              `json:"disk_read"`
}

var lines [][]byte

func init() {
	src, err := os.ReadFile("../../out/trials.jsonl")
	if err != nil {
		panic("no trial log: run make run first (" + err.Error() + ")")
	}
	base := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
	for len(lines) < 100000 {
		lines = append(lines, base...)
	}
	lines = lines[:100000]
}

func BenchmarkEncodingJSON(b *testing.B) {
	for b.Loop() {
		var sum float64
		for _, l := range lines {
			var t trial
			if err := json.Unmarshal(l, &t); err != nil {
				b.Fatal(err)
			}
			sum += t.Time + t.Phases["scan"]
		}
		_ = sum
	}
}

func BenchmarkFastJSON(b *testing.B) {
	var p fastjson.Parser
	for b.Loop() {
		var sum float64
		for _, l := range lines {
			v, err := p.ParseBytes(l)
			if err != nil {
				b.Fatal(err)
			}
			var t trial
			pa := v.Get("parameters")
			t.Parameters.Strategy = string(pa.GetStringBytes("strategy"))
			t.Parameters.Split = string(pa.GetStringBytes("split"))
			t.Parameters.Workers = pa.GetInt("workers")
			t.Trial, t.Time = v.GetInt("trial"), v.GetFloat64("time")
			t.Phases = map[string]float64{}
			v.GetObject("phases").Visit(func(k []byte, x *fastjson.Value) { t.Phases[string(k)] = x.GetFloat64() })
			t.Answer = string(v.GetStringBytes("answer"))
			t.DiskRead = v.GetInt64("disk_read")
			sum += t.Time + t.Phases["scan"]
		}
		_ = sum
	}
}
