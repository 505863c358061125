#!/bin/sh
# Boots a QEMU guest (tests/vm/build-guest.sh) with the disks given, runs
# the shell script JOB in it (the host's / read-only, fslab's build in
# place, /fslab-job writable) and prints what it printed.  Exit status: the
# job's, 124 when it did not finish within the timeout, 77 when no guest
# can run here.  The disks and the temp dir are removed afterwards.
# Usage: tests/vm/run-guest.sh [--build DIR] [--disk ID:KIND:SIZE[:QEMU_OPTS]]...
#                              [--timeout SECONDS] [--keep] JOB
#   KIND: scsi (virtio-scsi SSD), sata (AHCI SSD), nvme
#   e.g.  --disk lab:nvme:120G --disk small:scsi:4G:logical_block_size=4096
set -eu
here=$(cd "$(dirname "$0")" && pwd)
FSLAB_SOURCE_DIR=${FSLAB_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
build=${FSLAB_BUILD_DIR:-$FSLAB_SOURCE_DIR/build}
timeout=600
disks=
while [ $# -gt 1 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--disk) disks="$disks $2"; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--keep) VM_KEEP=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
job=$1
FSLAB_BUILD_DIR=$(cd "$build" && pwd)
FSLAB_BIN=${FSLAB_BIN:-$FSLAB_BUILD_DIR/fslab}
export FSLAB_SOURCE_DIR FSLAB_BUILD_DIR FSLAB_BIN
. "$here/vm-lib.sh"
vm_init run
for d in $disks; do
	IFS=: read -r id kind size opts <<-EOD
	$d
	EOD
	vm_disk "$id" "$kind" "$size" "$opts"
done
rc=0
vm_boot "$job" "$timeout" || rc=$?
exit $rc
