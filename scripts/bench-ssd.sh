#!/bin/sh
# Do an image lab's figures come from the disk under it, not from the
# host's page cache?  The measurements of issue 20's acceptance, printed
# (docs/ssd.md has the figures of the last run):
#
#  1. A 2-filesystem image lab (ext4 and btrfs, 700M each), 3 identical cold
#     runs (write, read, random_read; files 4M-32M; records 64K-1M; 3
#     trials; each run measures): the device probe's read
#     bound of each run and its spread (at most 25% passes), and the read
#     and random_read order the report decides (its pairs called faster or
#     slower), which must be the same in all three.
#  2. The same lab, 3 identical warm quick runs: how many cells are flagged
#     page-cache in each, and their spread (within 5% passes: the flag
#     should not depend on the run).
#  3. With FSLAB_SSD_FULL=1 also the default five-filesystem image lab
#     (100G sparse image; the demo's run: files 64K-4M, 3 trials, cold),
#     once as fslab runs it and once with the whole page cache dropped
#     before every read pass (FSLAB_DROP_METHOD=drop_caches): the read
#     family's decided order side by side, and whether the two agree
#     (every pair one run calls faster or slower the other does not call
#     the other way; ties and inconclusive pairs may differ).
#  4. With FSLAB_SSD_FULL=1 also `fslab reproduce --honest` on the default
#     image lab with files up to FSLAB_SSD_REPRO_MAX (default 16M: a
#     reduced sweep, 3 trials at most) and the verdict on the 2023 claim
#     "btrfs is the fastest filesystem for reads", warm and honest.
#  Parts 3 and 4 take about an hour together.  FSLAB_SSD_PARTS="3 4" (any
#  of 1 2 3 4) runs only those parts.
#  A decided order lists "a > b" for each pair the report calls faster or
#  slower; "a = b" (equivalent) and "a ? b" (inconclusive or not tested)
#  are within noise, and may differ between runs.
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
rm -rf "$work"/cold-* "$work"/warm-* "$work"/full-* "$work"/repro


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

# decided TEST DIR...: the order each run's report decides for TEST (its
# pairs called faster or slower; the others are within noise), then
# whether the runs agree: a pair one run calls faster and another slower
# is a conflict; a pair decided in one run and a tie or inconclusive in
# another is not.  Prints "decided order: same" or "decided order: DIFFERENT".
decided() {
	t=$1
	shift
	for d in "$@"; do
		"$fslab" report "$d" --format json >"$d/report-pairs.json"
	done
	python3 - "$t" "$@" <<-'PY'
	import json, sys
	t, dirs = sys.argv[1], sys.argv[2:]
	runs = []
	for d in dirs:
	    pairs = ((json.load(open(d + "/report-pairs.json"))["rankings"].get(t) or {}).get("pairs")) or []
	    rel, open_ = {}, []
	    for p in pairs:
	        a, b, v = p["a"], p["b"], p["verdict"]
	        if v in ("faster", "slower"):
	            hi, lo = (a, b) if v == "faster" else (b, a)
	            rel[frozenset((a, b))] = (hi, lo)
	        else:
	            open_.append("%s %s %s" % (a, "=" if v == "equivalent" else "?", b))
	    runs.append(rel)
	    print("    %-12s %s: %s%s" % (t + ":", d.rsplit("/", 1)[-1],
	          ", ".join("%s > %s" % x for x in sorted(rel.values())) or "nothing decided",
	          "; not decided: " + ", ".join(open_) if open_ else ""))
	conflicts = set()
	for i in range(len(runs)):
	    for j in range(i + 1, len(runs)):
	        for k, x in runs[i].items():
	            if k in runs[j] and runs[j][k] != x:
	                conflicts.add("%s > %s in %s, < in %s" % (x[0], x[1], dirs[i].rsplit("/", 1)[-1],
	                              dirs[j].rsplit("/", 1)[-1]))
	print("    %-12s decided order: %s" % (t + ":", "DIFFERENT (" + "; ".join(sorted(conflicts)) + ")"
	      if conflicts else "same"))
	PY
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
parts=${FSLAB_SSD_PARTS:-1 2}
[ "${FSLAB_SSD_FULL:-0}" = 1 ] && parts=${FSLAB_SSD_PARTS:-1 2 3 4}
want() { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if want 1 || want 2; then
	"$fslab" setup --image "$work/lab2.img" --spec "$work/spec2.ini" --state "$state" \
		--mount-root "$work/mnt" --yes >/dev/null
fi
if want 1; then
echo "== 1. two-filesystem image lab (ext4, btrfs 700M): 3 identical cold runs"
for i in 1 2 3; do
	"$fslab" run --state "$state" --out "$work/cold-$i" --quiet --cache cold --trials 3 \
		--tests write,read,random_read --file-sizes 4M-32M --record-sizes 64K-1M
	echo "  run $i"
	probe "$work/cold-$i"
	rankings "$work/cold-$i" read random_read
done
echo "  the order the reports decide, run by run:"
for t in read random_read; do
	decided $t "$work/cold-1" "$work/cold-2" "$work/cold-3"
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
	    spread = 100 * (hi / lo - 1) if lo else float("inf")
	    print("  probe read bound of %s: %.0f-%.0f MiB/s, spread %.0f%% (max/min - 1): %s" %
	          (n, lo / 1024, hi / 1024, spread, "passes (at most 25%)" if spread <= 25 else "FAILS (over 25%)"))
PY
fi

if want 2; then
echo "== 2. the same lab: 3 identical warm quick runs, cells flagged page-cache"
for i in 1 2 3; do
	"$fslab" run --state "$state" --out "$work/warm-$i" --quiet --sweep quick --cache warm
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
	spread = 100 * (hi - lo) / hi if hi else 0
	print("  spread: %d-%d, %.1f%% of the largest: %s" % (lo, hi, spread,
	      "passes (within 5%)" if spread <= 5 else "FAILS (over 5%)"))
PY
fi
[ -e "$state" ] && "$fslab" teardown --state "$state" --yes >/dev/null

if ! want 3 && ! want 4; then
	echo "== 3. and 4. skipped (FSLAB_SSD_FULL=1 runs the default five-filesystem lab and reproduce --honest, about an hour)"
	exit 0
fi
reads="read reread random_read backward_read stride_read fread freread"
if want 3; then
echo "== 3. the default five-filesystem image lab: the demo's run, cold as fslab runs it and with drop_caches"
"$fslab" setup --image "$work/lab5.img" --state "$state" --mount-root "$work/mnt" --yes >/dev/null
"$fslab" run --state "$state" --out "$work/full-cold" --quiet --file-sizes 64K-4M --trials 3
FSLAB_DROP_METHOD=drop_caches "$fslab" run --state "$state" --out "$work/full-drop" --quiet \
	--file-sizes 64K-4M --trials 3
"$fslab" teardown --state "$state" --yes >/dev/null
rm -f "$work/lab5.img"
echo "  fslab's cold mode:"
rankings "$work/full-cold" $reads
echo "  the whole page cache dropped before every read pass:"
rankings "$work/full-drop" $reads
echo "  the order each decides (full-cold: fslab's cold mode, full-drop: drop_caches):"
for t in $reads; do
	decided $t "$work/full-cold" "$work/full-drop"
done
fi
want 4 || exit 0

max=${FSLAB_SSD_REPRO_MAX:-16M}
echo "== 4. fslab reproduce --honest on the default image lab, files up to $max, at most 3 trials"
"$fslab" reproduce --image "$work/lab5.img" --honest --max-file "$max" --max-trials 3 --state "$state" \
	--mount-root "$work/mnt" --out "$work/repro" --quiet --yes >"$work/repro.log" 2>&1 ||
	{ echo "$name: fslab reproduce failed, see $work/repro.log" >&2; exit 1; }
rm -f "$work/lab5.img"
python3 - "$work/repro/report/report.json" <<-'PY'
	import json, sys
	c = [x for x in json.load(open(sys.argv[1]))["claims"] if x["claim"] == 2][0]
	print("  2023 claim \"%s\": %s (%s)" % (c["title"], c["verdict"], c["decided_by"]))
	for r in c["runs"]:
	    print("    %s run (%s): %s; %s" % (r["run"], r["kind"], r["verdict"], r["evidence"]))
	v = c["verdict"]
	print("  %s" % ("FAILS: the honest runs confirm 2023's claim" if v == "holds" else
	      "FAILS: one honest run confirms 2023's claim" if v == "the runs disagree" else
	      "passes: no honest run confirms it"))
	PY
