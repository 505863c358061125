#!/bin/sh
# What the report's verdicts are worth, measured: synthetic experiments
# with a known truth (5 filesystems x 13 tests; equal filesystems, known
# slowdowns, trial CVs 1-10%, heavy tails, hiccups, drift, one noisier
# filesystem) run through the real report code by tests/report/verdict_harness.
# Prints the family-wise false alarm rate of A/A experiments (goal <= 5%; the
# matrix's, and the by-file-size screen's in column "bands"),
# the power for a 10% slowdown at 2% trial CV with 3 trials (goal >= 80%),
# the power curve for 5/10/20% at CV 1/2/5%, and the count of ranked cells
# whose shown interval and verdict disagree (goal 0; exit 1 otherwise).
#
# Usage: scripts/bench-verdict.sh [BUILD_DIR] [--experiments N] [--seed S]
#   BUILD_DIR defaults to build/ (configured with -DFSLAB_TESTS=ON); the
#   harness is built there when missing.  N defaults to 1000 per scenario
#   (about 25 s on the project's 2-core machine).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
case ${1:-} in
--*|'') ;;
*) build=$1; shift ;;
esac
if [ ! -f "$build/CMakeCache.txt" ]; then
	echo "bench-verdict.sh: $build is not a configured build directory; run" >&2
	echo "  cmake -S $top -B $build -DFSLAB_TESTS=ON" >&2
	exit 2
fi
cmake --build "$build" --target verdict_harness >/dev/null
tmp=$(mktemp -d /tmp/fslab-bench-verdict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0
"$build/tests/report/verdict_harness" --tmp "$tmp" "$@" || status=$?
exit $status
