# setup preconditions an SSD by default.  On the NVMe disk "lab" (1 GiB,
# discard=unmap on the host): the whole disk is TRIM-purged, then written
# twice over in 128 KiB blocks before it is partitioned; the state says
# so, status shows it, ext4 was made without lazy init and each
# filesystem waited for; the host checks its sparse file was written all
# over (but for the partitions, discarded again before mkfs).
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
cat >"$VM_LAB/spec.ini" <<'SPEC'
[disk]
label = gpt
alignment = 1M
[fs ext4]
type = ext4
size = 100M
[fs btrfs]
type = btrfs
size = 200M
SPEC
cap=$(blockdev --getsize64 "$disk")
expect_eq "rotational (the guest's NVMe disk is an SSD)" "$(cat "/sys/block/${disk#/dev/}/queue/rotational")" 0
expect_rc "setup $disk (preconditioned by default)" 0 fslab setup --device "$disk" --spec "$VM_LAB/spec.ini" \
	--yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the plan gives the amount and the escape" "then write 2 x 1.0 GiB = 2.0 GiB"
expect_out "the purge is labelled for what it is" "a TRIM purge, not a PTS purge"
cp "$VM_STATE" /fslab-job/state.json
pc() { jq -r ".precondition.$1" "$VM_STATE"; }
expect_eq "precondition status" "$(pc status)" "done"
expect_eq "purge" "$(pc purge)" trim
expect_eq "purge result (NVMe Deallocate)" "$(pc purge_result)" "done"
expect_eq "bytes written = 2 x capacity" "$(pc bytes)" $((2 * cap))
expect_eq "target = 2 x capacity" "$(pc target_bytes)" $((2 * cap))
expect_eq "block" "$(pc block_bytes)" 131072
check "throughput recorded" test "$(jq '.precondition.mib_s > 0' "$VM_STATE")" = true
check "drive read before and after" test "$(jq '.precondition.drive_before.read_at != null and .precondition.drive_after.read_at != null' "$VM_STATE")" = true
echo "drive: before $(jq -c .precondition.drive_before "$VM_STATE"), after $(jq -c .precondition.drive_after "$VM_STATE")"
expect_eq "ext4 made without lazy init" "$(jq -r '.partitions[0].mkfs_command | test("lazy_itable_init=0,lazy_journal_init=0")' "$VM_STATE")" true
expect_eq "each filesystem waited for" "$(jq '[.partitions[] | select(.quiet == "quiet" or .quiet == "timeout")] | length' "$VM_STATE")" 2
expect_rc "status" 0 fslab status --state "$VM_STATE"
expect_out "status shows it" "precondition: done, 2.0 GiB of 2.0 GiB written"
touch /fslab-job/before-teardown
n=0
while [ ! -e /fslab-job/measured ] && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
check "the host measured the disk file" test -e /fslab-job/measured
expect_rc "teardown" 0 fslab teardown --state "$VM_STATE" --yes
vm_expect_clean "$disk"

expect_rc "setup --dry-run --precondition off" 0 fslab setup --device "$disk" --spec "$VM_LAB/spec.ini" \
	--dry-run --precondition off --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the plan says it is off" "precondition: no \\(--precondition off\\)"
expect_rc "--purge secure-erase refused" 1 fslab setup --device "$disk" --spec "$VM_LAB/spec.ini" --purge secure-erase \
	--yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "it says what it would be" "an NVMe Format with Secure Erase"
vm_done
