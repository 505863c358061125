# A disk removed while a run is in progress (QEMU device_del from the host):
# two labs, one on the SCSI disk "lab" (removed), one on the NVMe disk
# "lab2"; one run over the filesystems of both.  The run marks the removed
# disk's filesystems vanished and finishes the others; teardown of the
# removed lab cleans what it can and names what it could not; the other
# lab tears down clean.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
disk=$(vm_dev lab) || exit 1
disk2=$(vm_dev lab2) || exit 1
cat >"$VM_LAB/spec.ini" <<'SPEC'
[disk]
label = gpt
alignment = 1M
[fs ext4]
type = ext4
size = 2G
[fs xfs]
type = xfs
size = 2G
[sweep]
file_sizes = 64K-4M
record_sizes = 64K-256K
tests = write,read,random_read
trials = 1
cache = fsync
SPEC
s1=$VM_LAB/a.json s2=$VM_LAB/b.json m1=$VM_LAB/a m2=$VM_LAB/b
expect_rc "setup lab a on $disk" 0 fslab setup --device "$disk" --precondition off --spec "$VM_LAB/spec.ini" --yes --state "$s1" --mount-root "$m1"
expect_rc "setup lab b on $disk2" 0 fslab setup --device "$disk2" --precondition off --spec "$VM_LAB/spec.ini" --yes --state "$s2" --mount-root "$m2"
# The removed disk's filesystems first, so the removal falls inside them.
fslab run --dir a-ext4="$m1/ext4" --dir a-xfs="$m1/xfs" --dir b-ext4="$m2/ext4" --dir b-xfs="$m2/xfs" \
	--sweep "$VM_LAB/spec.ini" --no-device-probe --quiet --out "$VM_OUT" >"$VM_LAB/run.log" 2>&1 &
run=$!
n=0
while [ "$(csv_rows "$VM_OUT/a-ext4.csv")" -lt 1 ] && [ $n -lt 600 ]; do
	sleep 0.2
	n=$((n + 1))
done
expect_eq "run still going when the disk is pulled" "$(kill -0 $run 2>/dev/null && echo yes)" yes
touch /fslab-job/remove-now
n=0
while [ -e "/sys/block/${disk#/dev/}" ] && [ $n -lt 300 ]; do
	sleep 0.2
	n=$((n + 1))
done
check "$disk gone from the kernel" test ! -e "/sys/block/${disk#/dev/}"
rc=0
wait $run || rc=$?
sed 's/^/    /' "$VM_LAB/run.log"
for f in a-ext4 a-xfs; do
	echo "$f.csv after the removal:"
	cut -d, -f1-12 "$VM_OUT/$f.csv" | sed -n '2,4p;$p' | sed 's/^/    /'
done
expect_eq "run exit status (a filesystem vanished)" "$rc" 1
cp "$VM_OUT/manifest.json" /fslab-job/manifest.json 2>/dev/null
mf() { jq -r ".filesystems[] | select(.name == \"$1\") | .$2" "$VM_OUT/manifest.json"; }
# The disk is pulled once a-ext4 has a row; how far the run then got before
# the kernel dropped the disk depends on the machine's speed, so a
# filesystem of lab a either vanished or had finished every cell of the plan
# (as many ok rows as b-ext4) before the removal; at least one vanished.
full=$(csv_rows "$VM_OUT/b-ext4.csv")
n_vanished=0
for f in a-ext4 a-xfs; do
	if [ "$(mf $f vanished)" = true ]; then
		n_vanished=$((n_vanished + 1))
		ok "$f vanished"
	else
		expect_eq "$f not vanished: finished before the removal, ok rows" \
			"$(tail -n +2 "$VM_OUT/$f.csv" | grep -c ',ok,')" "$full"
	fi
done
check "a filesystem of the removed disk vanished ($n_vanished of 2)" test "$n_vanished" -ge 1
for f in b-ext4 b-xfs; do
	expect_eq "$f vanished" "$(mf $f vanished)" false
	expect_eq "$f cells failed" "$(mf $f cells_failed)" 0
	expect_eq "$f rows ok" "$(tail -n +2 "$VM_OUT/$f.csv" | grep -c ',ok,')" "$(csv_rows "$VM_OUT/$f.csv")"
	check "$f has rows" test "$(csv_rows "$VM_OUT/$f.csv")" -gt 0
done
expect_rc "teardown of the removed lab" 1 fslab teardown --state "$s1" --yes
expect_out "teardown says the disk is missing" "$disk"
expect_eq "mounts left of lab a" "$(findmnt -n -l -o TARGET | grep -c "^$m1")" 0
check "lab a's mount directories removed" test ! -e "$m1"
check "lab a's state kept (its disk could not be wiped)" test -e "$s1"
expect_rc "teardown of lab b" 0 fslab teardown --state "$s2" --yes
VM_MNT=$m2 VM_STATE=$s2 vm_expect_clean "$disk2"
vm_done
