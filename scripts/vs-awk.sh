#!/usr/bin/env bash
# vs-awk.sh: the sequential query against mawk on the same files, measured
# side by side with alternating runs (A B A B …) on a warm page cache, whole
# processes both. Prints each one's median and the ratio of the medians.
#
#   scripts/vs-awk.sh [DATA_DIR] [RUNS]     (defaults: data/sales-1M 21)
set -euo pipefail
dir=${1:-data/sales-1M}
runs=${2:-21}
parlab=${PARLAB:-bin/parlab}
command -v mawk >/dev/null || { echo "vs-awk: mawk is not installed (apt-get install mawk)" >&2; exit 1; }
[ -x "$parlab" ] || { echo "vs-awk: $parlab not built (make build)" >&2; exit 1; }
files=("$dir"/*.csv)
awkprog='$1=="Europe"{n++; r+=$12; p+=$14} END{printf "%d %.2f %.2f\n", n, r, p}'

now() { date +%s%N; }
# Warm the page cache through parlab's mappings, in 2 MiB folios: a set
# that cat read in sits in small ones, and every scan of it is slower
# (docs/pagecache.md). It prints the cache's state.
"$parlab" cache --warm "$dir"
a=() b=()
for ((i = 0; i < runs + 1; i++)); do
	t0=$(now); mawk -F, "$awkprog" "${files[@]}" >/dev/null; t1=$(now)
	"$parlab" query --where Region=Europe "$dir" >/dev/null; t2=$(now)
	if ((i > 0)); then # the first pair is a warmup
		a+=($((t1 - t0))) b+=($((t2 - t1)))
	fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
ma=$(median "${a[@]}") mb=$(median "${b[@]}")
echo "mawk answer:   $(mawk -F, "$awkprog" "${files[@]}")"
echo "parlab answer: $("$parlab" query --where Region=Europe --json "$dir" | grep -o '"matched":[0-9]*,"sums":{[^}]*}')"
awk -v a="$ma" -v b="$mb" -v n="$runs" 'BEGIN{
	printf "mawk    median %.4f s over %d runs\n", a/1e9, n
	printf "parlab  median %.4f s over %d runs (seq, whole process)\n", b/1e9, n
	printf "parlab is %.1fx faster\n", a/b }'
