#!/bin/sh
# What another cap or minimum of the decided rule (docs/run.md "When the run
# stops") would have cost and decided on a run already made: the rule's own
# code replays the run's rows trial by trial (tests/bench/stop_replay.c) and
# prints, per filesystem, the timed seconds of the rows it would have run
# against the run's, and the comparisons decided and given up.  A rule that
# stops no later than the run did replays exactly (the recorded cap gives
# the run's own figures back); "short" counts tests it wanted beyond the
# run's last trial of them (their figures are then lower bounds).
#
# Usage: scripts/bench-stop-replay.sh RESULTS_DIR [MAX_TRIALS ...]
#        (BUILD=dir: a build configured with -DFSLAB_TESTS=ON, default build/)
# e.g.   scripts/bench-stop-replay.sh /var/tmp/tta-final/results 8 6
# Measured on a whole default run of a 3-filesystem image lab (ext4, xfs,
# btrfs; a machine loaded 7-9): the recorded cap of 10 gave back the run
# exactly (385 of 3861 comparisons decided; timed 132.7/120.5/171.8 s);
# a cap of 8: 313 decided, 112.3/101.4/144.2 s; 6: 242, 95.4/86.3/121.6 s.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
if [ $# -lt 1 ] || [ ! -f "$1/manifest.json" ]; then
	echo "usage: bench-stop-replay.sh RESULTS_DIR [MAX_TRIALS ...] (a results directory with its manifest.json)" >&2
	exit 2
fi
dir=$1
shift
if [ ! -f "$build/CMakeCache.txt" ]; then
	echo "bench-stop-replay.sh: $build is not a configured build directory; run" >&2
	echo "  cmake -S $top -B $build -DFSLAB_TESTS=ON" >&2
	exit 2
fi
command -v python3 >/dev/null ||
	{ echo "bench-stop-replay.sh: python3 reads the manifest (scripts/install-deps.sh --tests)" >&2; exit 1; }
cmake --build "$build" --target stop_replay >/dev/null
caps=$*
for c in $caps; do
	case $c in
	''|*[!0-9]*) echo "bench-stop-replay.sh: $c: a cap is a number of trials" >&2; exit 2 ;;
	esac
done
info=$(python3 - "$dir/manifest.json" <<-'PY'
	import json, sys
	m = json.load(open(sys.argv[1]))
	print(m["trials"], m.get("max_trials") or m["trials"], *[f["name"] for f in m["filesystems"]])
PY
)
# shellcheck disable=SC2086
set -- $info
min=$1 cap=$2
shift 2
for c in $cap $caps; do
	"$build/tests/bench/stop_replay" "$dir" "$min" "$c" "$@"
done
