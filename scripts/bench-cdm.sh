#!/bin/sh
# The acceptance of `fslab run --sweep cdm` (issue 23): on an image lab of
# the five filesystems (ext4, ext2, xfs, fat32, btrfs; 400M partitions on
# a sparse image by default), run the CrystalDiskMark preset with a
# smaller --cdm-size, print the report's CrystalDiskMark panel, and say
# which rows' 95% intervals are within 5% of their means (and why not for
# the others).  The lab is torn down on every path.
#
# Usage: scripts/bench-cdm.sh [WORK_DIR] [-- fslab run options]
#        (default /var/tmp/fslab-bench-cdm; FSLAB=path/to/fslab;
#        CDM_SIZE=64M the file of every row; PART_SIZE=400M each partition;
#        PRESET=cdm or cdm-nvme; FILESYSTEMS="ext4 ext2 xfs fat32 btrfs")
# e.g.   scripts/bench-cdm.sh /var/tmp/cdm -- --until-ci 5 --max-trials 10
#        (keep repeating the rows whose interval is wider than 5%)
# Time: 4 rows x 2 tests x (5 trials + 1 warm-up) x 5 s = 4 minutes per
# filesystem, plus writing each row's file; 20 minutes for the five
# (-- --cdm-time 2: 8 minutes).  A run with failed cells (fusefat refuses
# to pre-size the writer's file) still gets its report: the panel names
# what failed and why; the script then exits with the run's status.
# The rows run through the queued tests' io_uring engine (O_DIRECT; a
# filesystem that refuses O_DIRECT, as fusefat may, has its rows skipped
# and the panel says so).
# Run as root after scripts/install-deps.sh, on a quiet machine: the
# intervals are what is measured here.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=bench-cdm.sh
. "$top/scripts/bench-lib.sh"
bench_lab_args /var/tmp/fslab-bench-cdm "$@"
shift "$bench_args_used"
cdm_size=${CDM_SIZE:-64M}
part_size=${PART_SIZE:-400M}
preset=${PRESET:-cdm}
bench_lab_checks
mkdir -p "$work"
rm -rf "$work/results" "$work/report"
# shellcheck disable=SC2086 # the list of types is words on purpose
bench_lab_spec "$part_size" ${FILESYSTEMS:-ext4 ext2 xfs fat32 btrfs}

"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
start=$(date +%s)
# a run with failed cells (fusefat's writer, say) exits 1 but its other
# rows stand: the report, and its panel, say which failed and why
run_status=0
"$fslab" run --state "$state" --out "$work/results" --sweep "$preset" --cdm-size "$cdm_size" \
	--quiet "$@" || run_status=$?
end=$(date +%s)
echo "fslab run --sweep $preset --cdm-size $cdm_size $*: $((end - start)) s, exit status $run_status"
[ -s "$work/results/manifest.json" ] || exit "$run_status"
"$fslab" report "$work/results" --out "$work/report" --plots none >/dev/null
# the panel, from the text report (its lines up to the next section)
sed -n '/^== CrystalDiskMark rows/,/^== [^C]/p' "$work/report/report.txt" | sed '/^== [^C]/d'
exit "$run_status"
