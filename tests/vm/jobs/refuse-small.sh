# A disk too small for the default layout (5 x 20 GiB): setup refuses
# before writing, the disk stays blank, no state is left.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
expect_rc "setup on a 60 GiB disk" 1 fslab setup --device "$disk" --yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the refusal says the disk is too small" "small|not enough|needs"
expect_eq "signatures on $disk" "$(wipefs -n "$disk" | wc -l)" 0
check "no state file" test ! -e "$VM_STATE"
expect_eq "mounts under $VM_MNT" "$(findmnt -n -l -o TARGET | grep -c "^$VM_MNT")" 0
vm_done
