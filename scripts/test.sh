#!/usr/bin/env bash
# make test's checks, side by side on every core: staticcheck, the full
# test run without the race detector, and the race run under -short
# (docs/tests.md says what -short leaves to the full run). Each writes its
# own log. A failed one's log is printed whole; of a passing test run, its
# packages' lines and every skipped test with its reason (a folio test on
# a file system without 2 MiB folios says so here), the race run's
# -short skips counted. The exit status is non-zero if any failed.
set -uo pipefail
GO=${GO:-go}
STATICCHECK=${STATICCHECK:?}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
run() { # name command...
	local name=$1
	shift
	local t0
	t0=$(date +%s)
	"$@" >"$logs/$name.log" 2>&1
	echo "$? $(($(date +%s) - t0))" >"$logs/$name.rc"
}
# The mpi build's cgo files are checked where OpenMPI is installed.
tags=
pkg-config --exists ompi 2>/dev/null && tags="-tags mpi"
run lint "$GO" run "$STATICCHECK" $tags ./... &
# -vet=off: make vet has just run go vet ./..., every check go test's own
# vet makes and more; the race run's vet was a second vet of every package
# built for the race detector (12 s of CPU after a change to scan; its only
# race-tagged file, spawn/race_test.go, is a constant).
# The race run leaves out two packages whose tests under -short run code
# of one goroutine only (the load lab's experiment drives its servers as
# processes, and the study draws and writes reports): building them for
# the race detector cost 5 s of CPU for nothing it could judge.
race_pkgs=$("$GO" list ./... | grep -v -x -e parlab/ftp/experiment -e parlab/spawn/study)
run full "$GO" test -vet=off -v ./... &
# shellcheck disable=SC2086 # the packages, a word each
GORACE=atexit_sleep_ms=0 run race "$GO" test -vet=off -v -race -short $race_pkgs &
wait
# the package lines, and each skip with the lines its test logged
summary='
/^=== RUN/ { buf = ""; next }
/^    [^ ].*_test\.go:[0-9]+:/ { buf = buf $0 "\n"; next }
/^ *--- SKIP/ {
	if (buf ~ /-short \(the race run\)/) { short++ } else { printf "%s\n%s", $0, buf }
	buf = ""; next
}
/^(ok|FAIL|\?) / { print }
END { if (short) printf "(%d tests left to the full run by -short)\n", short }'
status=0
for name in lint full race; do
	read -r rc secs <"$logs/$name.rc"
	echo "=== $name ($secs s, exit $rc)"
	if [ "$rc" != 0 ] || [ "$name" = lint ]; then
		cat "$logs/$name.log"
	else
		awk "$summary" "$logs/$name.log"
	fi
	[ "$rc" = 0 ] || status=1
done
for name in lint full race; do
	read -r rc secs <"$logs/$name.rc"
	[ "$rc" = 0 ] && verdict=ok || verdict=FAILED
	printf '%-5s %-6s %4d s\n' "$name" "$verdict" "$secs"
done
echo "make test: $(($(date +%s) - start)) s for the three side by side"
exit $status
