// Command parlab-figure draws one of parlab's figures: it reads a
// figure.Request as JSON on standard input and writes the picture (PNG or
// SVG) on standard output. parlab starts it (bench/figure's Render), so
// that parlab itself does not link gonum/plot and its fonts, whose
// initialisers every parlab process would pay for at start.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"parlab/bench/figure"
	"parlab/bench/figure/draw"
)

func main() {
	var req figure.Request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil || req.Figure == nil {
		fmt.Fprintf(os.Stderr, "parlab-figure: started by parlab to draw a figure (a JSON request on standard input): %v\n", err)
		os.Exit(2)
	}
	b, err := draw.Render(req.Figure, req.Format)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parlab-figure:", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(b); err != nil {
		fmt.Fprintln(os.Stderr, "parlab-figure:", err)
		os.Exit(1)
	}
}
