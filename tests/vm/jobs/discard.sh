# SSD hygiene.  On the SCSI disk "lab": old data where partition 4 (fat32,
# whose mkfs does not discard) will be is gone after setup (each partition
# discarded before mkfs), the plan, state and manifest say so, and
# teardown --discard TRIMs the disk (the host measures its raw file before
# and after).  On the NVMe disk "keep": --no-discard leaves the old data.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
keep=$(vm_dev keep) || exit 1
# 16 MiB of a pattern 10 GiB into partition 4 (1 MiB + 3 x 20 GiB + 10 GiB).
off_mib=$((1 + 70 * 1024))
pattern() { yes fslab-discard-test | head -c 16777216; }
want=$(pattern | md5sum)
for d in "$disk" "$keep"; do
	pattern | dd of="$d" bs=1M seek=$off_mib conv=fsync status=none
done
sync
got_at() { dd if="$1" bs=1M skip=$((10 * 1024)) count=16 status=none | md5sum; }
zero=$(head -c 16777216 /dev/zero | md5sum)

expect_rc "setup $disk" 0 fslab setup --device "$disk" --precondition off --yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the plan says each partition is discarded" "discard: each partition before mkfs"
expect_eq "partitions discarded (state)" "$(jq '[.partitions[] | select(.discarded)] | length' "$VM_STATE")" 5
expect_eq "old data in partition 4 gone (reads as zeros)" "$(got_at "$(vm_part "$disk" 4)")" "$zero"
expect_rc "run" 0 fslab run --state "$VM_STATE" --out "$VM_OUT" --sweep "$VM_SWEEP" --no-device-probe --steady-state off --quiet
expect_eq "manifest: setup_discarded on all five" \
	"$(jq '[.filesystems[] | select(.setup_discarded == true)] | length' "$VM_OUT/manifest.json")" 5
# The host measures the raw file now and after teardown --discard.
touch /fslab-job/before-teardown
n=0
while [ ! -e /fslab-job/measured ] && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
check "the host measured the disk file" test -e /fslab-job/measured
expect_rc "teardown --discard" 0 fslab teardown --state "$VM_STATE" --yes --discard
expect_out "teardown says it discarded the disk" "discard"
vm_expect_clean "$disk"

VM_STATE=$VM_LAB/keep.json
expect_rc "setup --no-discard $keep" 0 fslab setup --device "$keep" --no-discard --precondition off --yes --state "$VM_STATE" --mount-root "$VM_LAB/keep"
expect_out "the plan says discard is skipped" "discard: skipped"
expect_eq "partitions discarded (state)" "$(jq '[.partitions[] | select(.discarded)] | length' "$VM_STATE")" 0
expect_eq "old data in partition 4 kept" "$(got_at "$(vm_part "$keep" 4)")" "$want"
expect_rc "teardown" 0 fslab teardown --state "$VM_STATE" --yes
VM_MNT=$VM_LAB/keep vm_expect_clean "$keep"
vm_done
