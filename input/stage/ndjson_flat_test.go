package stage

import (
	"bytes"
	"testing"
)

// joined is c's fields of the line it last converted, as convert joins
// them.
func joined(c *jsonConv) string {
	var b []byte
	for k, f := range c.fields {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	return string(b)
}

// FuzzFlatLine: every line flatLine takes, fastjson takes too, with the
// same fields, also after other lines (whose keys it remembers by place);
// the lines of the seeds that are flat are taken. A fuzz input is lines.
func FuzzFlatLine(f *testing.F) {
	for _, s := range []string{
		`{"a":"x","b":1.50,"c":true}`,
		`{ "b" : -0.5e+3 , "a" : "NA", "zz": null }`,
		`{"a":"has,comma and \"quote\""}`, `{"a":"say \"hi\""}`, `{"a":{"b":1}}`, `{"a":[1,2]}`,
		`{"a":1,}`, `{"a":01}`, `{"a":1.}`, `{"a":1.2.3}`, `{"a":nan}`, `{"a":-inf}`, `{"a":truex}`,
		`{"a":1}x`, `{}`, `{"":5}`, `{"a":"x","a":"y"}`, `{"a":null,"a":"y"}`, `{"b":1E5,"c":false}`,
		`{"a":"tab	in"}`, `{"a":"x"`, `{"a" "x"}`, `["a"]`, `{"a\u0062":1}`, `{"c.d":"top"}`,
		"{\"a\":\"x\",\"b\":1}\n{\"a\":\"y\",\"b\":2}\n{\"ab\":\"z\",\"b\":3}",
		"{\"a\\\"b\":1}\n{\"a\"b\":2}", "{\"a\":1,\"b\":2}\n{\"a\":1,\"b\"}",
	} {
		f.Add([]byte(s))
	}
	flat := map[string]bool{`{"a":"x","b":1.50,"c":true}`: true, `{ "b" : -0.5e+3 , "a" : "NA", "zz": null }`: true,
		`{}`: true, `{"":5}`: true, `{"a":"x","a":"y"}`: true, `{"b":1E5,"c":false}`: true, `{"a":"tab	in"}`: true}
	f.Fuzz(func(t *testing.T, in []byte) {
		paths := [][]string{{"a"}, {"b"}, {"c"}, {""}, {"c", "d"}, {"c.d"}, {"a\"b"}}
		fast := newJSONConv(paths, []string{"NA"}, "fuzz.ndjson")
		slow := fast.clone()
		for n, line := range bytes.Split(in, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			took := fast.flatLine(line)
			if flat[string(line)] && !took {
				t.Errorf("flatLine declines %s", line)
			}
			if err := slow.parsed(line, n+1); err != nil {
				if took {
					t.Fatalf("flatLine takes %s, fastjson: %v", line, err)
				}
				return
			}
			if !took {
				fast.parsed(line, n+1)
			}
			if got, want := joined(fast), joined(slow); got != want {
				t.Fatalf("line %d, %s: flatLine %q, fastjson %q", n+1, line, got, want)
			}
		}
	})
}

// BenchmarkFlatLine converts Sales lines (the columns of by Country with
// the two default sums), as a JSON lines input's rows are converted.
func BenchmarkFlatLine(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"Region":"Australia and Oceania","Country":"Tuvalu","Item Type":"Fruits","Sales Channel":"Offline","Order Priority":"C","Order Date":"2/20/2017","Order ID":326285970,"Ship Date":"3/31/2017","Units Sold":122,"Unit Price":9.33,"Unit Cost":6.92,"Total Revenue":1138.26,"Total Cost":844.24,"Total Profit":294.02}`),
		[]byte(`{"Region":"Sub-Saharan Africa","Country":"Democratic Republic of the Congo","Item Type":"Personal Care","Sales Channel":"Online","Order Priority":"H","Order Date":"10/8/2014","Order ID":864893041,"Ship Date":"11/1/2014","Units Sold":7676,"Unit Price":81.73,"Unit Cost":56.67,"Total Revenue":627359.48,"Total Cost":435000.92,"Total Profit":192358.56}`),
	}
	c := newJSONConv([][]string{{"Country"}, {"Total Revenue"}, {"Total Profit"}}, nil, "bench.ndjson")
	var dst []byte
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			dst, _ = c.convert(dst[:0], l, 1)
		}
	}
}
