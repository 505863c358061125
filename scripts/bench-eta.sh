#!/bin/sh
# How good fslab run's ETA is (issue 24): on a 2-filesystem image lab
# (ext4 and xfs, 400M partitions on a sparse image) it runs a few plans,
# reads the estimate each prints at the end of its first trial (the
# machine-readable eta_s= eta_lo_s= eta_hi_s= of the last "trial 1/" pass
# line on stderr, which is not a terminal here: the figure expected and
# its range) and the time the run then actually took, and prints
# estimate against actual and the errors.  A fixed number of trials
# gives a figure (the goal: within 25% of the actual time from the end of
# the first trial); --stop decided a range up to the cap.
#
# Plans (each a `fslab run` on the whole lab):
#   demo     scripts/demo.sh's run: --file-sizes 64K-4M --trials 3 (cold,
#            fixed trials: the estimate is one figure)
#   default  the default run (lab preset: cold, --stop decided, 3..8
#            trials), reduced to --file-sizes 64K-1M unless FULL=1 (the
#            whole 64K-64M grid takes 10-30 minutes per filesystem)
#
# Usage: scripts/bench-eta.sh [WORK_DIR] [PLAN...]
#        (default /var/tmp/fslab-bench-eta, plans: demo default;
#        FSLAB=path/to/fslab, FULL=1 for the whole default grid)
# Run as root after scripts/install-deps.sh.  Figures taken on a loaded
# machine are noisy: say so when quoting them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=bench-eta.sh
. "$top/scripts/bench-lib.sh"
if [ $# -gt 0 ]; then
	bench_lab_args /var/tmp/fslab-bench-eta "$1"
	shift
else
	bench_lab_args /var/tmp/fslab-bench-eta
fi
plans=${*:-demo default}
bench_lab_checks python3
mkdir -p "$work"
rm -rf "$work/results"
mkdir -p "$work/results"
bench_lab_spec 400M ext4 xfs

"$fslab" setup --image "$work/lab.img" --spec "$work/spec.ini" --state "$state" \
	--mount-root "$work/mnt" --yes >/dev/null

for plan in $plans; do
	case $plan in
	demo) set -- --file-sizes 64K-4M --trials 3 ;;
	default)
		if [ "${FULL:-0}" = 1 ]; then set --; else set -- --file-sizes 64K-1M; fi ;;
	*) echo "$name: unknown plan '$plan' (known: demo default)" >&2; exit 2 ;;
	esac
	python3 - "$plan" "$fslab" "$state" "$work/results/$plan" "$@" <<-'PY'
		import re, subprocess, sys, time
		plan, fslab, state, out, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
		cmd = [fslab, "run", "--state", state, "--out", out] + extra
		pat = re.compile(r"trial (\d+)/\d+ .*eta_s=(-?[0-9.]+) eta_lo_s=([0-9.]+) eta_hi_s=([0-9.]+) done_pct=([0-9.]+)")
		start = time.monotonic()
		first = None  # (when, point, lo, hi) of the last pass line of trial 1
		log = open(out + ".log", "w")
		p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
		for line in p.stderr:
		    log.write(line)
		    m = pat.search(line)
		    if m and int(m.group(1)) == 1:
		        first = (time.monotonic(), float(m.group(2)), float(m.group(3)), float(m.group(4)))
		rc = p.wait()
		end = time.monotonic()
		if rc != 0 or first is None:
		    sys.exit("%s: fslab run exited %d%s; see %s.log" %
		             (plan, rc, "" if first else " (no trial 1 pass line)", out))
		actual = end - first[0]
		point, lo, hi = first[1], first[2], first[3]
		if point < 0:  # no figure (the range alone): its middle
		    point = (lo + hi) / 2
		err = lambda v: 100 * (v - actual) / actual
		ok = abs(err(point)) <= 25
		print("%-8s %s" % (plan, " ".join(extra) or "(the default grid)"))
		print("         run %.1f s; after trial 1 (%.1f s in): estimate %.1f s (%.1f..%.1f) left, actual %.1f s"
		      % (end - start, first[0] - start, point, lo, hi, actual))
		print("         error: estimate %+.0f%%, range %+.0f%%..%+.0f%% (goal: the estimate within 25%%: %s)"
		      % (err(point), err(lo), err(hi), "met" if ok else "NOT met"))
	PY
done
