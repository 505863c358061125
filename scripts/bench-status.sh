#!/bin/sh
# What `fslab status`'s filesystem check (provision/fshealth.c) costs: one
# image lab with a FAT32 of SIZE (default 20G, the built-in layout's; the
# image is sparse, so it takes little room) beside a small ext4, then
# `fslab status` timed by hyperfine.  The FAT check reads the whole first
# FAT (4 bytes a cluster: about 2.5 MiB for 20 GiB) to compare it with the
# FSInfo free count; the ext4 one reads one superblock.  Prints hyperfine's
# mean and range; the lab is torn down on every path.
#
# Usage: scripts/bench-status.sh [WORK_DIR] [SIZE]
#        (default /var/tmp/fslab-bench-status 20G; FSLAB=path/to/fslab)
# Run as root after scripts/install-deps.sh --tests (hyperfine).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/var/tmp/fslab-bench-status}
size=${2:-20G}
fslab=${FSLAB:-$top/build/fslab}
state=$work/state.json
PATH=$PATH:/usr/sbin:/sbin

name=bench-status.sh
. "$top/scripts/bench-lib.sh"
bench_lab_checks hyperfine
mkdir -p "$work"
cat >"$work/spec.ini" <<-SPEC
	[fs ext4]
	size = 64M

	[fs fat32]
	size = $size
SPEC
"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
"$fslab" status --state "$state" | sed -n '/^name /,/^fat32 /p'
hyperfine --warmup 2 --runs 20 --style basic "$fslab status --state $state" 2>&1 |
	sed -n 's/^ *\(Time\|Range\).*/&/p'
