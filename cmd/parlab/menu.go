package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"parlab/input"
	"parlab/input/stage"
	"parlab/render"
	"parlab/scan"
	"parlab/spawn"
)

// menu is the reference project's menu driver: pick the approach, the
// filter column, the value and the worker count at prompts, see the answer
// and its timing, repeat. It reads answers line by line, so it is as happy
// with a pipe as with a terminal; end of input ends it.
func (a *app) menu(args []string) error {
	fs := flag.NewFlagSet("menu", flag.ContinueOnError)
	var qf queryFlags
	defer qf.close()
	qf.register(fs)
	qf.registerStrategy(fs)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"data/sales-1M"}
	}
	in := bufio.NewScanner(a.stdin)
	w := a.stdout
	echo := !a.tty(a.stdin) // from a pipe, show the answers as a terminal would
	// ask prints a prompt and returns the answer, or def for an empty line;
	// ok is false at end of input.
	ask := func(prompt, def string) (string, bool) {
		fmt.Fprintf(w, "%s [%s]: ", prompt, def)
		if !in.Scan() {
			fmt.Fprintln(w)
			return "", false
		}
		if echo {
			fmt.Fprintln(w, in.Text())
		}
		if s := strings.TrimSpace(in.Text()); s != "" {
			return s, true
		}
		return def, true
	}
	choose := func(prompt string, options []string, def int) (int, bool) {
		for {
			var b strings.Builder
			for i, o := range options {
				fmt.Fprintf(&b, " %d) %s", i+1, o)
			}
			s, ok := ask(prompt+":"+b.String(), strconv.Itoa(def))
			if !ok {
				return 0, false
			}
			if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(options) {
				return n - 1, true
			}
			fmt.Fprintf(w, "  please answer 1 to %d\n", len(options))
		}
	}
	// the reference's menu order: sequential, processes, threads
	approaches := []spawn.Strategy{spawn.Sequential{}, spawn.Processes{}, spawn.Goroutines{}}
	var approachNames, splitNames []string
	for _, st := range approaches {
		approachNames = append(approachNames, st.Name()+" ("+st.Help()+")")
	}
	columns, examples := menuColumns(pos)
	splits := spawn.Splits()
	for _, sp := range splits {
		splitNames = append(splitNames, sp.String())
	}
	fmt.Fprintf(w, "parlab menu over %s (end of input quits)\n", strings.Join(pos, " "))
	for {
		ap, ok := choose("Approach", approachNames, 1)
		if !ok {
			return nil
		}
		col, ok := choose("Filter column", columns, 1)
		if !ok {
			return nil
		}
		val, ok := ask("Value", examples[col])
		if !ok {
			return nil
		}
		qf.strategy, qf.where = spawn.StrategyFlag{Strategy: approaches[ap]}, listFlag{columns[col] + "=" + val}
		if ap > 0 {
			for {
				n, ok := ask("Workers", "4")
				if !ok {
					return nil
				}
				if qf.workers, err = strconv.Atoi(n); err == nil && qf.workers >= 1 && qf.workers <= maxWorkers {
					break
				}
				fmt.Fprintf(w, "  please answer 1 to %d\n", maxWorkers)
			}
			sp, ok := choose("Split", splitNames, len(splits))
			if !ok {
				return nil
			}
			qf.split = splits[sp]
		}
		by, ok := ask("Group by (columns, comma-separated; - for none)", "-")
		if !ok {
			return nil
		}
		qf.by = nil
		if by != "-" {
			qf.by = listFlag{by}
		}
		c, err := qf.config(context.Background(), pos, a.cores()) // closes the last round's inputs
		if err == nil {
			var rep *spawn.Report
			if rep, err = qf.strategy.Run(context.Background(), c); err == nil {
				if a.fixTimes != nil {
					a.fixTimes(rep)
				}
				render.Text(a.stdout, rep, c.Mode)
			}
		}
		if err != nil {
			fmt.Fprintf(w, "  failed: %v\n", err) // a menu goes on after a failed run
		}
		again, ok := ask("Another query? (y/n)", "y")
		if !ok || !strings.HasPrefix(strings.ToLower(again), "y") {
			return nil
		}
	}
}

// menuColumns are the filter columns the menu offers for PATHs, with an
// example value of each: the reference's four for the Sales Records,
// else every column of the first file's header, each with its value in
// the first row.
func menuColumns(pos []string) (columns, examples []string) {
	sales := []string{"Region", "Country", "Item Type", "Sales Channel"}
	salesEx := []string{"Europe", "France", "Cosmetics", "Online"}
	paths, err := input.ExpandPaths(pos)
	if err != nil || paths[0] == input.Stdin {
		return sales, salesEx
	}
	// its first bytes as a query reads them: decompressed, decoded, with
	// its delimiter found
	in, err := stage.Stream(context.Background(), paths[:1], stage.Dialect{}, nil)
	if err != nil {
		return sales, salesEx
	}
	defer in.Close()
	var head []byte
	sep := in.Sep(0)
	if in.Stream != nil {
		head = make([]byte, 64<<10)
		n, _ := io.ReadFull(in.Stream, head)
		head = head[:n]
	} else if head, err = input.Head(in.Paths[0], 64<<10); err != nil {
		return sales, salesEx
	}
	recs, err := scan.Records(head, 2, sep)
	if err != nil || len(recs) == 0 {
		return sales, salesEx
	}
	if header := recs[0]; !slices.Equal(header[:min(4, len(header))], sales) {
		for i, c := range header {
			ex := "x"
			if len(recs) > 1 && i < len(recs[1]) && recs[1][i] != "" {
				ex = recs[1][i]
			}
			columns, examples = append(columns, c), append(examples, ex)
		}
		return columns, examples
	}
	return sales, salesEx
}
