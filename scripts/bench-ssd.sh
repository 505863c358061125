#!/bin/sh
# Do an image lab's figures come from the disk under it, not from the
# host's page cache?  Three measurements, printed (docs/ssd.md has the
# figures of the last run):
#
#  1. A 2-filesystem image lab (ext4 and btrfs, 700M each), 3 identical cold
#     runs (write, read, random_read; files 4M-32M; records 64K-1M; 3
#     trials; --probe fresh: each run measures): the device probe's read
#     bound of each run and its spread,
#     and the read and random_read rankings, which should be the same in
#     all three.
#  2. The same lab, 3 identical warm quick runs: how many cells are flagged
#     page-cache in each, and their spread (the flag should not depend on
#     the run).
#  3. With FSLAB_SSD_FULL=1 also the default five-filesystem image lab
#     (100G sparse image; the demo's run: files 64K-4M, 3 trials, cold),
#     once as fslab runs it and once with the whole page cache dropped
#     before every read pass (FSLAB_DROP_METHOD=drop_caches): the read
#     family's rankings side by side.  This part takes 20-30 minutes.
#
# Usage: scripts/bench-ssd.sh [WORK_DIR]   (default /var/tmp/fslab-bench-ssd;
#        FSLAB=path/to/fslab).  Run as root after scripts/install-deps.sh
#        --tests (python3 reads the manifests and reports).  Every lab is
#        torn down on every path.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/var/tmp/fslab-bench-ssd}
fslab=${FSLAB:-$top/build/fslab}
state=$work/state.json
PATH=$PATH:/usr/sbin:/sbin

name=bench-ssd.sh
. "$top/scripts/bench-lib.sh"
bench_lab_checks python3
mkdir -p "$work"
rm -rf "$work"/cold-* "$work"/warm-* "$work"/full-*


# rankings RESULTS TEST...: "test: fs score, fs score" from the report's JSON
rankings() {
	dir=$1
	shift
	"$fslab" report "$dir" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)["rankings"]
for t in sys.argv[1:]:
    rows = (r.get(t) or {}).get("ranked") or []
    print("    %-12s %s" % (t + ":", ", ".join("%s %.0f MiB/s%s" % (x["filesystem"], x["score_kib_s"] / 1024,
          " (set aside: %s)" % "+".join(x["flags"]) if x.get("set_aside") else "") for x in rows)))
' "$@"
}

# probe RESULTS: the probe's read bound of each filesystem, MB/s
probe() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print("    probe read bound: " + ", ".join("%s %.0f MiB/s" % (f["name"], (f.get("device_read_kib_s") or 0) / 1024)
      for f in m["filesystems"]) + "; loop: " + ", ".join("%s %s" % (f["name"], f.get("loop_io") or "?")
      for f in m["filesystems"]))
' "$1/manifest.json"
}

cat >"$work/spec2.ini" <<-SPEC
	[fs ext4]
	type = ext4
	size = 700M

	[fs btrfs]
	type = btrfs
	size = 700M
SPEC
echo "== 1. two-filesystem image lab (ext4, btrfs 700M): 3 identical cold runs"
"$fslab" setup --image "$work/lab2.img" --spec "$work/spec2.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
for i in 1 2 3; do
	"$fslab" run --state "$state" --out "$work/cold-$i" --quiet --cache cold --trials 3 --probe fresh \
		--tests write,read,random_read --file-sizes 4M-32M --record-sizes 64K-1M
	echo "  run $i"
	probe "$work/cold-$i"
	rankings "$work/cold-$i" read random_read
done
python3 - "$work" <<-'PY'
	import json, sys
	w = sys.argv[1]
	bounds, orders = {}, {}
	for i in (1, 2, 3):
	    m = json.load(open("%s/cold-%d/manifest.json" % (w, i)))
	    for f in m["filesystems"]:
	        bounds.setdefault(f["name"], []).append(f.get("device_read_kib_s") or 0)
	for n, b in bounds.items():
	    lo, hi = min(b), max(b)
	    print("  probe read bound of %s: %.0f-%.0f MiB/s, spread %.0f%% (max/min - 1)" %
	          (n, lo / 1024, hi / 1024, 100 * (hi / lo - 1) if lo else float("nan")))
PY

echo "== 2. the same lab: 3 identical warm quick runs, cells flagged page-cache"
for i in 1 2 3; do
	"$fslab" run --state "$state" --out "$work/warm-$i" --quiet --sweep quick --cache warm --probe fresh
done
python3 - "$work" <<-'PY'
	import csv, glob, sys
	w = sys.argv[1]
	counts = []
	for i in (1, 2, 3):
	    pc = rows = 0
	    for p in glob.glob("%s/warm-%d/*.csv" % (w, i)):
	        for r in csv.DictReader(open(p)):
	            rows += 1
	            pc += "page-cache" in (r.get("flag") or "")
	    counts.append(pc)
	    print("  run %d: %d of %d cells flagged page-cache" % (i, pc, rows))
	lo, hi = min(counts), max(counts)
	print("  spread: %d-%d, %.1f%% of the largest" % (lo, hi, 100 * (hi - lo) / hi if hi else 0))
PY
"$fslab" teardown --state "$state" --yes >/dev/null

if [ "${FSLAB_SSD_FULL:-0}" != 1 ]; then
	echo "== 3. skipped (FSLAB_SSD_FULL=1 runs the default five-filesystem lab, 20-30 minutes)"
	exit 0
fi
echo "== 3. the default five-filesystem image lab: the demo's run, cold as fslab runs it and with drop_caches"
"$fslab" setup --image "$work/lab5.img" --state "$state" --mount-root "$work/mnt" --yes >/dev/null
"$fslab" run --state "$state" --out "$work/full-cold" --quiet --file-sizes 64K-4M --trials 3
FSLAB_DROP_METHOD=drop_caches "$fslab" run --state "$state" --out "$work/full-drop" --quiet \
	--file-sizes 64K-4M --trials 3
echo "  fslab's cold mode:"
rankings "$work/full-cold" read reread random_read backward_read stride_read fread freread
echo "  the whole page cache dropped before every read pass:"
rankings "$work/full-drop" read reread random_read backward_read stride_read fread freread
