#!/bin/sh
# The known-truth harness: two filesystems on loop devices that the block
# layer throttles to known rates, so the true ratio between them is known
# and is not synthetic noise.  It makes two sparse images, attaches each
# with `losetup --direct-io=on`, makes one filesystem on each and mounts
# them under a fresh temporary root; makes a cgroup (cgroup v2 io.max when
# the io controller can be enabled, else cgroup v1 blkio.throttle.*) that
# limits reads and writes of each loop device; and runs, from inside the
# cgroup, `fslab run --dir a=... --dir b=... --cache direct` on a small
# sweep, then `fslab report --format json`, for each experiment:
#
#   planted Kx  a at R, b at K x R: b must be called faster, and the ratio's
#               interval must hold K (or miss it by at most 2%, below)
#   A-A         a and b both at R: never "slower" or "faster"
#
# and in every experiment each filesystem's median rate per test must be
# within 10% of its throttle (else the throttle is not what is measured).
# Prints the planted against the measured, and exits 1 when a check fails,
# 77 when it cannot run here (not root, no io or blkio controller, no
# mkfs, losetup or python3), 0 otherwise.
#
# Direct mode, because the throttle acts on the bios a task submits, in
# that task's cgroup: with O_DIRECT every byte of a timed pass is a bio
# fslab submits itself, inside the timed loop.  In cold mode a write pass
# is written back by the kernel's flusher threads (on cgroup v1 charged to
# the root cgroup: not throttled at all) and reads go through readahead.
#
# Tolerances, and why:
#   rate 10%    a pass's rate against its throttle.  The throttle's first
#               slice lets a pass's first records through early (a 16 MiB
#               write measured 2.7% over its throttle), waits are rounded
#               to timer ticks, and a loaded machine delays the wake-ups;
#               measured here within 3%.  A throttle that is not applied
#               (a loop device on a disk reads at hundreds of MB/s) or set
#               on the wrong device misses by far more.
#   ratio 2%    the distance allowed between the planted ratio and the
#               report's interval.  Each throttled device's delivered rate
#               is off its setting by up to ~1% (dd with O_DIRECT under the
#               same throttle, no fslab: 4.2 MB/s at 4 MiB/s, 16.8 MB/s at
#               16 MiB/s), a bias the interval does not cover: it covers
#               trial-to-trial noise, and a throttled read varies by 0.01-0.1%
#               between trials.  The table says "in" when the interval holds
#               the planted ratio and "near x%" when it misses by x <= 2%.
#   A/A         never slower or faster beyond the devices' own 2% (a
#               real difference inside it, the interval within 2% of 1, is
#               the two devices', not a false split); the report's
#               comparisons are family-wise corrected at 5%:
#               an A/A experiment fails by chance at most 5% of the time;
#               a failure that repeats is a defect.
#
# Usage: scripts/bench-truth.sh [--quick] [--fs ext4|xfs] [--keep-going]
#   --quick   (CI) R = 8 MiB/s; planted 2x and A/A; write,read of a 16M
#             file in 1M records, 3 trials, no device probe: about a minute
#   default   R = 16 MiB/s; planted 2x, 1.5x and A/A; 16M-64M files in 1M
#             records, 5 trials, the device probe (16M) printed (not
#             checked: the fastest of 3 short probes is a ceiling, 1-21%
#             over the throttle here): about 8 minutes
#   FSLAB=path/to/fslab (default build/fslab); TMPDIR for the images
#   (default /var/tmp; sparse, 512M each); FSLAB_TRUTH_KEEP=DIR keeps each
#   experiment's results (the CSVs, manifest, report JSON) in DIR.
# Run as root.  Everything it made (mounts, loop devices, the cgroup, the
# images) is removed when it ends, also on failure and Ctrl-C.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=bench-truth.sh
fslab=${FSLAB:-$top/build/fslab}
PATH=$PATH:/usr/sbin:/sbin
quick=0
fs=ext4
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--fs) [ $# -ge 2 ] || { echo "$name: --fs needs ext4 or xfs" >&2; exit 2; }
		fs=$2; shift ;;
	--fs=*) fs=${1#--fs=} ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "$name: unknown option '$1' (see $name --help)" >&2; exit 2 ;;
	esac
	shift
done
case $fs in
ext4) mkfs_cmd="mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0" ;;
xfs) mkfs_cmd="mkfs.xfs -q -f" ;;
*) echo "$name: --fs '$fs': give ext4 or xfs" >&2; exit 2 ;;
esac
if [ $quick = 1 ]; then
	rate_mib=8
	plants="2"
	sweep="--file-sizes 16M-16M --record-sizes 1M --trials 3 --no-device-probe"
else
	rate_mib=16
	plants="2 1.5"
	sweep="--file-sizes 16M-64M --record-sizes 1M --trials 5 --probe-size 16M"
fi

# cannot_run REASON: this machine cannot host the harness (exit 77, which
# ctest reports as skipped).
cannot_run() {
	echo "$name: cannot run here: $1" >&2
	exit 77
}
[ "$(id -u)" -eq 0 ] || cannot_run "needs root (loop devices, mkfs, mount, a cgroup)"
for tool in "mkfs.$fs" losetup mount umount findmnt python3; do
	command -v "$tool" >/dev/null || cannot_run "$tool is missing (scripts/install-deps.sh --tests)"
done
if [ ! -x "$fslab" ]; then
	echo "$name: no fslab at $fslab: build it (cmake -S . -B build && cmake --build build) or set FSLAB" >&2
	exit 2
fi

# Everything made from here on is undone when the script ends, however
# it ends.
root=
cg=
cg_enabled_io=0
loops=
child=
cleanup() {
	status=$?
	trap - EXIT INT TERM
	set +e
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [ -n "${FSLAB_TRUTH_KEEP:-}" ] && [ -n "$root" ]; then
		mkdir -p "$FSLAB_TRUTH_KEEP" && cp -r "$root"/results-* "$FSLAB_TRUTH_KEEP/"
	fi
	left=
	for n in a b; do
		[ -n "$root" ] || break
		if findmnt -rn -M "$root/$n" >/dev/null 2>&1; then
			umount "$root/$n" 2>/dev/null || { sleep 1; umount "$root/$n"; } ||
				left="$left $root/$n"
		fi
	done
	for dev in $loops; do
		# only the loop device this script attached, while it still
		# holds this script's image
		case $(losetup -nO BACK-FILE "$dev" 2>/dev/null) in
		"$root"/*.img*) losetup -d "$dev" || left="$left $dev" ;;
		esac
	done
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		rmdir "$cg" 2>/dev/null || { sleep 1; rmdir "$cg"; } || left="$left $cg"
	fi
	if [ $cg_enabled_io = 1 ]; then
		echo -io >"$v2root/cgroup.subtree_control" 2>/dev/null || true
	fi
	if [ -n "$root" ] && [ -d "$root" ]; then
		if [ -z "$left" ]; then
			rm -rf "$root"
		else
			echo "$name: could not remove:$left; $root is kept (remove them, then it)" >&2
			[ $status -ne 0 ] || status=1
		fi
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The controller: cgroup v2's io when it is (or can be) enabled in the
# v2 root's subtree_control, else cgroup v1's blkio.
cg_kind=
v2root=$(findmnt -rn -t cgroup2 -o TARGET | head -n 1)
if [ -n "$v2root" ] && grep -qw io "$v2root/cgroup.controllers" 2>/dev/null; then
	if grep -qw io "$v2root/cgroup.subtree_control"; then
		cg_kind=v2
	elif echo +io >"$v2root/cgroup.subtree_control" 2>/dev/null; then
		cg_kind=v2
		cg_enabled_io=1
	fi
fi
if [ -z "$cg_kind" ]; then
	v1root=$(findmnt -rn -t cgroup -o TARGET,OPTIONS |
		awk '$2 ~ /(^|,)blkio(,|$)/ { print $1; exit }')
	[ -n "$v1root" ] && [ -e "$v1root/blkio.throttle.read_bps_device" ] && cg_kind=v1
fi
[ -n "$cg_kind" ] || cannot_run "no cgroup v2 io controller (cgroup.controllers) and no cgroup v1 blkio mount"

# attach NAME: $root/NAME.img, its loop device (dev, majmin), a filesystem
# on it, mounted at $root/NAME.
attach() {
	truncate -s 512M "$root/$1.img"
	dev=$(losetup --find --show --direct-io=on "$root/$1.img")
	loops="$loops $dev"
	majmin=$(cat "/sys/class/block/${dev#/dev/}/dev")
	$mkfs_cmd "$dev" >/dev/null
	mkdir "$root/$1"
	mount "$dev" "$root/$1"
}
root=$(mktemp -d "${TMPDIR:-/var/tmp}/fslab-truth.XXXXXX")
attach a
dev_a=$dev majmin_a=$majmin
attach b
dev_b=$dev majmin_b=$majmin
if [ $cg_kind = v2 ]; then
	cg=$v2root/fslab-truth.$$
else
	cg=$v1root/fslab-truth.$$
fi
mkdir "$cg"
if [ $cg_kind = v2 ] && [ ! -e "$cg/io.max" ]; then
	cannot_run "no io.max in $cg (a kernel without CONFIG_BLK_DEV_THROTTLING)"
fi
echo "$name: $fs on $dev_a ($majmin_a) and $dev_b ($majmin_b), direct I/O loop devices;" \
	"cgroup $cg_kind $cg; R = $rate_mib MiB/s"

# throttle MAJ:MIN BYTES_PER_S: reads and writes of the device, for the
# tasks of $cg.
throttle() {
	if [ $cg_kind = v2 ]; then
		echo "$1 rbps=$2 wbps=$2" >"$cg/io.max"
	else
		echo "$1 $2" >"$cg/blkio.throttle.read_bps_device"
		echo "$1 $2" >"$cg/blkio.throttle.write_bps_device"
	fi
}

# experiment NAME K: a at R, b at K x R; fslab run in the cgroup, the
# report, the checks.  Appends the table's rows to $root/table.
failed=0
experiment() {
	bps_a=$((rate_mib * 1048576))
	bps_b=$(python3 -c "import sys; print(int(float(sys.argv[1]) * $bps_a))" "$2")
	throttle "$majmin_a" "$bps_a"
	throttle "$majmin_b" "$bps_b"
	out=$root/results-$1
	start=$(date +%s)
	# shellcheck disable=SC2086 # $sweep is a list of options
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
		"$fslab" run --dir "a=$root/a" --dir "b=$root/b" --out "$out" \
		--cache direct --tests write,read $sweep --quiet &
	child=$!
	wait "$child" || { echo "$name: fslab run failed ($1)" >&2; exit 1; }
	child=
	echo "$name: $1: fslab run --cache direct --tests write,read $sweep: $(($(date +%s) - start)) s"
	"$fslab" report "$out" --format json >"$out.json"
	python3 - "$1" "$2" "$bps_a" "$bps_b" "$out" >>"$root/table" <<-'PY' || failed=1
		import csv, glob, json, os, statistics, sys
		exp, k, bps = sys.argv[1], float(sys.argv[2]), {"a": int(sys.argv[3]), "b": int(sys.argv[4])}
		out = sys.argv[5]
		RATE_TOL, RATIO_TOL = 0.10, 0.02
		rep = json.load(open(out + ".json"))
		ok = True
		trials = {}
		for path in glob.glob(os.path.join(out, "*.csv")):
		    for row in csv.DictReader(open(path)):
		        if row["status"] == "ok":
		            trials.setdefault((row["filesystem"], row["test"]), []).append(float(row["throughput_kib_s"]))
		for test in ("write", "read"):
		    for fs in ("a", "b"):
		        v = trials.get((fs, test), [])
		        want = bps[fs] / 1024.0
		        if not v:
		            print("rate  %-12s %-5s %s  throttle %7.0f KiB/s  no trials  FAIL" % (exp, test, fs, want))
		            ok = False
		            continue
		        med = statistics.median(v)
		        good = abs(med / want - 1) <= RATE_TOL
		        ok &= good
		        print("rate  %-12s %-5s %s  throttle %7.0f KiB/s  measured %7.0f (%.0f-%.0f, %d trials)  %+.1f%%  %s" % (
		            exp, test, fs, want, med, min(v), max(v), len(v), 100 * (med / want - 1), "ok" if good else "FAIL"))
		    pair = None
		    for p in (rep["rankings"].get(test) or {}).get("pairs") or []:
		        if {p["a"], p["b"]} == {"a", "b"}:
		            pair = p
		    if pair is None:
		        print("ratio %-12s %-5s b/a  planted %.3f  no comparison in the report  FAIL" % (exp, test, k))
		        ok = False
		        continue
		    word = pair.get("verdict") or "none"
		    r = pair["ratio"]
		    lo, hi = pair.get("ratio_ci95") or (float("nan"), float("nan"))
		    if pair["a"] == "a":  # the report's a/b: turn it to b/a
		        r, lo, hi = 1 / r, 1 / hi, 1 / lo
		        word = {"slower": "faster", "faster": "slower"}.get(word, word)
		    miss = lo / k - 1 if k < lo else (k / hi - 1 if k > hi else 0.0)
		    where = "in" if miss == 0 else "near %.1f%%" % (100 * miss) if miss <= RATIO_TOL else "outside by %.1f%%" % (100 * miss)
		    if k == 1:
		        # two devices under one setting each deliver it to ~1%: a
		        # difference inside that (the interval within RATIO_TOL of
		        # 1) is the devices', not a false split
		        good = word not in ("slower", "faster") or (lo >= 1 - RATIO_TOL and hi <= 1 + RATIO_TOL)
		    else:
		        good = word == "faster" and miss <= RATIO_TOL
		    ok &= good
		    print("ratio %-12s %-5s b/a  planted %.3f  measured %.3f [%.3f-%.3f] %-8s b %-12s %s" % (
		        exp, test, k, r, lo, hi, where, word, "ok" if good else "FAIL"))
		sys.exit(0 if ok else 1)
	PY
	if [ $quick = 0 ]; then
		# the device probe's figures, printed, not checked: each is the
		# fastest of 3 short probes, O_DIRECT or buffered, a ceiling that
		# the throttle's first slice and (cgroup v1) writeback by the
		# flusher threads, outside the cgroup, lift above the throttle
		python3 - "$1" "$bps_a" "$bps_b" "$out/manifest.json" >>"$root/table" <<-'PY'
			import json, sys
			exp, bps = sys.argv[1], {"a": int(sys.argv[2]), "b": int(sys.argv[3])}
			for f in json.load(open(sys.argv[4])).get("filesystems") or []:
			    n = f.get("name")
			    if n not in bps:
			        continue
			    want = bps[n] / 1024.0
			    for key in ("device_write_kib_s", "device_read_kib_s"):
			        got = f.get(key)
			        print("probe %-12s %-5s %s  throttle %7.0f KiB/s  measured %7s  %s  (not checked)" % (
			            exp, key.split("_")[1], n, want, "%.0f" % got if got else "none",
			            "%+.1f%%" % (100 * (got / want - 1)) if got else ""))
		PY
	fi
}

: >"$root/table"
for k in $plants; do
	experiment "planted-${k}x" "$k"
done
experiment A-A 1
echo
cat "$root/table"
echo
if [ $failed = 0 ]; then
	echo "$name: truth recovered: every rate within 10% of its throttle, the planted ratios found, the A/A pair not split"
else
	echo "$name: TRUTH CHECK FAILED: the FAIL rows above (a rate off its throttle, a planted ratio not recovered, or an A/A pair called slower/faster)" >&2
	exit 1
fi
