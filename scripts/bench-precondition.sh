#!/bin/sh
# How fast fslab setup preconditions a disk, against fio doing the same
# writes (2 x the capacity, 128 KiB sequential, O_DIRECT, queue depth 1)
# on the same kind of loop device (direct I/O, a sparse image in WORK_DIR),
# and what the quiet wait after mount costs.  Goal: fslab's MiB/s >= 0.9x
# fio's.  Run as root after scripts/install-deps.sh --tests (fio, jq).
#
# Usage: scripts/bench-precondition.sh [SIZE_MIB] [WORK_DIR]
#        (defaults: 1024 MiB, /var/tmp/fslab-bench-precondition; FSLAB=path/to/fslab)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
size=${1:-1024}
work=${2:-/var/tmp/fslab-bench-precondition}
fslab=${FSLAB:-$top/build/fslab}
PATH=$PATH:/usr/sbin:/sbin
for t in fio jq losetup; do
	command -v $t >/dev/null || { echo "bench-precondition: $t not found (scripts/install-deps.sh --tests)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench-precondition: run as root (loop devices)" >&2; exit 1; }
mkdir -p "$work"
dev=
cleanup() {
	if [ -n "$dev" ]; then losetup -d "$dev" 2>/dev/null || :; fi
	if [ -e "$work/state.json" ]; then "$fslab" teardown --state "$work/state.json" >/dev/null 2>&1 || :; fi
	rm -f "$work/fio.img" "$work/lab.img" "$work/spec.ini" "$work/state.json.lock" "$work/state.json.log"
	rmdir "$work/mnt" "$work" 2>/dev/null || :
}
trap cleanup EXIT INT TERM

# fio on a loop device like setup's
truncate -s "${size}M" "$work/fio.img"
dev=$(losetup --find --show --direct-io=on "$work/fio.img")
fio_mib=$(fio --name=precondition --filename="$dev" --rw=write --bs=128k --direct=1 \
	--ioengine=psync --iodepth=1 --size="${size}M" --loops=2 --output-format=json |
	jq '.jobs[0].write.bw_bytes / 1048576')
losetup -d "$dev"
dev=
rm -f "$work/fio.img"

# fslab setup --precondition on, on an image of the same size
cat >"$work/spec.ini" <<SPEC
[disk]
label = gpt
alignment = 1M
[fs ext4]
type = ext4
size = 64M
[fs btrfs]
type = btrfs
size = 128M
SPEC
start=$(date +%s.%N)
"$fslab" setup --image "$work/lab.img" --size "${size}M" --spec "$work/spec.ini" \
	--state "$work/state.json" --mount-root "$work/mnt" --precondition on --yes >/dev/null
end=$(date +%s.%N)
fslab_mib=$(jq '.precondition.mib_s' "$work/state.json")
bytes=$(jq '.precondition.bytes' "$work/state.json")
pre_s=$(jq '.precondition.seconds' "$work/state.json")
quiet_s=$(jq '[.partitions[].quiet_wait_s] | max' "$work/state.json")
"$fslab" teardown --state "$work/state.json" >/dev/null

printf 'preconditioning %s MiB x 2 (128 KiB O_DIRECT sequential writes, loop direct I/O)\n' "$size"
printf '  fio:   %8.1f MiB/s\n' "$fio_mib"
printf '  fslab: %8.1f MiB/s (%s bytes in %.2f s)   ratio fslab/fio %.2f (goal >= 0.90)\n' \
	"$fslab_mib" "$bytes" "$pre_s" "$(awk "BEGIN { print $fslab_mib / $fio_mib }")"
printf '  whole setup %.2f s, of which the quiet wait after mount %.2f s\n' \
	"$(awk "BEGIN { print $end - $start }")" "$quiet_s"
