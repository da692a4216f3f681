#!/usr/bin/env bash
# Fresh sessions per second: the same open-loop load (parlab ftp load
# --users U --delay D --script 'RETR f.bin') against the processes model
# without TLS (its sessions are parlab-session-plain), with TLS offered
# (parlab-session; the clients do not take it up), goroutines, and vsftpd,
# each server fresh for each run, the servers' order the same every round
# (A B C D, A B C D, ...). Issue 44's target: processes at least vsftpd's.
# Loopback only; every run is bounded (timeout 120). vsftpd (and root for
# it) and openssl (for the TLS run) are used where installed (apt-get
# install vsftpd openssl); where one is not, its runs are skipped, and said.
#
#   scripts/sessions.sh [ROUNDS [USERS [DELAY]]]   (PARLAB=path/to/parlab)
set -u
P=${PARLAB:-bin/parlab}
rounds=${1:-3} users=${2:-400} delay=${3:-2ms}
root=$(mktemp -d)
chmod 755 "$root"
head -c 1024 /dev/urandom >"$root/f.bin"
tmp=$(mktemp -d)
trap 'rm -rf "$root" "$tmp"' EXIT
tls=yes
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null || { echo "no openssl: the TLS runs are skipped"; tls=; }
vsftpd=/usr/sbin/vsftpd
[ -x $vsftpd ] || { echo "no $vsftpd: its runs are skipped"; vsftpd=; }
scripts/vsftpd-conf.sh "$root" >"$tmp/vsftpd.conf"
load() { # name addr
	timeout 120 $P ftp load --addr "$2" --users "$users" --delay "$delay" --script 'RETR f.bin' --json "$tmp/out.json" >/dev/null 2>"$tmp/err" ||
		{ echo "$1: ftp load failed: $(head -c 300 "$tmp/err")" >&2; return; }
	python3 -c '
import json, sys
d = json.load(open(sys.argv[2]))
s = d
print("%-22s ok sessions/s %7.1f   ok %4d of %s" % (sys.argv[1], s["sessions_per_second"], s["outcomes"].get("ok", 0), sys.argv[3]))
' "$1" "$tmp/out.json" "$users"
}
serve() { # name model [flags]
	local name=$1 model=$2
	shift 2
	$P ftp serve --root "$root" --anonymous --listen 127.0.0.1:2141 --model "$model" --backlog 4096 \
		--max-conns 20000 --max-per-ip 20000 "$@" >/dev/null 2>"$tmp/serve.err" &
	local spid=$!
	sleep 0.5
	load "$name" 127.0.0.1:2141
	kill -TERM $spid
	wait $spid 2>/dev/null
}
for r in $(seq "$rounds"); do
	echo "== round $r: $users users, $delay apart, RETR of 1 KiB"
	serve processes processes
	[ -n "$tls" ] && serve processes-tls processes --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem"
	serve goroutines goroutines
	[ -n "$vsftpd" ] || continue
	$vsftpd "$tmp/vsftpd.conf" &
	vpid=$!
	sleep 0.5
	load vsftpd 127.0.0.1:2142
	kill $vpid
	wait $vpid 2>/dev/null
	sleep 1
done
