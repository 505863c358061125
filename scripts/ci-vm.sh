#!/bin/sh
# CI stage: the vm tests (tests/vm, docs/real-disks.md): each scenario boots
# a QEMU guest with Debian's kernel and SCSI, SATA or NVMe disks and runs
# this build's fslab there.  Needs root, qemu-system-x86, busybox-static,
# kmod, cpio, udev and apt's lists (scripts/install-deps.sh --tests); the
# guest kernel is fetched with apt-get download once per build directory.
# Usage: scripts/ci-vm.sh [BUILD_DIR]   (default build)
set -eu
. "$(dirname "$0")/ci-lib.sh"
build=${1:-$top/build}
cmake -S "$top" -B "$build" -DFSLAB_WERROR=ON -DFSLAB_TESTS=ON
cmake --build "$build" -j"$jobs"
cd "$build"
log=$(mktemp "${TMPDIR:-/tmp}/fslab-ci-vm.XXXXXX")
trap 'rm -f "$log"' EXIT
rc=0
ctest -L vm --output-on-failure --timeout 900 --no-tests=error -O "$log" || rc=$?
# A skipped scenario (exit 77: not root, no qemu, no kernel package) is a
# failure here: this stage runs after install-deps.sh --tests.
if grep -q "(Skipped)" "$log"; then
	echo "ci-vm: vm tests were skipped (above): the guest could not run here" >&2
	rc=1
fi
exit $rc
