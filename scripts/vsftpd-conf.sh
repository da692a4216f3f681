#!/usr/bin/env sh
# vsftpd-conf.sh ROOT: prints the vsftpd configuration the load scripts
# (c10k.sh, sessions.sh) run vsftpd with: anonymous, read-only, ROOT as its
# root, on 127.0.0.1:2142, passive ports 30000-30999, 20,000 connections
# (from one address too). It makes vsftpd's empty chroot directory.
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
mkdir -p /var/run/vsftpd/empty
cat <<CONF
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=2142
background=NO
anonymous_enable=YES
no_anon_password=YES
anon_root=$1
local_enable=NO
write_enable=NO
pasv_enable=YES
pasv_address=127.0.0.1
pasv_min_port=30000
pasv_max_port=30999
secure_chroot_dir=/var/run/vsftpd/empty
max_clients=20000
max_per_ip=20000
xferlog_enable=NO
CONF
