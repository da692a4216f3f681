#!/usr/bin/env bash
# mpi-hosts.sh: two MPI "hosts" on this machine, for the mpi strategy across
# a network (docs/mpi.md, "Across hosts, measured"). Each host is a network
# namespace (parlab-h1 at 10.77.0.1, parlab-h2 at 10.77.0.2, joined by one
# veth pair: only these addresses are used), a UTS namespace (its hostname is
# its name, so OpenMPI tells the hosts apart) and a mount namespace in which
# DIR/h1 or DIR/h2 is mounted at /srv/parlab: a host sees only its own files
# there. Root only (ip netns, unshare, nsenter).
#
#   scripts/mpi-hosts.sh up DIR       make the hosts (DIR/h1 and DIR/h2 must exist)
#   scripts/mpi-hosts.sh run HOST CMD…  run CMD on a host (also OpenMPI's rsh agent:
#                                     plm_rsh_agent runs "AGENT HOST CMD")
#   scripts/mpi-hosts.sh down         remove everything up made
#   scripts/mpi-hosts.sh hostfile     print a hostfile of the two hosts (2 slots each)
#
# mpirun itself runs on parlab-h1 (run parlab-h1 mpirun …), so that every
# rank's address is a host's; `up` removes what an earlier, interrupted run
# left, and a caller that traps EXIT calls `down`.
set -euo pipefail
state=/run/parlab-hosts # a pid file a host: the process that holds its namespaces
hosts=(parlab-h1 parlab-h2)
addr() { echo "10.77.0.${1#parlab-h}"; }

down() {
	for h in "${hosts[@]}"; do
		if [ -e "$state/$h.pid" ]; then kill "$(cat "$state/$h.pid")" 2>/dev/null || true; fi
		ip netns del "$h" 2>/dev/null || true
	done
	rm -rf "$state"
	rmdir /srv/parlab 2>/dev/null || true
}

up() {
	local dir=$1
	down
	trap 'down; exit 1' ERR INT TERM # a host half made is removed
	mkdir -p "$state" /srv/parlab
	for h in "${hosts[@]}"; do
		[ -d "$dir/${h#parlab-}" ] || { echo "mpi-hosts: no $dir/${h#parlab-}" >&2; exit 1; }
		ip netns add "$h"
		ip -n "$h" link set lo up
	done
	ip link add parlab-v1 type veth peer name parlab-v2
	ip link set parlab-v1 netns parlab-h1
	ip link set parlab-v2 netns parlab-h2
	for h in "${hosts[@]}"; do
		ip -n "$h" addr add "$(addr "$h")/24" dev "parlab-v${h#parlab-h}"
		ip -n "$h" link set "parlab-v${h#parlab-h}" up
		# the process that holds the host's namespaces: its network one, a
		# UTS one named for it, and a mount one where /srv/parlab is its
		# own directory; nsenter finds them by its pid
		ip netns exec "$h" unshare --mount --uts --propagation private \
			sh -c "hostname $h && mount --bind '$dir/${h#parlab-}' /srv/parlab && exec sleep infinity" </dev/null >/dev/null 2>&1 &
		echo $! >"$state/$h.pid"
	done
	for h in "${hosts[@]}"; do # until each holds its mount
		for _ in $(seq 50); do
			run1 "$h" "mountpoint -q /srv/parlab" && break
			sleep 0.1
		done
	done
	trap - ERR INT TERM
}

run1() {
	local h=$1
	shift
	nsenter --target "$(cat "$state/$h.pid")" --net --mount --uts /bin/sh -c "$*"
}

run() {
	local h=$1
	shift
	exec nsenter --target "$(cat "$state/$h.pid")" --net --mount --uts /bin/sh -c "$*"
}

case ${1:-} in
up) up "${2:?usage: mpi-hosts.sh up DIR}" ;;
down) down ;;
run) shift; run "$@" ;;
hostfile) for h in "${hosts[@]}"; do echo "$h slots=2"; done ;;
parlab-h1 | parlab-h2) run "$@" ;; # as OpenMPI's rsh agent: HOST CMD…
*) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
