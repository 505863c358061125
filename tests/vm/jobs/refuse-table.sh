# A disk with a partition table: setup refuses without --wipe and leaves
# the table byte-identical; with --wipe it proceeds, teardown cleans up.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
printf 'label: gpt\nsize=1GiB, name=mine\n' | sfdisk -q "$disk"
blockdev --rereadpt "$disk"
before=$(dd if="$disk" bs=1M count=1 status=none | md5sum)
expect_rc "setup without --wipe" 1 fslab setup --device "$disk" --yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the refusal names the table and --wipe" "gpt.*--wipe|--wipe.*gpt"
expect_eq "first MiB unchanged" "$(dd if="$disk" bs=1M count=1 status=none | md5sum)" "$before"
expect_eq "partition still named mine" "$(sfdisk -d "$disk" | grep -c 'name="mine"')" 1
check "no state file" test ! -e "$VM_STATE"
VM_SETUP_OPTS=--wipe
vm_flow_default "$disk"
vm_done
