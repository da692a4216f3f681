package study

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The HTML report: one self-contained page (styles inline, figures as
// inline SVG, no script and nothing fetched): the setting, the best
// configuration, the figures, then what the text report has (every table,
// the warnings); a comparison table when an older document is given.
// It is parsed when first used (a report is rare; every command's start
// paid for the parse as a package initialiser).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"join": strings.Join,
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>parlab bench: {{.Query}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
p.setting { margin: 0.1em 0; color: #444; }
.best { background: #eef6ee; border-left: 4px solid #4a4; padding: 0.6em 1em; margin: 1.2em 0; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #eee; }
th { background: #f5f5f5; text-align: left; }
td.num, th.num { text-align: right; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
.warn { background: #fff6e6; border-left: 4px solid #e90; padding: 0.4em 1em; }
</style>
</head>
<body>
<h1>parlab bench: {{.Query}}</h1>
{{range .Setting}}<p class="setting">{{.}}</p>
{{end}}{{with .Best}}<div class="best" id="best">Best: <strong>{{.Config}}</strong>, {{.Median}} median, {{.Speedup}}× the sequential time, {{.Floor}}× the floor.</div>
{{end}}<section id="figures">
<h2>Figures</h2>
{{range .Figures}}<figure id="figure-{{.Name}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}</section>
{{range .Sections}}<section id="{{.ID}}" class="{{if eq .ID "warnings"}}warn{{end}}">
<h2>{{.Title}}</h2>
{{range .Intro}}<p>{{.}}</p>
{{end}}{{if .Header}}<table>
<thead><tr>{{range .Header}}<th class="{{.Class}}">{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{range .Notes}}<p>{{.}}</p>
{{end}}</section>
{{end}}</body>
</html>
`))
})

type htmlCell struct{ Text, Class string }

type htmlSection struct {
	ID, Title    string
	Intro, Notes []string
	Header       []htmlCell
	Rows         [][]htmlCell
}

type htmlFigure struct {
	Name, Caption string
	SVG           template.HTML
}

// WriteHTML writes the report as one self-contained HTML page; old, if not
// nil, adds the comparison with an older document.
func (d *Doc) WriteHTML(w io.Writer, old *Doc) error {
	secs := d.Sections()
	v := struct {
		Query    string
		Setting  []string
		Best     *struct{ Config, Median, Speedup, Floor string }
		Sections []htmlSection
		Figures  []htmlFigure
	}{Query: d.Env.Query}
	if len(secs) > 0 && secs[0].ID == "setting" {
		v.Setting, secs = paragraphs(secs[0].Intro), secs[1:]
	}
	if b := d.Best(); b != nil {
		v.Best = &struct{ Config, Median, Speedup, Floor string }{b.Config.String(), dur(b.Median), num(b.Speedup, 2), num(floorTimes(*b), 1)}
	}
	if old != nil {
		secs = append(secs, *CompareTable(d, old))
		secs[len(secs)-1].Title = "Against the older run"
	}
	for _, s := range secs {
		hs := htmlSection{ID: s.ID, Title: strings.TrimSuffix(s.Title, ":"), Intro: paragraphs(s.Intro)}
		class := func(i int) string {
			if i == 0 || slices.Contains(s.Left, i) {
				return ""
			}
			return "num"
		}
		for i, h := range s.Header {
			hs.Header = append(hs.Header, htmlCell{h, class(i)})
		}
		if hs.Title == "" {
			hs.Title = map[string]string{"results": "Results (medians)", "compare": "Comparison"}[s.ID]
		}
		hs.Notes = paragraphs(s.Notes)
		for _, r := range s.Rows {
			var row []htmlCell
			for i, c := range r {
				row = append(row, htmlCell{c, class(i)})
			}
			hs.Rows = append(hs.Rows, row)
		}
		v.Sections = append(v.Sections, hs)
	}
	names, figs := d.Figures(nil)
	for i, f := range figs {
		svg, err := f.Render("svg")
		if err != nil {
			return fmt.Errorf("figure %s: %w", names[i], err)
		}
		// the SVG element alone: drop the XML prologue
		if k := bytes.Index(svg, []byte("<svg")); k > 0 {
			svg = svg[k:]
		}
		v.Figures = append(v.Figures, htmlFigure{Name: names[i], Caption: f.Title, SVG: template.HTML(svg)})
	}
	return page().Execute(w, v)
}

// paragraphs joins the text report's lines, wrapped for a terminal, into
// the paragraphs they are, so no sentence is cut across two paragraphs of
// the page: a line that starts in lower case continues the one before,
// unless that one ended in '.' or ':' or either is a record ("machine:
// ...", "new: ...": a lower-case label and a colon).
func paragraphs(lines []string) []string {
	var out []string
	open := false // the last paragraph may go on
	for _, l := range lines {
		if l = strings.TrimSpace(l); l == "" {
			open = false
			continue
		}
		rec := record.MatchString(l)
		if open && !rec && l[0] >= 'a' && l[0] <= 'z' {
			out[len(out)-1] += " " + l
		} else {
			out = append(out, l)
		}
		open = !rec && !strings.HasSuffix(l, ".") && !strings.HasSuffix(l, ":")
	}
	return out
}

// record is a line that is a label and a value ("machine: ...").
var record = regexp.MustCompile(`^[a-z][a-z ]*:`)
