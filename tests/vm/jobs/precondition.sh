# setup preconditions an SSD by default.  On the NVMe disk "lab" (1 GiB,
# discard=unmap on the host): the whole disk is TRIM-purged, then written
# twice over in 128 KiB blocks before it is partitioned; the state says
# so, status shows it, ext4 was made without lazy init and each
# filesystem waited for; the host checks its sparse file was written all
# over (but for the partitions, discarded again before mkfs).  Then a
# one-cell run with --steady-state on and 2M rounds records each
# filesystem's steady state (rounds, outcome, window, the 16M file) and
# the drive's conditions around its sweep.
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
timer_start
expect_rc "run --steady-state on" 0 fslab run --state "$VM_STATE" --out "$VM_OUT" --tests write \
	--file-sizes 64K --record-sizes 64K --trials 1 --cache warm --no-device-probe \
	--steady-state on --steady-state-round 2M
timer_end "steady-state run"
expect_out "each round is said" "steady state ext4: round 1/25, 4K randwrite "
cp "$VM_OUT/manifest.json" /fslab-job/manifest.json 2>/dev/null
mf=$VM_OUT/manifest.json
# st EXPR / dr EXPR: jq EXPR on filesystem $nm's steady_state / drive
st() { jq -r ".filesystems[] | select(.name == \"$nm\") | .steady_state | $1" "$mf"; }
dr() { jq -r ".filesystems[] | select(.name == \"$nm\") | .drive | $1" "$mf"; }
for nm in ext4 btrfs; do
	n=$(st '.rounds | length')
	res=$(st .result)
	echo "$nm: steady state: $res; rounds $(st '[.rounds[].rand_write_kib_s] | @csv') KiB/s; window $(st '.window | tojson')"
	check "$nm: 5 to 25 rounds recorded ($n)" test "$n" -ge 5 -a "$n" -le 25
	case $res in
	"reached in round $n") ok "$nm: $res"; expect_eq "$nm: reached_in_round" "$(st .reached_in_round)" "$n" ;;
	"not reached after 25 rounds") ok "$nm: $res"; expect_eq "$nm: all rounds run" "$n" 25 ;;
	*) bad "$nm: result '$res'" ;;
	esac
	expect_eq "$nm: the window ends at the last round" "$(st .window.last_round)" "$n"
	expect_eq "$nm: the window is 5 rounds" "$(st .window.first_round)" $((n - 4))
	expect_eq "$nm: the file is 16M (4 rounds, the floor), not half the free space" "$(st .file_bytes)" $((16 << 20))
	expect_eq "$nm: round bytes" "$(st .round_bytes)" $((2 << 20))
	echo "$nm: drive before $(dr .before | jq -c .), after $(dr .after | jq -c .), thermal rows $(dr .thermal_rows)"
	check "$nm: drive read before and after the sweep" test "$(dr '.before.read_at != null and .after.read_at != null')" = true
done
expect_rc "teardown" 0 fslab teardown --state "$VM_STATE" --yes
vm_expect_clean "$disk"

expect_rc "setup --dry-run --precondition off" 0 fslab setup --device "$disk" --spec "$VM_LAB/spec.ini" \
	--dry-run --precondition off --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the plan says it is off" "precondition: no \\(--precondition off\\)"
expect_rc "--purge secure-erase refused" 1 fslab setup --device "$disk" --spec "$VM_LAB/spec.ini" --purge secure-erase \
	--yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "it says what it would be" "an NVMe Format with Secure Erase"
vm_done
