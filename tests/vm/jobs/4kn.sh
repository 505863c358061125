# The default layout on a 4Kn disk (4096-byte logical and physical
# sectors): partitions 1 MiB aligned, every mkfs and kernel mount right.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
expect_eq "logical sector size" "$(cat /sys/block/${disk#/dev/}/queue/logical_block_size)" 4096
expect_eq "physical sector size" "$(cat /sys/block/${disk#/dev/}/queue/physical_block_size)" 4096
check_4kn() {
	for i in 0 1 2 3 4; do
		nm=$(jq -r ".partitions[$i].name" "$VM_STATE")
		start=$(jq -r ".partitions[$i].start_sector" "$VM_STATE")
		p=$(jq -r ".partitions[$i].device" "$VM_STATE")
		kstart=$(cat "/sys/class/block/${p#/dev/}/start")
		expect_eq "$nm: kernel start (512-byte units) = state start_sector" "$kstart" "$start"
		expect_eq "$nm: start 1 MiB aligned" "$((kstart * 512 % 1048576))" 0
	done
	expect_eq "ext4 block size" "$(dumpe2fs -h "$(vm_part "$disk" 1)" 2>/dev/null | sed -n 's/^Block size: *//p')" 4096
	expect_eq "xfs sector size" "$(xfs_info "$VM_MNT/xfs" | sed -n 's/.*sectsz=\([0-9]*\).*/\1/p' | head -1)" 4096
	expect_eq "fat32 logical sector size" "$(fsck.fat -n -v "$(vm_part "$disk" 4)" 2>/dev/null | sed -n 's/^ *\([0-9]*\) bytes per logical sector.*/\1/p')" 4096
	expect_eq "btrfs sector size" "$(btrfs inspect-internal dump-super "$(vm_part "$disk" 5)" | awk '$1 == "sectorsize" { print $2 }')" 4096
}
VM_HOOK_READY=check_4kn
vm_flow_default "$disk"
vm_done
