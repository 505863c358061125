#!/bin/sh
# The main job end to end on a loop-backed disk image: build, setup (the
# default 2023 layout: five 20 GiB partitions on a sparse 100 GiB image),
# status, a short but honest benchmark run (the default run's cold cache
# and stopping rule: at least 3 trials, more of a test, up to 8, until its
# comparisons are decided, and up to 24 while its band is wide; the sweep is smaller, files 64K-4M instead of
# 64K-2G (every record of the grid on them), so the demo takes minutes;
# IOzone's 13 tests and the many-files tests, so the report's small-files
# line ranks real file creation), the
# report, teardown.  Run as root on Debian 12 after scripts/install-deps.sh.
# Measured: 363 s for the install step and this script together, in a
# new Debian 12 root on the shared 2-core VM (the run's first screen: 1 of
# 12 band lines decided, the rest resolving 5-10%); 12.5 min before the
# FUSE plan and the band look, at a load average of 5-8 from other work.
#
# Usage: scripts/demo.sh [WORK_DIR]   (default /var/tmp/fslab-demo)
# Leaves WORK_DIR/results/ and WORK_DIR/report/; the disk image is removed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/var/tmp/fslab-demo}
build=$top/build
fslab=$build/fslab

if [ "$(id -u)" -ne 0 ]; then
	echo "demo.sh: run as root (setup attaches a loop device, formats and mounts)" >&2
	exit 1
fi
# Only the fslab program: the demo needs no test framework (the tests are
# built when Check is installed, by scripts/test.sh).
# Quiet when it works; the whole output (which package is missing) when not.
log=$(mktemp "${TMPDIR:-/tmp}/fslab-demo-build.XXXXXX")
if ! { cmake -S "$top" -B "$build" && cmake --build "$build" -j"$(nproc)" --target fslab; } >"$log" 2>&1; then
	cat "$log" >&2
	rm -f "$log"
	echo "demo.sh: building fslab failed (above); sh scripts/install-deps.sh installs what it needs" >&2
	exit 1
fi
rm -f "$log"

mkdir -p "$work"
state=$work/state.json
if [ -e "$state" ]; then
	echo "demo.sh: $state exists: a lab from an earlier demo is still set up." >&2
	echo "         Remove it with: $fslab teardown --state $state --yes" >&2
	exit 1
fi
rm -rf "$work/results" "$work/report"

cleanup() {
	status=$?
	if [ -e "$state" ]; then
		echo "== teardown (cleanup after failure)"
		"$fslab" teardown --state "$state" --yes || true
	fi
	exit $status
}
trap cleanup EXIT INT TERM

echo "== setup"
"$fslab" setup --image "$work/lab.img" --state "$state" --mount-root "$work/mnt" --yes
echo "== status"
"$fslab" status --state "$state"
echo "== run (the default rule: cold cache, 3 to 24 trials until decided and resolved; files 64K-4M, IOzone's tests and the many-files tests)"
"$fslab" run --state "$state" --file-sizes 64K-4M --tests all,files --out "$work/results"
echo "== report"
"$fslab" report "$work/results" --out "$work/report"
echo "== teardown"
"$fslab" teardown --state "$state" --yes
trap - EXIT INT TERM
echo "== done: results in $work/results, report in $work/report/report.html"
