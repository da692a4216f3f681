package main

import (
	"parlab/bench/figure"
	"parlab/bench/figure/draw"
)

// The figures are drawn in the test's process: a test binary has no
// parlab-figure beside it.
func init() { figure.Draw = draw.Render }
