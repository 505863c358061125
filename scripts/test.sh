#!/bin/sh
# Builds fslab and runs every test under ctest.  Root integration tests
# (loop devices, mkfs, mount) run when this is run as root; otherwise ctest
# lists them as skipped (docs/testing.md).  No test at all is an error.
# Check is required here (-DFSLAB_TESTS=ON): a missing test framework is an
# error, never an empty run.
# Usage: scripts/test.sh [BUILD_DIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
cmake -S "$top" -B "$build" -DFSLAB_WERROR=ON -DFSLAB_TESTS=ON
cmake --build "$build" -j"$(nproc)"
cd "$build"
# FSLAB_TEST_EXCLUDE=LABEL leaves a label out (CI runs "vm" in its own stage);
# FSLAB_TEST_LABEL=LABEL runs only that label (the fresh-root stage: "unit").
ctest --output-on-failure --no-tests=error --timeout 1200 \
	${FSLAB_TEST_EXCLUDE:+-LE "$FSLAB_TEST_EXCLUDE"} ${FSLAB_TEST_LABEL:+-L "$FSLAB_TEST_LABEL"}
