#!/usr/bin/env python3
"""Side-by-side timing of shell commands: scripts/ab.py ROUNDS NAME=CMD...

Each command runs once as a warmup, then once a round, in the order given,
for ROUNDS rounds (A B A B ...), so a drift of the machine's speed falls on
all alike. Prints each command's median, min and max wall time. A command
that fails stops the run with its stderr.
Example: scripts/ab.py 13 "stdin=cat x.csv | bin/parlab query -" "file=bin/parlab query x.csv"
"""
import statistics
import subprocess
import sys
import time

if len(sys.argv) < 3 or not all("=" in a for a in sys.argv[2:]):
    sys.exit(__doc__)
rounds = int(sys.argv[1])
cmds = [a.split("=", 1) for a in sys.argv[2:]]
times = {n: [] for n, _ in cmds}
for n, c in cmds:
    subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(rounds):
    for n, c in cmds:
        t0 = time.perf_counter()
        p = subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        t1 = time.perf_counter()
        if p.returncode:
            sys.exit(f"{n}: exit {p.returncode}: {p.stderr.decode()[:300]}")
        times[n].append(t1 - t0)
for n, _ in cmds:
    v = sorted(times[n])
    print(f"{n:28s} median {statistics.median(v)*1000:7.1f} ms  min {v[0]*1000:7.1f}  max {v[-1]*1000:7.1f}")
