package scan

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Compile gives the Query a Go caller would build from the same words, and
// each bad value an error naming its flag.
func TestCompile(t *testing.T) {
	q, err := Compile(Text{
		Where: []string{"Region=Europe", "Units Sold>=1,5"}, Any: []string{"Country=France", "Country in (Spain,Italy)"},
		By:   []string{"Region,Country"},
		Aggs: map[string][]string{"sum": {`"Total Profit"`, "Units Sold"}, "max": {"Order Date"}, "median": {"Unit Price"}, "quantile": {"Total Profit:0.9"}},
		Sort: []string{"count:desc", "Region:ASC", "a:b"}, Limit: 3, DecimalComma: true, MaxHeld: 1 << 20,
		Types: []string{"Units Sold=number"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var want Query
	for _, w := range []string{"Region=Europe"} {
		c, _ := ParseCond(w)
		want.Filters = append(want.Filters, c)
	}
	c, _ := ParseCondDecimalComma("Units Sold>=1,5")
	want.Filters = append(want.Filters, c)
	for _, w := range []string{"Country=France", "Country in (Spain,Italy)"} {
		c, _ := ParseCond(w)
		want.Any = append(want.Any, c)
	}
	want.By, want.Sum, want.Max = []string{"Region", "Country"}, []string{"Total Profit", "Units Sold"}, []string{"Order Date"}
	want.Holistic = []Holistic{{Func: "median", Col: "Unit Price"}, {Func: "quantile", Col: "Total Profit", P: "0.9"}}
	want.Sort = []SortKey{{Col: "count", Desc: true}, {Col: "Region"}, {Col: "a:b"}}
	want.Limit, want.MaxHeld = 3, 1<<20
	want.Types, _ = ParseTypes("Units Sold=number")
	if !reflect.DeepEqual(q, want) {
		t.Errorf("Compile:\n got %+v\nwant %+v", q, want)
	}
	if q, err := Compile(Text{Aggs: map[string][]string{"sum": {"a"}}, MaxHeld: 5}); err != nil || q.MaxHeld != 0 {
		t.Errorf("MaxHeld without rows out or a holistic aggregate: %d, %v", q.MaxHeld, err)
	}

	for _, c := range []struct {
		t    Text
		flag string
		says string
	}{
		{Text{Where: []string{"Region"}}, "where", ""},
		{Text{Any: []string{"a=1", "b"}}, "any", ""},
		{Text{Any: []string{"a=1"}}, "", "two or more"},
		{Text{Aggs: map[string][]string{"sum": {`"a`}}}, "sum", ""},
		{Text{Aggs: map[string][]string{"sum": {"a,a"}}}, "", "twice"},
		{Text{Aggs: map[string][]string{"avg": {"a", ""}}}, "avg", "empty column name"},
		{Text{Aggs: map[string][]string{"quantile": {"x"}}}, "quantile", "COLUMN:P"},
		{Text{Aggs: map[string][]string{"quantile": {"x:2"}}}, "quantile", ""},
		{Text{DateFormat: []string{"%Q"}}, "date-format", ""},
		{Text{Types: []string{"a=colour"}}, "", "colour"},
		{Text{Sort: []string{"a"}}, "", "--by"},
		{Text{Limit: -1, By: []string{"a"}}, "", "negative"},
	} {
		_, err := Compile(c.t)
		var fe *FlagError
		if !errors.As(err, &fe) || fe.Flag != c.flag || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Compile(%+v): %v, want a FlagError of %q saying %q", c.t, err, c.flag, c.says)
			continue
		}
		if c.flag != "" && !strings.HasPrefix(err.Error(), "--"+c.flag+": ") {
			t.Errorf("%v: not named by its flag", err)
		}
	}
}

// A question as a command line words it, compiled once, bound to a file's
// header and scanned; the answer with its names.
func ExampleCompile() {
	csvText := []byte("Region,Country,Units Sold\nEurope,France,10\nAsia,Japan,4\nEurope,Spain,3\nEurope,France,1\n")
	q, err := Compile(Text{Where: []string{"Region=Europe", "Units Sold>1"}, By: []string{"Country"}, Aggs: map[string][]string{"sum": {"Units Sold"}}})
	if err != nil {
		panic(err)
	}
	tb, err := NewTable("sales.csv", csvText, &q)
	if err != nil {
		panic(err)
	}
	var r Result
	start, end := tb.Body()
	if err := tb.Scan(start, end, &r); err != nil {
		panic(err)
	}
	ans := Answer{Spec: tb.Spec(), Result: r}
	g := ans.Groups()
	fmt.Println(g.Header)
	for i := range g.Len() {
		fmt.Println(g.Row(nil, i, false))
	}
	// Output:
	// [Country count Units Sold]
	// [France 1 10]
	// [Spain 1 3]
}
