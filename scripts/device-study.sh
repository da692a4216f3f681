#!/usr/bin/env bash
# The study on a many-core machine in one run (issue 44): built here, run
# there. From the repository root, with the binaries make build made (the
# device tool carries them, 34.6 MB of its 64 MiB: carry ["bin/parlab",
# "bin/parlab-worker", "bin/parlab-session", "bin/parlab-session-plain",
# "bin/parlab-nop"]):
#
#   OUT=out/device scripts/device-study.sh
#
# It makes its own data (ROWS rows in DATA, default 10M in $TMPDIR), warms
# it, and writes to OUT: machine.txt, spawn.txt (the lean children
# against the smallest Go program), bench-europe.txt/json (every strategy,
# rows and dynamic splits, 1 to 16 workers), shapes.txt (by Country and
# the Online filter against Europe at 2 and at WMAX workers, alternating),
# sessions.txt (scripts/sessions.sh; vsftpd where it is installed). Each step
# is bounded by timeout (540 s in all, under the device tool's 600 s a
# command); the whole should take about 2 minutes on 16 cores. On
# this project's 2-core VM, ROWS=1000000 WORKERS=1,2 WMAX=2 runs it in about
# a minute, to check the script.
set -u
P=${PARLAB:-bin/parlab}
OUT=${OUT:-out/device}
ROWS=${ROWS:-10000000}
WORKERS=${WORKERS:-1,2,4,8,16}
WMAX=${WMAX:-16}
TRIALS=${TRIALS:-7}
DATA=${DATA:-${TMPDIR:-/tmp}/parlab-study-$ROWS}
mkdir -p "$OUT"
[ -x "$P" ] || { echo "device-study: $P not built (make build)" >&2; exit 1; }
step() { # name seconds cmd...
	local name=$1 secs=$2
	shift 2
	echo "== $name: $*" | tee -a "$OUT/steps.txt"
	local t0=$SECONDS
	timeout "$secs" "$@" >"$OUT/$name.txt" 2>&1
	local rc=$?
	echo "   exit $rc in $((SECONDS - t0)) s" | tee -a "$OUT/steps.txt"
	tail -n 3 "$OUT/$name.txt" | sed 's/^/   /'
}
{
	date -u
	uname -a
	nproc
	lscpu 2>/dev/null
	free -g
	"$P" version 2>/dev/null
} >"$OUT/machine.txt" 2>&1
[ -f "$DATA/xat.csv" ] || step gen 60 "$P" gen --rows "$ROWS" --files 20 --seed 1 --out "$DATA" --force
step cache 60 "$P" cache --warm "$DATA"
step spawn 60 "$P" spawn --methods fork,forkexec-self,forkexec-worker,forkexec-session,forkexec-session-plain,forkexec-go,forkexec-true \
	--modes serial --n 100 --rounds 11
step bench-europe 150 "$P" bench --strategies seq,goroutines,processes --splits rows,dynamic --workers "$WORKERS" \
	--trials "$TRIALS" --where Region=Europe --json "$OUT/bench-europe.json" "$DATA"
q="$P query $DATA --split rows"
shapes=("seq=$P query $DATA --strategy seq --where Region=Europe" "goroutines-1=$q --workers 1 --where Region=Europe")
for w in $(printf '%s\n' 2 "$WMAX" | sort -un); do
	shapes+=("europe-$w=$q --workers $w --where Region=Europe" "country-$w=$q --workers $w --by Country"
		"online-$w=$q --workers $w --where 'Sales Channel=Online'"
		"processes-$w=$q --workers $w --where Region=Europe --strategy processes")
done
step shapes 120 python3 scripts/ab.py 11 "${shapes[@]}"
step sessions 90 scripts/sessions.sh 2
echo "device-study: done; the results are in $OUT"
