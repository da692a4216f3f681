#!/usr/bin/env python3
"""The mpi strategy against goroutines on one machine, side by side.

usage: scripts/mpi-vs-goroutines.py DATA [ROUNDS] [RANKS] [-- QUERY FLAGS]

Each round runs, alternating (A B A B ...):
  A  mpirun -np RANKS bin/parlab-mpi query --strategy mpi --workers 1 --json
  B  bin/parlab query --strategy goroutines --workers RANKS --json
and records each one's wall time (the whole command: for A, mpirun's launch,
MPI_Init, the work, MPI_Finalize) and the JSON's time.total (the work: for
A, rank 0's run after MPI_Init: map, scan, gather, merge). Every answer must
be B's. Prints the medians with their quartiles and the ratios, and one JSON
line for the docs. The default query is Region=Europe (rows split).
"""
import json
import os
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
query = ["--where", "Region=Europe"]
if "--" in args:
    i = args.index("--")
    args, query = args[:i], args[i + 1:]
data = args[0]
rounds = int(args[1]) if len(args) > 1 else 11
ranks = int(args[2]) if len(args) > 2 else 2
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl="self,vader")
A = ["mpirun", "-np", str(ranks), "bin/parlab-mpi", "query", "--strategy", "mpi", "--workers", "1", "--json"] + query + [data]
B = ["bin/parlab", "query", "--strategy", "goroutines", "--workers", str(ranks), "--json"] + query + [data]


def run(cmd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    doc = json.loads(out)
    answer = {k: v for k, v in doc.items() if k not in ("strategy", "split", "workers", "ranks", "time", "imbalance", "per_worker", "rescanned", "child")}
    return wall, doc["time"]["total"], answer


def q(xs):
    s = statistics.quantiles(xs, n=4)
    return f"{statistics.median(xs):.4f} s [{s[0]:.4f}, {s[2]:.4f}]"


run(A), run(B)  # warm-up: the page cache, the binaries
wa, ta, wb, tb = [], [], [], []
for _ in range(rounds):
    w, t, ans_a = run(A)
    wa.append(w), ta.append(t)
    w, t, ans_b = run(B)
    wb.append(w), tb.append(t)
    if ans_a != ans_b:
        sys.exit(f"mpi and goroutines differ:\n{ans_a}\n{ans_b}")
launch = [w - t for w, t in zip(wa, ta)]
work = [a / b for a, b in zip(ta, tb)]
whole = [a / b for a, b in zip(wa, wb)]
print(f"{rounds} rounds, {ranks} ranks x 1 thread against goroutines x {ranks}, {' '.join(query)} on {data}")
print(f"  mpi        wall {q(wa)}  work {q(ta)}  launch+init+finalize {q(launch)}")
print(f"  goroutines wall {q(wb)}  work {q(tb)}")
print(f"  work ratio mpi/goroutines {statistics.median(work):.3f} (paired median)   whole-command ratio {statistics.median(whole):.3f}")
print(json.dumps({"data": data, "ranks": ranks, "rounds": rounds, "query": query,
                  "mpi_wall": statistics.median(wa), "mpi_work": statistics.median(ta), "launch": statistics.median(launch),
                  "goroutines_wall": statistics.median(wb), "goroutines_work": statistics.median(tb),
                  "work_ratio": statistics.median(work), "whole_ratio": statistics.median(whole)}))
