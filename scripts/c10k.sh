#!/usr/bin/env bash
# C10K: N idle logged-in sessions held against each model and vsftpd, one
# server at a time, fresh for each N, with fresh sessions timed meanwhile
# (docs/ftp.md, "Ten thousand idle sessions"). Loopback only; each run is
# bounded (timeout 300). Needs vsftpd (apt-get install vsftpd) and root for it.
#
#   scripts/c10k.sh        (PARLAB=path/to/parlab to use another binary)
set -u
P=${PARLAB:-bin/parlab}
root=$(mktemp -d)
chmod 755 "$root"
head -c 1024 /dev/urandom > "$root/f.bin"
trap 'rm -rf "$root"' EXIT
run() { # name addr Ns...
  local name=$1 addr=$2; shift 2
  for n in "$@"; do
    echo "== $name N=$n"
    timeout 300 $P ftp load --addr $addr --idle $n --hold 2s --fresh 50 --fresh-file f.bin 2>&1 | sed 's/^/   /'
  done
}
for model in goroutines pool processes; do
  ns="100 1000 3000"
  [ $model = goroutines ] && ns="100 1000 3000 10000"
  for n in $ns; do
    $P ftp serve --root "$root" --anonymous --listen 127.0.0.1:2141 --model $model --backlog 4096 --max-conns 20000 --max-per-ip 20000 >/dev/null 2>/tmp/serve.err &
    spid=$!; sleep 0.5
    run $model 127.0.0.1:2141 $n
    kill -TERM $spid; wait $spid 2>/dev/null
  done
done
scripts/vsftpd-conf.sh "$root" >/tmp/vsftpd.conf
for n in 100 1000 3000; do
  /usr/sbin/vsftpd /tmp/vsftpd.conf & vpid=$!; sleep 0.5
  run vsftpd 127.0.0.1:2142 $n
  kill $vpid; wait $vpid 2>/dev/null; sleep 1
done
