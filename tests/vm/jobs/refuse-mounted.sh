# A disk holding a mounted filesystem: setup refuses (even with --wipe),
# the filesystem stays mounted and its data intact.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
printf 'label: gpt\nsize=1GiB, name=busy\n' | sfdisk -q "$disk"
blockdev --rereadpt "$disk"
part=$(vm_part "$disk" 1)
mkfs.ext4 -q "$part"
mkdir -p /root/busy
mount "$part" /root/busy
echo precious >/root/busy/data
sync
expect_rc "setup --wipe with $part mounted" 1 fslab setup --device "$disk" --wipe --yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the refusal names the mounted filesystem" "mounted|/root/busy"
expect_eq "still mounted" "$(findmnt -n -o SOURCE /root/busy)" "$part"
expect_eq "data intact" "$(cat /root/busy/data)" precious
expect_eq "partition table intact" "$(sfdisk -d "$disk" | grep -c 'name="busy"')" 1
check "no state file" test ! -e "$VM_STATE"
umount /root/busy
vm_done
