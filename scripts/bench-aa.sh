#!/bin/sh
# A real A/A experiment: one image lab with the same filesystem twice (two
# ext4 partitions of 400M, "a" and "b", made and mounted alike), the
# default `fslab run` (the lab preset, its default stopping rule), then
# `fslab report`: every comparison of a with b must read "equivalent" or
# "inconclusive", never "slower" or "faster", in the matrix and on the
# by-file-size screen (the report's family-wise error is 5%, so a false
# call here is either that 5% or a defect).
# Prints, per test, the ratio, its simultaneous interval and the word, and
# the count of each word; exits 1 when any comparison is slower or faster.
# The lab is torn down on every path.
#
# Usage: scripts/bench-aa.sh [WORK_DIR] [-- fslab run options]
#        (default /var/tmp/fslab-bench-aa; FSLAB=path/to/fslab)
# e.g.   scripts/bench-aa.sh /var/tmp/aa -- --file-sizes 64K-1M
# Run as root after scripts/install-deps.sh --tests (python3 reads the
# report's JSON).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=bench-aa.sh
. "$top/scripts/bench-lib.sh"
bench_lab_args /var/tmp/fslab-bench-aa "$@"
shift "$bench_args_used"
bench_lab_checks python3
mkdir -p "$work"
rm -rf "$work/results"
cat >"$work/spec.ini" <<-SPEC
	[fs a]
	type = ext4
	size = 400M

	[fs b]
	type = ext4
	size = 400M
SPEC


"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null
start=$(date +%s)
"$fslab" run --state "$state" --out "$work/results" --quiet "$@"
echo "fslab run $*: $(($(date +%s) - start)) s"
"$fslab" report "$work/results" --format json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
r = doc["rankings"]
words = {}
for t, v in r.items():
    rows = v.get("ranked") or []
    if len(rows) < 2:
        print("  %-15s not ranked" % t)
        continue
    x = rows[1]
    w = x.get("verdict") or "not tested"
    words[w] = words.get(w, 0) + 1
    lo, hi = x.get("ratio_ci95") or (float("nan"), float("nan"))
    print("  %-15s %s/%s %.3f [%.3f-%.3f] %s" % (t, x["filesystem"], rows[0]["filesystem"],
          x.get("ratio_to_best") or float("nan"), lo, hi, w))
print("A/A: " + ", ".join("%s %d" % kv for kv in sorted(words.items())))
for fam, bands in (doc.get("bands") or {}).items():
    for band, v in bands.items():
        w = v.get("verdict") or "not tested"
        words[w] = words.get(w, 0) + 1
        print("  %s, %s: %s" % (fam, band, v.get("text")))
sys.exit(1 if words.get("slower", 0) + words.get("faster", 0) else 0)
'
