#!/bin/sh
# How long the default `fslab run` takes to answer the report's question
# (which filesystem is faster, file size band by band, and how sure) beside
# IOzone's automatic mode on the same filesystems, which measures one warm
# pass and gives no answer.  A two-filesystem image lab (ext4 and xfs,
# 1 GiB partitions on a sparse image: the default plan caps its files at
# what the partitions hold, here 64K-512M, the range of `iozone -a -g
# 512M`).  It prints the seconds fslab took per filesystem, the stopping
# rule's record (comparisons decided), the report's first-screen answer
# per band, and, when iozone is on PATH, the seconds of `iozone -a -g 512M`
# on each filesystem and the ratio fslab / iozone.  IOzone 3 is not in
# Debian main (it is in non-free, package iozone3): without it the script
# says so and skips that part.  The lab is torn down on every path.
#
# Usage: scripts/bench-time-to-answer.sh [WORK_DIR] [-- fslab run options]
#        (default /var/tmp/fslab-bench-answer; FSLAB=path/to/fslab;
#        TTA_FS="ext4 xfs", TTA_SIZE=1G, TTA_IOZONE_MAX=512M)
# Measured (the shared 2-core VM, load 2.5 beside another build): the
# default rule 130.8 s (ext4 68.7, xfs 60.7 s; 4.7 trials per test of a
# cell, the large band's cells to the cap 8) against iozone -a -g 512M's
# 37.8 + 36.6 = 74.3 s: fslab / iozone 1.76.  Band lines: 7 of 12 decided
# (xfs faster at sequential write in every band, at random small and
# medium); the rest resolve 6-28%, median 12%.
# Run as root after scripts/install-deps.sh.  It takes minutes per
# filesystem; do not run it on a shared machine at a busy time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=bench-time-to-answer.sh
. "$top/scripts/bench-lib.sh"
bench_lab_args /var/tmp/fslab-bench-answer "$@"
shift "$bench_args_used"
bench_lab_checks python3
mkdir -p "$work"
rm -rf "$work/results"
# shellcheck disable=SC2086 # the list of filesystems splits on purpose
bench_lab_spec "${TTA_SIZE:-1G}" ${TTA_FS:-ext4 xfs}
gmax=${TTA_IOZONE_MAX:-512M}

bench_lab_extra_cleanup() {
	rm -f "$work"/mnt/*/iozone.tmp 2>/dev/null
}

"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
start=$(date +%s.%N)
"$fslab" run --state "$state" --out "$work/results" --quiet "$@"
end=$(date +%s.%N)

fslab_s=$(python3 -c "print('%.1f' % ($end - $start))")
echo "fslab run $*: $fslab_s s in all"
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

"$fslab" report "$work/results" --format text 2>/dev/null | sed -n '/^by file size/,/^$/p'
# how decisive: the band lines (all sizes too) decided, and what the rest resolve
"$fslab" report "$work/results" --format json 2>/dev/null | python3 -c '
import json, sys
b = json.load(sys.stdin).get("bands") or {}
lines = [v for fam in b.values() for v in fam.values() if v.get("next")]
dec = [v for v in lines if v["verdict"] in ("faster", "equivalent")]
res = sorted(100 * v["resolves"] for v in lines if v not in dec and v.get("resolves") is not None)
med = (res[(len(res) - 1) // 2] + res[len(res) // 2]) / 2 if res else 0
print("band lines: %d of %d decided; the rest resolve %s (median %.0f%%)" % (len(dec), len(lines),
      ", ".join("%.0f%%" % r for r in res) or "-", med))
'

if ! command -v iozone >/dev/null; then
	echo "iozone: not on PATH (it is not in Debian main: non-free, or build it from iozone.org); skipped"
	exit 0
fi
iozone_s=0
for d in "$work"/mnt/*/; do
	name=$(basename "$d")
	s=$(date +%s.%N)
	if ! iozone -a -g "$gmax" -f "$d/iozone.tmp" >"$work/iozone-$name.out" 2>&1; then
		rm -f "$d/iozone.tmp"
		echo "  iozone -a -g $gmax on $name failed; its last lines ($work/iozone-$name.out):" >&2
		tail -n 5 "$work/iozone-$name.out" >&2
		exit 1
	fi
	e=$(date +%s.%N)
	rm -f "$d/iozone.tmp"
	python3 -c "print('  iozone -a -g $gmax on %-6s %8.1f s' % ('$name', $e - $s))"
	iozone_s=$(python3 -c "print($iozone_s + $e - $s)")
done
python3 -c "print('fslab / iozone: %.1f s / %.1f s = %.2f' % ($fslab_s, $iozone_s, $fslab_s / $iozone_s))"
