#!/bin/sh
# CI stage: build fslab and every test with ASan+UBSan (-DFSLAB_SANITIZE=ON)
# and run the whole suite.  Any sanitizer report fails the stage, also one
# from an fslab process that a test expected to fail (its exit status would
# hide it): reports are written to a log directory that must stay empty.
# Usage: scripts/ci-sanitize.sh [BUILD_DIR]   (default build-asan)
set -eu
. "$(dirname "$0")/ci-lib.sh"
build=${1:-$top/build-asan}
logs=$(mktemp -d "${TMPDIR:-/tmp}/fslab-san.XXXXXX")
trap 'rm -rf "$logs"' EXIT

cmake -S "$top" -B "$build" -DFSLAB_WERROR=ON -DFSLAB_TESTS=ON -DFSLAB_SANITIZE=ON
cmake --build "$build" -j"$jobs"
# halt_on_error: the first report ends the process; exitcode 86 tells it
# apart from fslab's own statuses (a test expecting exit 1 fails on it);
# log_path collects ASan/LSan reports.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=86:log_path=$logs/asan:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=86:log_path=$logs/lsan"
# Fault tests run fewer seeded points here (the normal build runs >= 20).
export FSLAB_FAULT_POINTS=${FSLAB_FAULT_POINTS:-6}
rc=0
# Not the vm tests: a QEMU guest under TCG adds nothing a sanitizer sees
# that the loop-device tests do not, at many times their cost.
(cd "$build" && ctest --output-on-failure --no-tests=error --timeout 1200 -LE vm) || rc=$?
# GCC's UBSan prints to stderr whatever log_path says: look for reports in
# everything the tests printed too.
if grep -n -E "runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer" \
	"$build/Testing/Temporary/LastTest.log" >&2; then
	echo "ci-sanitize: sanitizer reports in the test output (above)" >&2
	rc=1
fi
if [ -n "$(ls -A "$logs")" ]; then
	echo "ci-sanitize: sanitizer reports:" >&2
	for f in "$logs"/*; do
		echo "---- $f" >&2
		cat "$f" >&2
	done
	rc=1
fi
exit $rc
