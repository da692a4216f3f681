#!/usr/bin/env bash
# shapes.sh: the issue's query shapes against Region=Europe, whole processes,
# run alternately (E A E B …) on a warm page cache with the default strategy
# (goroutines, one worker per core). Prints each shape's median, the
# baseline's median in the same rounds, and the ratio.
#
# With AGAINST set to another parlab binary (an older commit's build), it
# instead runs every shape, Europe too, with both binaries alternated
# (A B B A …) and prints each one's median and the median of the paired
# ratios (this / against): whether a change slowed a shape.
#
#   scripts/shapes.sh [DATA_DIR] [RUNS]     (defaults: data/sales-1M 11)
#   AGAINST=/tmp/parlab-old scripts/shapes.sh DATA_DIR RUNS
set -euo pipefail
dir=${1:-data/sales-1M}
runs=${2:-11}
parlab=${PARLAB:-bin/parlab}
[ -x "$parlab" ] || { echo "shapes: $parlab not built (make build)" >&2; exit 1; }
# Warm the page cache through parlab's mappings, in 2 MiB folios: a set
# that cat read in sits in small ones, and every scan of it is slower
# (docs/pagecache.md). It prints the cache's state.
"$parlab" cache --warm "$dir"
base=(--where Region=Europe)
names=(
	"Country=Chad"
	"Item Type=Cosmetics"
	"Sales Channel=Online"
	"no filter, two sums"
	"no filter, sum Units Sold"
	"by Region, count + 2 sums"
	"by Country, count + 2 sums"
	"Region=Europe, Online, Units Sold>5000"
	"by Item Type, min/max/avg"
	"by Order Date (2,766 keys)"
	"by Country, Item Type (2,220 keys)"
)
shape() {
	case $1 in
	0) "$parlab" query --where Country=Chad "$dir" ;;
	1) "$parlab" query --where "Item Type=Cosmetics" "$dir" ;;
	2) "$parlab" query --where "Sales Channel=Online" "$dir" ;;
	3) "$parlab" query "$dir" ;;
	4) "$parlab" query --sum "Units Sold" "$dir" ;;
	5) "$parlab" query --by Region "$dir" ;;
	6) "$parlab" query --by Country "$dir" ;;
	7) "$parlab" query --where Region=Europe --where "Sales Channel=Online" --where "Units Sold>5000" "$dir" ;;
	8) "$parlab" query --by "Item Type" --min "Units Sold" --max "Unit Price" --avg "Total Profit" "$dir" ;;
	9) "$parlab" query --by "Order Date" "$dir" ;;
	10) "$parlab" query --by "Country,Item Type" "$dir" ;;
	esac
}
now() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
if [ -n "${AGAINST:-}" ]; then
	[ -x "$AGAINST" ] || { echo "shapes: AGAINST=$AGAINST is not a program" >&2; exit 1; }
	one() { # shape k (-1: Europe) with the binary $1
		if (($2 < 0)); then "$1" query "${base[@]}" "$dir"; else parlab=$1 shape "$2"; fi >/dev/null
	}
	printf '%-40s %10s %10s %7s\n' "shape (whole process)" "this s" "against s" "ratio"
	for k in -1 "${!names[@]}"; do
		a=() b=() r=()
		for ((i = 0; i < runs + 1; i++)); do
			if ((i % 2)); then
				t0=$(now); one "$AGAINST" "$k"; t1=$(now); one "$parlab" "$k"; t2=$(now)
				ta=$((t1 - t0)) tb=$((t2 - t1))
			else
				t0=$(now); one "$parlab" "$k"; t1=$(now); one "$AGAINST" "$k"; t2=$(now)
				tb=$((t1 - t0)) ta=$((t2 - t1))
			fi
			if ((i > 0)); then a+=("$ta") b+=("$tb") r+=("$(awk -v a="$ta" -v b="$tb" 'BEGIN{printf "%.6f", b/a}')"); fi
		done
		n="Region=Europe"
		((k < 0)) || n=${names[$k]}
		awk -v n="$n" -v a="$(median "${a[@]}")" -v b="$(median "${b[@]}")" -v r="$(median "${r[@]}")" \
			'BEGIN{printf "%-40s %10.4f %10.4f %6.3fx\n", n, b/1e9, a/1e9, r}'
	done
	exit 0
fi
printf '%-40s %10s %10s %7s\n' "shape (whole process)" "median s" "Europe s" "ratio"
for k in "${!names[@]}"; do
	a=() b=()
	for ((i = 0; i < runs + 1; i++)); do
		t0=$(now); "$parlab" query "${base[@]}" "$dir" >/dev/null; t1=$(now)
		shape "$k" >/dev/null; t2=$(now)
		if ((i > 0)); then a+=($((t1 - t0))) b+=($((t2 - t1))); fi
	done
	ma=$(median "${a[@]}") mb=$(median "${b[@]}")
	awk -v n="${names[$k]}" -v a="$ma" -v b="$mb" 'BEGIN{printf "%-40s %10.4f %10.4f %6.2fx\n", n, b/1e9, a/1e9, b/a}'
done
