package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"parlab/bench"
	"parlab/bench/figure"
	"parlab/ftp/load"
)

// group is one sweep with one think time: its runs by server and point.
type group struct {
	sweep string
	think time.Duration
	runs  []Sample
}

func (d *Doc) groups() []group {
	var out []group
	for _, r := range d.Runs {
		i := slices.IndexFunc(out, func(g group) bool { return g.sweep == r.Point.Sweep && g.think == r.Point.Think })
		if i < 0 {
			out = append(out, group{sweep: r.Point.Sweep, think: r.Point.Think})
			i = len(out) - 1
		}
		out[i].runs = append(out[i].runs, r)
	}
	return out
}

var paramName = map[string]string{"backlog": "backlog", "users": "users", "delay": "delay ms", "idle": "idle sessions"}

func (g group) title() string {
	t := map[string]string{"backlog": "Sweep 1, the listen backlog", "users": "Sweep 2, the number of users",
		"delay": "Sweep 3, the delay between arrivals", "idle": "C10K: idle sessions held"}[g.sweep]
	if g.sweep == "idle" {
		return t
	}
	if g.think > 0 {
		return fmt.Sprintf("%s, with %v think time a command", t, g.think)
	}
	return t + ", no think time (loopback)"
}

// others counts a run's sessions classified "other reply" or "other
// error" by what the server said or the error was (Client.Detail), so
// that none is left unexplained; nil if there are none.
func others(res *load.Result) map[string]int {
	var m map[string]int
	for _, c := range res.Clients {
		if c.Outcome == load.OtherReply || c.Outcome == load.OtherError {
			if m == nil {
				m = map[string]int{}
			}
			m[c.Outcome+": "+c.Detail]++
		}
	}
	return m
}

// failures is a run's failed sessions by cause, "-" for none.
func failures(s load.Summary) (int, string) {
	n := 0
	var parts []string
	for _, o := range load.Outcomes {
		if o == load.OK || s.ByOutcome[o] == 0 {
			continue
		}
		n += s.ByOutcome[o]
		parts = append(parts, fmt.Sprintf("%s %d", o, s.ByOutcome[o]))
	}
	if n == 0 {
		return 0, "-"
	}
	return n, strings.Join(parts, ", ")
}

// Tables are the report: a table per sweep and think time (server × point:
// processed time, ok, failed by cause, p99 session and connect), the
// kernel's counters per run, and the users sweep's upper bounds.
func (d *Doc) Tables() []bench.Table {
	var out []bench.Table
	for _, g := range d.groups() {
		if g.sweep == "idle" {
			out = append(out, idleTable(g))
			continue
		}
		p := g.runs[0].Point
		t := bench.Table{ID: g.sweep + map[bool]string{true: "-think", false: ""}[g.think > 0], Title: g.title(),
			Intro: []string{fmt.Sprintf("Each server started fresh for each point; %d users unless the sweep varies them, %v apart, script %s. Times in seconds; processed is the reference's metric, first connect to last end. vsftpd's listen backlog is fixed at 32 whatever the point says.",
				p.Users, p.Delay, p.Script)},
			Header: []string{"server", paramName[g.sweep], "processed", "ok", "failed", "failures by cause", "p99 session", "p99 connect", "sessions/s"},
			Left:   []int{5}}
		for _, r := range g.runs {
			row := []string{r.Server, fmt.Sprintf("%g", r.Point.Value)}
			if r.Err != "" {
				row = append(row, "-", "-", "-", "run failed: "+r.Err, "-", "-", "-")
			} else {
				s := r.Summary
				n, causes := failures(s)
				row = append(row, fmt.Sprintf("%.2f", s.Processed.Seconds()), fmt.Sprint(s.ByOutcome[load.OK]), fmt.Sprint(n), causes,
					fmt.Sprintf("%.3f", s.Session.P99), fmt.Sprintf("%.3f", s.Connect.P99), fmt.Sprintf("%.1f", s.SessionsPerSecond))
			}
			if r.Note != "" {
				row[5] += " (" + r.Note + ")"
			}
			t.Rows = append(t.Rows, row)
		}
		if g.sweep == "users" {
			t.Notes = append(t.Notes, d.bounds(g)...)
		}
		out = append(out, t)
		for _, peer := range d.Config.Peers {
			if t, ok := d.against(g, peer); ok {
				out = append(out, t)
			}
		}
	}
	k := bench.Table{ID: "kernel", Title: "The kernel's listen-queue counters over each run (/proc/net/netstat, TcpExt; changes)",
		Header: append([]string{"server", "sweep", "value", "think"}, load.Counters...)}
	for _, r := range d.Runs {
		if r.Result == nil || r.Result.Kernel == nil {
			continue
		}
		row := []string{r.Server, r.Point.Sweep, fmt.Sprintf("%g", r.Point.Value), r.Point.Think.String()}
		for _, c := range load.Counters {
			row = append(row, fmt.Sprint(r.Result.Kernel[c]))
		}
		k.Rows = append(k.Rows, row)
	}
	if len(k.Rows) > 0 {
		out = append(out, k)
	}
	o := bench.Table{ID: "others", Title: "Sessions classified other, by what the server said or the error was",
		Header: []string{"server", "sweep", "value", "think", "sessions", "reply or error"}, Left: []int{5}}
	for _, r := range d.Runs {
		if r.Result == nil {
			continue
		}
		m := others(r.Result)
		for _, what := range slices.Sorted(maps.Keys(m)) {
			o.Rows = append(o.Rows, []string{r.Server, r.Point.Sweep, fmt.Sprintf("%g", r.Point.Value), r.Point.Think.String(), fmt.Sprint(m[what]), what})
		}
	}
	if len(o.Rows) > 0 {
		out = append(out, o)
	}
	if len(d.Notes) > 0 {
		out = append(out, bench.Table{ID: "notes", Title: "Notes", Intro: d.Notes})
	}
	return out
}

// idleTable is the idle sweep's table: per server and N, how many logged
// in and how long that took, the server's memory and tasks per session,
// and the fresh sessions' times while the N were held.
func idleTable(g group) bench.Table {
	t := bench.Table{ID: "idle", Title: g.title(),
		Intro:  []string{"N sessions log in (16 dialing goroutines; then only their sockets hold them) and are held 2 s; the server's process tree is measured meanwhile (the sum of PSS, its processes' threads), above its own before the run, and fresh sessions (login, RETR of a small file, QUIT) are timed one after another. Each server fresh for each N; a server that fails to log every session in at some N is not run at larger ones (the notes say why)."},
		Header: []string{"server", "N", "logged in", "connect N, s", "PSS per session, KB", "tasks per session", "fresh p50, ms", "fresh p99, ms", "fresh failed", "not logged in"},
		Left:   []int{9}}
	for _, r := range g.runs {
		row := []string{r.Server, fmt.Sprintf("%g", r.Point.Value)}
		if r.Idle == nil {
			t.Rows = append(t.Rows, append(row, "-", "-", "-", "-", "-", "-", "-", "run failed: "+r.Err))
			continue
		}
		i := r.Idle
		pss, tasks := i.PerSession()
		why := idleCauses(i.Failed)
		if why == "" {
			why = "-"
		}
		t.Rows = append(t.Rows, append(row, fmt.Sprint(i.LoggedIn), fmt.Sprintf("%.2f", i.Connect.Seconds()), fmt.Sprintf("%.1f", pss/1024),
			fmt.Sprintf("%.2f", tasks), fmt.Sprintf("%.2f", ms(i.FreshP50)), fmt.Sprintf("%.2f", ms(i.FreshP99)), fmt.Sprint(i.FreshFailed), why))
	}
	return t
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// against is the load lab's target at each point of g, for each of
// parlab's servers against the outside server peer: where peer failed no
// session in any trial, the server failed none either, and the median over
// the trials of its p99 session time is at most peer's. (A run that could
// not be made counts as failed.) ok is false if peer did not run in g.
func (d *Doc) against(g group, peer string) (bench.Table, bool) {
	type cell struct {
		failed int
		p99    []float64
	}
	cells := map[string]map[float64]*cell{}
	var values []float64
	for _, r := range g.runs {
		if cells[r.Server] == nil {
			cells[r.Server] = map[float64]*cell{}
		}
		c := cells[r.Server][r.Point.Value]
		if c == nil {
			c = &cell{}
			cells[r.Server][r.Point.Value] = c
		}
		if !slices.Contains(values, r.Point.Value) {
			values = append(values, r.Point.Value)
		}
		if r.Err != "" {
			c.failed++
			continue
		}
		n, _ := failures(r.Summary)
		c.failed += n
		c.p99 = append(c.p99, r.Summary.Session.P99)
	}
	if cells[peer] == nil {
		return bench.Table{}, false
	}
	t := bench.Table{ID: "target-" + g.sweep + map[bool]string{true: "-think", false: ""}[g.think > 0],
		Title:  g.title() + ": against " + peer + ", point by point",
		Intro:  []string{fmt.Sprintf("The target: where %s fails no session, a server fails none and its p99 session time, the median over the trials, is at most %s's. Failed sessions are summed over the trials.", peer, peer)},
		Header: []string{"server", paramName[g.sweep], "trials", "failed", peer + " failed", "p99 session", peer + " p99", "ratio", "meets"},
		Left:   []int{8}}
	med := func(v []float64) float64 {
		if len(v) == 0 {
			return math.NaN()
		}
		m, _, _ := bench.MedianCI(v)
		return m
	}
	for _, srv := range d.servers() {
		if srv == peer || slices.Contains(d.Config.Peers, srv) || cells[srv] == nil {
			continue
		}
		met, points := 0, 0
		for _, v := range values {
			c, pc := cells[srv][v], cells[peer][v]
			if c == nil || pc == nil {
				continue
			}
			p, pp := med(c.p99), med(pc.p99)
			verdict := "yes"
			switch {
			case pc.failed > 0:
				verdict = "- (" + peer + " failed)"
			case c.failed > 0:
				verdict = "no: failures"
			case !(p <= pp):
				verdict = "no: p99 above"
			}
			if pc.failed == 0 {
				points++
				if verdict == "yes" {
					met++
				}
			}
			t.Rows = append(t.Rows, []string{srv, fmt.Sprintf("%g", v), fmt.Sprint(len(c.p99)), fmt.Sprint(c.failed), fmt.Sprint(pc.failed),
				fmt.Sprintf("%.3f", p), fmt.Sprintf("%.3f", pp), fmt.Sprintf("%.2f", p/pp), verdict})
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s meets %s at %d of the %d points where %s failed no session.", srv, peer, met, points, peer))
	}
	return t, len(t.Rows) > 0
}

// bounds are the users sweep's upper bound per server: the most users
// served with no failure and a processed time within 30 s.
func (d *Doc) bounds(g group) []string {
	best := map[string]float64{}
	var order []string
	for _, r := range g.runs {
		if !slices.Contains(order, r.Server) {
			order = append(order, r.Server)
		}
		if r.Err != "" {
			continue
		}
		if n, _ := failures(r.Summary); n == 0 && r.Summary.Processed <= 30*time.Second {
			best[r.Server] = max(best[r.Server], r.Point.Value)
		}
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s %g", s, best[s]))
	}
	return []string{"Upper bound (most users with no failure, processed within 30 s): " + strings.Join(parts, ", ") + "."}
}

// WriteText writes every table.
func (d *Doc) WriteText(w io.Writer) {
	fmt.Fprintf(w, "parlab ftp experiment, started %s\n", d.Started.UTC().Format(time.RFC3339))
	for _, t := range d.Tables() {
		t.WriteText(w)
	}
}

// metric is what a plot shows of each run.
type metric struct {
	name, label string
	y           func(Sample) float64
}

// Figures are the plots: per sweep and think time, processed time,
// failures and p99 session time against the parameter (for the idle
// sweep, the server's memory per session and the fresh sessions' p99
// against N), a series per server (with several trials, each point the median of its trials); and the timeline of one run's clients (the users sweep's largest
// point, for each of batch and goroutines if they ran, else the first
// server).
func (d *Doc) Figures() map[string]*figure.Figure {
	out := map[string]*figure.Figure{}
	servers := d.servers()
	for _, g := range d.groups() {
		suffix := g.sweep + map[bool]string{true: "-think", false: ""}[g.think > 0]
		metrics := []metric{
			{"processed", "processed time, s", func(r Sample) float64 { return r.Summary.Processed.Seconds() }},
			{"failures", "failed sessions", func(r Sample) float64 { n, _ := failures(r.Summary); return float64(n) }},
			{"p99", "p99 session time (ok sessions), s", func(r Sample) float64 { return r.Summary.Session.P99 }},
		}
		if g.sweep == "idle" {
			metrics = []metric{
				{"memory", "server PSS per held session, KB", func(r Sample) float64 { pss, _ := r.Idle.PerSession(); return pss / 1024 }},
				{"p99", "fresh session p99 while N are held, ms", func(r Sample) float64 { return ms(r.Idle.FreshP99) }},
			}
		}
		for _, m := range metrics {
			f := &figure.Figure{Title: g.title(), Subtitle: "parlab ftp experiment · loopback · " + d.Started.UTC().Format("2006-01-02"),
				XLabel: paramName[g.sweep], YLabel: m.label}
			if d.Config.Trials > 1 {
				f.Subtitle += fmt.Sprintf(" · medians of %d trials", d.Config.Trials)
			}
			for i, s := range servers {
				se := figure.Series{Label: s, Color: i}
				ys := map[float64][]float64{} // a point's values over its trials
				for _, r := range g.runs {
					if r.Server == s && r.Err == "" && (g.sweep != "idle" || r.Idle != nil && r.Idle.LoggedIn == r.Idle.Config.Sessions) {
						ys[r.Point.Value] = append(ys[r.Point.Value], m.y(r))
					}
				}
				for x, v := range ys {
					y, _, _ := bench.MedianCI(v)
					se.Points = append(se.Points, figure.XY{X: x, Y: y})
				}
				slices.SortFunc(se.Points, func(a, b figure.XY) int { return int(a.X - b.X) })
				if len(se.Points) > 0 {
					f.Series = append(f.Series, se)
				}
			}
			out[m.name+"-"+suffix] = f
		}
		if g.sweep != "users" {
			continue
		}
		var top float64
		for _, r := range g.runs {
			top = max(top, r.Point.Value)
		}
		for _, want := range []string{"batch", "goroutines"} {
			for _, r := range g.runs {
				if r.Server == want && r.Point.Value == top && r.Result != nil {
					out["timeline-"+want+"-"+suffix] = timeline(r)
				}
			}
		}
	}
	return out
}

func (d *Doc) servers() []string {
	var out []string
	for _, r := range d.Runs {
		if !slices.Contains(out, r.Server) {
			out = append(out, r.Server)
		}
	}
	return out
}

// timeline is one run's clients: for each client (by arrival), when it
// arrived, was connected, was greeted and ended.
func timeline(r Sample) *figure.Figure {
	f := &figure.Figure{Title: fmt.Sprintf("%s: %d users, %v apart, think %v", r.Server, r.Point.Users, r.Point.Delay, r.Point.Think),
		Subtitle: "each client's arrival, connection, greeting and end · loopback", XLabel: "time since the start, s", YLabel: "client"}
	cs := slices.Clone(r.Result.Clients)
	slices.SortFunc(cs, func(a, b load.Client) int { return int(a.Arrive - b.Arrive) })
	series := []figure.Series{{Label: "arrived", Color: 0}, {Label: "connected", Color: 1}, {Label: "greeted", Color: 2}, {Label: "ended", Color: 3}}
	for i, c := range cs {
		y := float64(i)
		series[0].Points = append(series[0].Points, figure.XY{X: c.Arrive.Seconds(), Y: y})
		if c.Connect > 0 {
			series[1].Points = append(series[1].Points, figure.XY{X: (c.Arrive + c.Connect).Seconds(), Y: y})
		}
		if c.Greeting > 0 {
			series[2].Points = append(series[2].Points, figure.XY{X: (c.Arrive + c.Connect + c.Greeting).Seconds(), Y: y})
		}
		series[3].Points = append(series[3].Points, figure.XY{X: c.End.Seconds(), Y: y})
	}
	for _, s := range series {
		if len(s.Points) > 0 {
			f.Series = append(f.Series, s)
		}
	}
	return f
}

// idleJSON is an idle run in the JSON: bytes, seconds.
type idleJSON struct {
	LoggedIn        int            `json:"logged_in"`
	Failed          map[string]int `json:"failed,omitempty"`
	Connect         float64        `json:"connect"`
	PSSPerSession   float64        `json:"pss_per_session"`
	TasksPerSession float64        `json:"tasks_per_session"`
	PSS             int64          `json:"pss"`
	BasePSS         int64          `json:"base_pss"`
	Procs           int            `json:"procs"`
	Threads         int            `json:"threads"`
	FreshP50        float64        `json:"fresh_p50"`
	FreshP99        float64        `json:"fresh_p99"`
	FreshFailed     int            `json:"fresh_failed"`
}

// MarshalJSON is the experiment in seconds, in the bench's vocabulary:
// parameters as a map, then every run with its point, summary and kernel
// counters (the clients themselves are in each run's load JSON form only
// for the runs a timeline shows, to keep the file small).
func (d *Doc) MarshalJSON() ([]byte, error) {
	type runJSON struct {
		Server    string           `json:"server"`
		Sweep     string           `json:"sweep"`
		Value     float64          `json:"value"`
		Users     int              `json:"users"`
		Delay     float64          `json:"delay"`
		Backlog   int              `json:"backlog"`
		Script    string           `json:"script"`
		Think     float64          `json:"think"`
		Trial     int              `json:"trial"`
		Processed float64          `json:"processed"`
		Outcomes  map[string]int   `json:"outcomes"`
		Connect   load.Percentiles `json:"connect"`
		Greeting  load.Percentiles `json:"greeting"`
		Session   load.Percentiles `json:"session"`
		Rate      float64          `json:"sessions_per_second"`
		Kernel    map[string]int64 `json:"kernel,omitempty"`
		Others    map[string]int   `json:"others,omitempty"` // see others
		Idle      *idleJSON        `json:"idle,omitempty"`   // the idle sweep's run
		Error     string           `json:"error,omitempty"`
		Note      string           `json:"note,omitempty"`
	}
	var runs []runJSON
	for _, r := range d.Runs {
		if i := r.Idle; i != nil {
			pss, tasks := i.PerSession()
			runs = append(runs, runJSON{Server: r.Server, Sweep: r.Point.Sweep, Value: r.Point.Value, Users: r.Point.Users, Backlog: r.Point.Backlog,
				Trial: r.Trial, Note: r.Note, Idle: &idleJSON{LoggedIn: i.LoggedIn, Failed: i.Failed, Connect: i.Connect.Seconds(),
					PSSPerSession: pss, TasksPerSession: tasks, PSS: i.PSS, BasePSS: i.BasePSS, Procs: i.Procs, Threads: i.Threads,
					FreshP50: i.FreshP50.Seconds(), FreshP99: i.FreshP99.Seconds(), FreshFailed: i.FreshFailed}})
			continue
		}
		j := runJSON{Server: r.Server, Sweep: r.Point.Sweep, Value: r.Point.Value, Users: r.Point.Users, Delay: r.Point.Delay.Seconds(),
			Backlog: r.Point.Backlog, Script: r.Point.Script, Think: r.Point.Think.Seconds(), Trial: r.Trial, Error: r.Err, Note: r.Note}
		if r.Server == "vsftpd" {
			j.Backlog = 32
		}
		if r.Result != nil {
			s := r.Summary
			j.Processed, j.Outcomes, j.Connect, j.Greeting, j.Session, j.Rate, j.Kernel =
				s.Processed.Seconds(), s.ByOutcome, s.Connect, s.Greeting, s.Session, s.SessionsPerSecond, r.Result.Kernel
			j.Others = others(r.Result)
		}
		runs = append(runs, j)
	}
	c := d.Config
	return json.Marshal(struct {
		Parameters bench.Params `json:"parameters"`
		Started    string       `json:"started"`
		Runs       []runJSON    `json:"runs"`
		Notes      []string     `json:"notes"`
	}{bench.Params{{Name: "models", Value: c.Models}, {Name: "peers", Value: c.Peers}, {Name: "sweeps", Value: c.Sweeps},
		{Name: "trials", Value: c.Trials}, {Name: "quick", Value: c.Quick}, {Name: "think", Value: c.Think.Seconds()}},
		d.Started.UTC().Format(time.RFC3339), runs, append([]string{}, d.Notes...)})
}

// Write puts the experiment into dir: experiment.json, experiment.txt and
// the plots in plots/ (PNG and SVG). It returns the files written.
func (d *Doc) Write(dir string) ([]string, error) {
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return nil, err
	}
	files := []string{filepath.Join(dir, "experiment.json"), filepath.Join(dir, "experiment.txt")}
	if err := bench.WriteFile(files[0], b); err != nil {
		return nil, err
	}
	var text strings.Builder
	d.WriteText(&text)
	if err := bench.WriteFile(files[1], []byte(text.String())); err != nil {
		return nil, err
	}
	figs := d.Figures()
	var names []string
	for n := range figs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fs, err := figs[n].Save(filepath.Join(dir, "plots"), n)
		if err != nil {
			return files, err
		}
		files = append(files, fs...)
	}
	return files, nil
}
