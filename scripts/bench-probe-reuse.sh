#!/bin/sh
# What a small `fslab run` costs beside the bare I/O of its cell, now that
# the device probe is kept and reused (docs/run.md, "Probe reuse"): on a
# one-filesystem image lab (ext4, 256M, made and torn down here) it runs a
# one-cell `fslab run` once (that run measures the probe and keeps it),
# then times with hyperfine (each command's runs in turn):
#   fslab   fslab run of one cell: write + read, 64M file, 1M records,
#           --cache direct, 1 trial (the probe reused)
#   fresh   the same with --probe fresh (the probe measured every run)
#   bare    the same cell as a bare loop: dd of 64 x 1M O_DIRECT writes
#           with an fsync (fslab's untimed fsync after a writer), then 64
#           x 1M O_DIRECT reads of that file, in a directory on the same
#           filesystem
# and prints the mean wall times and the ratios fslab/bare (goal <= 1.1)
# and fresh/bare.  Prints figures; judges nothing.  The load average is
# printed with them: on a shared machine the figures are noisy.
#
# Usage: scripts/bench-probe-reuse.sh [WORK_DIR]
#        (default /var/tmp/fslab-bench-probe-reuse; FSLAB=path/to/fslab,
#        RUNS (10), FILE (64M), RECORD (1M))
# Run as root after scripts/install-deps.sh --tests (hyperfine, jq).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/var/tmp/fslab-bench-probe-reuse}
fslab=${FSLAB:-$top/build/fslab}
state=$work/state.json
runs=${RUNS:-10}
file=${FILE:-64M}
record=${RECORD:-1M}
PATH=$PATH:/usr/sbin:/sbin

name=bench-probe-reuse.sh
. "$top/scripts/bench-lib.sh"
bench_lab_checks hyperfine jq dd
mkdir -p "$work"
rm -rf "$work/results" "$work/hyperfine.json"
cat >"$work/spec.ini" <<-SPEC
	[fs ext4]
	type = ext4
	size = 256M
SPEC

bench_lab_extra_cleanup() {
	[ -n "${bare:-}" ] && rm -rf "$bare"
	rm -rf "$work/results"
}

"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
mnt=$(jq -r '.partitions[0].mountpoint' "$state")
bare=$(mktemp -d "$mnt/bench-bare.XXXXXX")

# dd's sizes in records, from the same sizes fslab is given
count=$(numfmt --from=iec "$file")
bs=$(numfmt --from=iec "$record")
count=$((count / bs))

cell="--tests write,read --file-sizes $file --record-sizes $record --cache direct --trials 1 --stop fixed --steady-state off --quiet"
run="$fslab run --state $state --out $work/results $cell"
# the first run measures the probe and keeps it
$run
rm -rf "$work/results"

hyperfine --runs "$runs" --warmup 1 --style basic --export-json "$work/hyperfine.json" \
	--prepare "rm -rf $work/results" \
	-n fslab "$run" \
	-n fresh "$run --probe fresh" \
	-n bare "dd if=/dev/zero of=$bare/f bs=$bs count=$count oflag=direct conv=fsync status=none && dd if=$bare/f of=/dev/null bs=$bs iflag=direct status=none && rm -f $bare/f" \
	>/dev/null

echo "one cell (write + read, $file file, $record records, direct) on a 256M ext4 image lab, $runs runs each:"
jq -r '.results[] | "  \(.command): mean \(.mean * 1000 | floor) ms (sd \(.stddev * 1000 | floor) ms)"' "$work/hyperfine.json"
jq -r '(.results | map({(.command): .mean}) | add) as $m |
	"  fslab (probe reused) / bare: \(($m.fslab / $m.bare) * 100 | round / 100)x (goal <= 1.1)\n  fslab --probe fresh / bare: \(($m.fresh / $m.bare) * 100 | round / 100)x"' "$work/hyperfine.json"
rm -rf "$work/results"
$run
echo "  a run after these: device_probe_source $(jq -r '.filesystems[0].device_probe_source' "$work/results/manifest.json")"
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (figures taken under load are noisy)"
