#!/bin/sh
# What fslab run's steady-state phase costs (docs/ssd.md, "Steady state"):
# on an image lab of one ext4 of SIZE (loop device with direct I/O), one
# run with --steady-state on and rounds of ROUND, a one-cell sweep.
# Prints the tracking file's size against what the old rule (half the
# free space) would have written, the fill's time and rate (and the old
# rule's fill at that rate), the rounds and the outcome, the phase's
# time, and the --dry-run estimate of the phase beside it.  Figures taken
# on a loaded machine move a lot: say so when quoting them.
#
# Usage: scripts/bench-steady.sh [SIZE] [ROUND] [WORK_DIR]
#        (defaults: 2G, 16M, /var/tmp/fslab-bench-steady; FSLAB=path/to/fslab)
#        Run as root after scripts/install-deps.sh --tests (jq).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
size=${1:-2G}
round=${2:-16M}
work=${3:-/var/tmp/fslab-bench-steady}
fslab=${FSLAB:-$top/build/fslab}
state=$work/state.json
PATH=$PATH:/usr/sbin:/sbin

name=bench-steady.sh
. "$top/scripts/bench-lib.sh"
bench_lab_checks jq
mkdir -p "$work"
rm -rf "$work/out" "$work/lab.img" "$work/mnt"
bench_lab_extra_cleanup() {
	rm -rf "$work/out" "$work/spec.ini"
}
printf '[fs e4]\ntype = ext4\nsize = %s\n' "$size" >"$work/spec.ini"
"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --mount-root "$work/mnt" \
	--state "$state" --precondition off --yes >/dev/null
sweep="--tests write --file-sizes 64K --record-sizes 64K --trials 1 --cache warm"
# shellcheck disable=SC2086 # $sweep is a word list
est=$("$fslab" run --dry-run --state "$state" $sweep --probe-size 64M --steady-state on \
	--steady-state-round "$round" | sed -n 's/.*steady-state phase up to \([^ ]*\).*/\1/p' | head -1)
# shellcheck disable=SC2086
"$fslab" run --state "$state" --out "$work/out" $sweep --no-device-probe --steady-state on \
	--steady-state-round "$round" --quiet
jq -r --arg est "${est:-?}" '.filesystems[0].steady_state as $s |
  "steady-state phase, ext4 of '"$size"', rounds of '"$round"' (image lab, direct-I/O loop):",
  "  tracking file: \($s.file_bytes / 1048576) MiB of \($s.free_bytes / 1048576 | floor) MiB free" +
  " (the old rule, half the free space: \($s.free_bytes / 2 / 1048576 | floor) MiB)",
  "  fill: \($s.fill_s * 100 | round / 100) s, \($s.file_bytes / 1048576 / $s.fill_s | round) MiB/s" +
  " (the old rule at that rate: \($s.free_bytes / 2 / ($s.file_bytes / $s.fill_s) * 10 | round / 10) s)",
  "  \($s.result); \($s.rounds | length) rounds, 4K randwrite \([$s.rounds[].rand_write_kib_s / 1024 | round] | map(tostring) | join(" ")) MiB/s",
  "  phase: \($s.elapsed_s * 10 | round / 10) s; --dry-run estimated at most \($est)"' \
	"$work/out/manifest.json"
