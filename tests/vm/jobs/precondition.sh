# setup --precondition auto preconditions an SSD, on both kinds of guest SSD with
# discard: the NVMe disk "lab" (512 MiB, ext4 and btrfs) and the SCSI disk
# "lab2" (256 MiB, ext4 only, to keep the job's time near one disk's;
# discard=unmap on the host, rotation_rate=1 for SCSI).  On each: the
# whole disk is TRIM-purged, then written twice over in 128 KiB blocks
# before it is partitioned; the state says so, status shows it, ext4 was
# made without lazy init and each filesystem waited for; the host checks
# its sparse file was written all over (but for the partitions, discarded
# again before mkfs).  Then a one-cell run with --steady-state on and 1M
# rounds records each filesystem's steady state (rounds, outcome, window,
# the 16M file) and the drive's conditions around its sweep and its pass.
# Then the default's --dry-run: no preconditioning.  Last, --purge
# secure-erase: an NVMe Format with Secure Erase on the NVMe disk (old
# data gone, the size kept), refused on the SCSI one.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
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
sed -n '1,6p' "$VM_LAB/spec.ini" >"$VM_LAB/spec-ext4.ini"

# st EXPR / dr EXPR: jq EXPR on filesystem $nm's steady_state / drive
st() { jq -r ".filesystems[] | select(.name == \"$nm\") | .steady_state | $1" "$mf"; }
dr() { jq -r ".filesystems[] | select(.name == \"$nm\") | .drive | $1" "$mf"; }

# precondition_disk ID KIND SPEC FS...: the whole cycle on the disk with
# serial fslab-ID, laid out by SPEC (the filesystems FS...).
precondition_disk() {
	id=$1 kind=$2 spec=$3
	shift 3
	fss=$* nfs=$#
	disk=$(vm_dev "$id") || { bad "no disk $id"; return; }
	echo "== $id: $disk ($kind)"
	cap=$(blockdev --getsize64 "$disk")
	half=$(numfmt --to=iec-i --suffix=B --format=%.1f "$cap" | sed 's/\([0-9.]*\)\([KMG]\)iB/\1 \2iB/')
	full=$(numfmt --to=iec-i --suffix=B --format=%.1f $((2 * cap)) | sed 's/\([0-9.]*\)\([KMG]\)iB/\1 \2iB/')
	expect_eq "$id: rotational (the guest's $kind disk is an SSD)" "$(cat "/sys/block/${disk#/dev/}/queue/rotational")" 0
	expect_rc "$id: setup $disk (--precondition auto: an SSD is preconditioned)" 0 fslab setup --device "$disk" \
		--spec "$spec" --precondition auto --yes --state "$VM_STATE" --mount-root "$VM_MNT"
	expect_out "$id: the plan gives the amount and the wear" "then write 2 x $half = $full \\(2 drive-writes of wear\\)"
	expect_out "$id: the purge is labelled for what it is" "a TRIM purge, not a PTS purge"
	cp "$VM_STATE" "/fslab-job/state-$id.json"
	pc() { jq -r ".precondition.$1" "$VM_STATE"; }
	expect_eq "$id: precondition status" "$(pc status)" "done"
	expect_eq "$id: purge" "$(pc purge)" trim
	expect_eq "$id: purge result ($kind discard: NVMe Deallocate / SCSI UNMAP)" "$(pc purge_result)" "done"
	expect_eq "$id: bytes written = 2 x capacity" "$(pc bytes)" $((2 * cap))
	expect_eq "$id: target = 2 x capacity" "$(pc target_bytes)" $((2 * cap))
	expect_eq "$id: block" "$(pc block_bytes)" 131072
	check "$id: throughput recorded" test "$(jq '.precondition.mib_s > 0' "$VM_STATE")" = true
	check "$id: drive read before and after" test "$(jq '.precondition.drive_before.read_at != null and .precondition.drive_after.read_at != null' "$VM_STATE")" = true
	echo "$id: drive: before $(jq -c .precondition.drive_before "$VM_STATE"), after $(jq -c .precondition.drive_after "$VM_STATE")"
	expect_eq "$id: ext4 made without lazy init" "$(jq -r '.partitions[0].mkfs_command | test("lazy_itable_init=0,lazy_journal_init=0")' "$VM_STATE")" true
	expect_eq "$id: each filesystem waited for" "$(jq '[.partitions[] | select(.quiet == "quiet" or .quiet == "timeout")] | length' "$VM_STATE")" "$nfs"
	expect_rc "$id: status" 0 fslab status --state "$VM_STATE"
	expect_out "$id: status shows it" "precondition: done, $full of $full written"
	touch "/fslab-job/before-teardown-$id"
	n=0
	while [ ! -e "/fslab-job/measured-$id" ] && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
	check "$id: the host measured the disk file" test -e "/fslab-job/measured-$id"
	timer_start
	expect_rc "$id: run --steady-state on" 0 fslab run --state "$VM_STATE" --out "$VM_OUT-$id" --tests write \
		--file-sizes 64K --record-sizes 64K --trials 1 --cache warm --no-device-probe \
		--steady-state on --steady-state-round 1M
	timer_end "$id: steady-state run"
	expect_out "$id: each round is said" "steady state ext4: round 1/25, 4K randwrite "
	cp "$VM_OUT-$id/manifest.json" "/fslab-job/manifest-$id.json" 2>/dev/null
	mf=$VM_OUT-$id/manifest.json
	for nm in $fss; do
		n=$(st '.rounds | length')
		res=$(st .result)
		echo "$id: $nm: steady state: $res; rounds $(st '[.rounds[].rand_write_kib_s] | @csv') KiB/s; window $(st '.window | tojson')"
		check "$id: $nm: 5 to 25 rounds recorded ($n)" test "$n" -ge 5 -a "$n" -le 25
		case $res in
		"reached in round $n") ok "$id: $nm: $res"; expect_eq "$id: $nm: reached_in_round" "$(st .reached_in_round)" "$n" ;;
		"not reached after 25 rounds") ok "$id: $nm: $res"; expect_eq "$id: $nm: all rounds run" "$n" 25 ;;
		*) bad "$id: $nm: result '$res'" ;;
		esac
		expect_eq "$id: $nm: the window ends at the last round" "$(st .window.last_round)" "$n"
		expect_eq "$id: $nm: the window is 5 rounds" "$(st .window.first_round)" $((n - 4))
		expect_eq "$id: $nm: the file is 16M (the floor), not half the free space" "$(st .file_bytes)" $((16 << 20))
		expect_eq "$id: $nm: round bytes" "$(st .round_bytes)" $((1 << 20))
		echo "$id: $nm: drive before $(dr .before | jq -c .), after $(dr .after | jq -c .), thermal rows $(dr .thermal_rows)"
		check "$id: $nm: drive read before and after the sweep" test "$(dr '.before.read_at != null and .after.read_at != null')" = true
		expect_eq "$id: $nm: drive read before and after its one pass" \
			"$(dr '[.passes[] | select(.trial == 1 and .before.read_at != null and .after.read_at != null)] | length')" 1
	done
	expect_rc "$id: teardown" 0 fslab teardown --state "$VM_STATE" --yes
	vm_expect_clean "$disk"
}

precondition_disk lab NVMe "$VM_LAB/spec.ini" ext4 btrfs
precondition_disk lab2 SCSI "$VM_LAB/spec-ext4.ini" ext4

disk=$(vm_dev lab) || exit 1
expect_rc "setup --dry-run (the default)" 0 fslab setup --device "$disk" --spec "$VM_LAB/spec.ini" \
	--dry-run --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the plan says it is off by default" "precondition: no \\(--precondition off, the default"

# --purge secure-erase on the NVMe disk: QEMU's controller supports Format
# NVM, so setup formats the namespace with Secure Erase (user data erase)
# before partitioning; 16 MiB of a pattern 400 MiB in (beyond the
# partitions, so neither mkfs nor a partition's discard reaches it) read
# as zeros after.
off_mib=400
yes fslab-secure-erase-test | head -c 16777216 | dd of="$disk" bs=1M seek=$off_mib conv=fsync status=none
got() { dd if="$disk" bs=1M skip=$off_mib count=16 status=none | md5sum; }
zero=$(head -c 16777216 /dev/zero | md5sum)
check "the pattern is on the disk" test "$(got)" != "$zero"
expect_rc "setup --purge secure-erase (NVMe)" 0 fslab setup --device "$disk" --spec "$VM_LAB/spec-ext4.ini" \
	--purge secure-erase --precondition off --yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "the plan names the PTS purge" "NVMe Format, Secure Erase: user data \\(a PTS purge\\)"
expect_out "it says what it sends" "NVMe Format NVM of namespace 1 with Secure Erase Settings 1"
expect_eq "purge (state)" "$(jq -r .precondition.purge "$VM_STATE")" secure-erase
expect_eq "purge result (state)" "$(jq -r .precondition.purge_result "$VM_STATE")" done
expect_eq "the pattern is gone (reads as zeros)" "$(got)" "$zero"
expect_eq "the namespace kept its size" "$(blockdev --getsize64 "$disk")" $((512 << 20))
expect_rc "status after the erase" 0 fslab status --state "$VM_STATE"
expect_out "status says it" "purge secure-erase"
expect_rc "teardown after the erase" 0 fslab teardown --state "$VM_STATE" --yes
vm_expect_clean "$disk"

# ... and refused on the SCSI disk, before anything is made.
disk2=$(vm_dev lab2) || exit 1
expect_rc "--purge secure-erase refused on SCSI" 1 fslab setup --device "$disk2" --spec "$VM_LAB/spec-ext4.ini" \
	--purge secure-erase --yes --state "$VM_STATE" --mount-root "$VM_MNT"
expect_out "it says why" "fslab does not send ATA SECURITY ERASE UNIT"
expect_out "it names the way out" "use --purge trim"
check "nothing was made (no state file)" test ! -e "$VM_STATE"
vm_done
