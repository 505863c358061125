#!/bin/sh
# How long the default `fslab run` takes to answer the report's question
# (is each filesystem slower, faster or equivalent to each other one, test
# by test?) on a 3-filesystem image lab (ext4, xfs, btrfs: 3G
# partitions on a sparse image: room for iozone -g 1G, whose 1 GiB file btrfs copies on write): it sets the
# lab up, runs the default run (the lab preset, --stop decided), prints
# the seconds each filesystem took and how many comparisons were decided
# (from the manifest's "stopping" record), and, when iozone is on PATH,
# the time of `iozone -a -g 1G` on each filesystem beside it.  iozone is
# not in Debian main (it is in non-free): without it the script says so
# and skips that part.  The lab is torn down on every path.
#
# Usage: scripts/bench-time-to-answer.sh [WORK_DIR] [-- fslab run options]
#        (default /var/tmp/fslab-bench-answer; FSLAB=path/to/fslab)
# e.g.   scripts/bench-time-to-answer.sh /var/tmp/tta -- --file-sizes 64K-256K
#        (a reduced sweep: still the default rule, as no --cache or --trials)
# Measured (the shared 2-core VM, --file-sizes 64K-1M --record-sizes 4K-1M,
# 35 cells): the default rule 30.5 s (ext4 11.3, xfs 8.0, btrfs 9.1 s;
# 3088 rows per filesystem, 5.8 trials per test of a cell on average, 90
# of 455 at the cap; 186 of 1365 comparisons decided, the other tests
# undecidable), against 45.4 s for --stop ci (the old default, --until-ci
# 5: every cell to the 10-trial cap, 4550 rows per filesystem).  With
# futility (docs/run.md "When the run stops"), the same reduced sweep
# alternated with the rule before it under a load of 11-13: 42.3/53.5 s
# against 86.5/96.0 s, 4.2/4.1 trials against 5.2/5.1, 8/7 tests at the
# cap against 41/54.
# Run as root after scripts/install-deps.sh.  The whole default sweep takes
# several minutes per filesystem; do not run it on a shared machine at a
# busy time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=bench-time-to-answer.sh
. "$top/scripts/bench-lib.sh"
bench_lab_args /var/tmp/fslab-bench-answer "$@"
shift "$bench_args_used"
bench_lab_checks python3
mkdir -p "$work"
rm -rf "$work/results"
bench_lab_spec 3G ext4 xfs btrfs

bench_lab_extra_cleanup() {
	rm -f "$work"/mnt/*/iozone.tmp 2>/dev/null
}

"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
start=$(date +%s.%N)
"$fslab" run --state "$state" --out "$work/results" --quiet "$@"
end=$(date +%s.%N)

python3 -c "print('fslab run %s: %.1f s in all' % ('$*', $end - $start))"
python3 - "$work/results/manifest.json" <<-'PY'
	import json, sys
	m = json.load(open(sys.argv[1]))
	st = m.get("stopping") or {}
	s = st.get("summary") or {}
	print("rule: %s, trials %s..%s" % (m.get("stop"), m.get("trials"), m.get("max_trials")))
	for fs in m["filesystems"]:
	    print("  %-6s %8.1f s  (%d cells ok, %d failed)" % (fs["name"], fs.get("wall_s") or 0,
	          fs.get("cells_ok") or 0, fs.get("cells_failed") or 0))
	if s:
	    n = sum(s.get(k, 0) for k in ("decided", "undecidable", "max_trials", "no_data", "open"))
	    print("tests of cells: %d; decided %d, undecidable %d, max_trials %d, no_data %d" %
	          (n, s.get("decided", 0), s.get("undecidable", 0), s.get("max_trials", 0), s.get("no_data", 0)))
	    print("comparisons decided: %d of %d, undecidable (futility) %d" % (s.get("comparisons_decided", 0),
	          s.get("comparisons", 0), s.get("comparisons_undecidable", 0)))
	    trials = [t["trials"] for c in st.get("cells", []) for t in c["tests"].values() if t.get("trials")]
	    if trials:
	        print("trials per test of a cell: mean %.1f, at the cap %d of %d" %
	              (sum(trials) / len(trials), sum(1 for t in trials if t >= m["max_trials"]), len(trials)))
PY

if ! command -v iozone >/dev/null; then
	echo "iozone: not on PATH (it is not in Debian main: non-free, or build it from iozone.org); skipped"
	exit 0
fi
for d in "$work"/mnt/*/; do
	name=$(basename "$d")
	s=$(date +%s.%N)
	if ! iozone -a -g 1G -f "$d/iozone.tmp" >"$work/iozone-$name.out" 2>&1; then
		rm -f "$d/iozone.tmp"
		echo "  iozone -a -g 1G on $name failed; its last lines ($work/iozone-$name.out):" >&2
		tail -n 5 "$work/iozone-$name.out" >&2
		exit 1
	fi
	e=$(date +%s.%N)
	rm -f "$d/iozone.tmp"
	python3 -c "print('  iozone -a -g 1G on %-6s %8.1f s' % ('$name', $e - $s))"
done
