#!/usr/bin/env bash
# make test's checks, side by side on every core: staticcheck, the full
# test run without the race detector, and the race run under -short
# (docs/tests.md says what -short leaves to the full run). Each writes its
# own log, printed whole when all are done; the exit status is non-zero
# if any failed, and the summary says which, with each one's time.
set -uo pipefail
GO=${GO:-go}
STATICCHECK=${STATICCHECK:?}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
run() { # name command...
	local name=$1
	shift
	local t0=$(date +%s)
	"$@" >"$logs/$name.log" 2>&1
	echo "$? $(($(date +%s) - t0))" >"$logs/$name.rc"
}
run lint "$GO" run "$STATICCHECK" ./... &
run full "$GO" test ./... &
GORACE=atexit_sleep_ms=0 run race "$GO" test -race -short ./... &
wait
status=0
for name in lint full race; do
	read -r rc secs <"$logs/$name.rc"
	echo "=== $name ($secs s, exit $rc)"
	cat "$logs/$name.log"
	[ "$rc" = 0 ] || status=1
done
for name in lint full race; do
	read -r rc secs <"$logs/$name.rc"
	[ "$rc" = 0 ] && verdict=ok || verdict=FAILED
	printf '%-5s %-6s %4d s\n' "$name" "$verdict" "$secs"
done
echo "make test: $(($(date +%s) - start)) s for the three side by side"
exit $status
