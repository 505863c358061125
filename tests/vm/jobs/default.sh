# The default layout on one disk: setup, status, run, report, teardown; the
# disk left blank.  VM_UDEV=1: systemd-udevd runs in the guest meanwhile.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
echo "disk: $disk ($(cat /sys/block/${disk#/dev/}/queue/logical_block_size)-byte sectors)"
if [ "${VM_UDEV:-0}" = 1 ]; then
	check "systemd-udevd started" vm_udev_start
	check "udev made the disk's by-id link" sh -c "ls -l /dev/disk/by-id/ | grep -q '${disk#/dev/}\$'"
fi
vm_flow_default "$disk"
if [ "${VM_UDEV:-0}" = 1 ]; then
	udevadm settle --timeout=60
	expect_eq "udev links to partitions left" \
		"$(ls -l /dev/disk/by-id/ /dev/disk/by-partuuid/ 2>/dev/null | grep -c "${disk#/dev/}p\{0,1\}[0-9]\$")" 0
	udevadm control --exit
fi
vm_done
