# Guest side of the vm tests: sourced by the jobs in tests/vm/jobs/ inside
# the QEMU guest (the host's / read-only, fslab's build at $FSLAB_BIN).
# Assertions print "ok"/"FAIL" lines; vm_done exits 1 when any failed.
# Results the host checks go to /fslab-job (the writable share).
set -u
. /fslab-job/env
VM_FAILS=0
VM_LAB=/root/lab
VM_STATE=$VM_LAB/state.json
VM_MNT=$VM_LAB/mnt
VM_OUT=$VM_LAB/results
mkdir -p "$VM_LAB"

ok() { echo "ok   - $*"; }
bad() {
	echo "FAIL - $*"
	VM_FAILS=$((VM_FAILS + 1))
}
# check DESCRIPTION COMMAND...: the command must succeed.
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else bad "$_d (exit $?: $*)"; fi
}
# expect_eq DESCRIPTION GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: got '$2', want '$3'"; fi
}
# expect_rc DESCRIPTION WANT COMMAND...: runs COMMAND (output shown),
# checks its exit status.  The output goes to the share as it comes
# ($VM_CMD_OUT): when the guest hangs, the host shows how far it got.
VM_CMD_OUT=/fslab-job/cmd.out
expect_rc() {
	_d=$1 _want=$2
	shift 2
	echo "\$ $*"
	_rc=0
	"$@" >"$VM_CMD_OUT" 2>&1 || _rc=$?
	sed 's/^/    /' "$VM_CMD_OUT"
	expect_eq "$_d: exit status" "$_rc" "$_want"
}
# expect_out DESCRIPTION PATTERN: the last expect_rc's output matches PATTERN
# (grep -E).
expect_out() {
	if grep -q -E -- "$2" "$VM_CMD_OUT"; then ok "$1"; else bad "$1: no '$2' in the output"; fi
}
vm_done() {
	echo "guest: $VM_FAILS failed check(s), uptime $(cut -d' ' -f1 /proc/uptime) s"
	[ "$VM_FAILS" -eq 0 ]
	exit $?
}
# Runs fslab with the test's state file and mount root.
fslab() { "$FSLAB_BIN" "$@"; }
timer_start() { VM_T=$(cut -d' ' -f1 /proc/uptime); }
timer_end() {
	echo "time: $1 $(awk -v a="$VM_T" '{ printf "%.1f", $1 - a }' /proc/uptime) s"
}

# The guest's block device of the test disk ID (serial fslab-ID): sysfs
# only, so it works with and without udev.
vm_dev() {
	for _b in /sys/block/*; do
		_n=${_b##*/}
		for _f in "$_b/device/serial" "$_b/device/vpd_pg80" "$_b/serial"; do
			[ -r "$_f" ] || continue
			if tr -d '\000-\037' <"$_f" 2>/dev/null | grep -q -w -- "fslab-$1"; then
				echo "/dev/$_n"
				return 0
			fi
		done
	done
	echo "vm_dev: no disk with serial fslab-$1" >&2
	return 1
}

# The transport fslab should record for a guest disk: its QEMU kind.
vm_transport() {
	case $1 in
	/dev/nvme*) echo nvme ;;
	*) if [ -n "$(readlink -f "/sys/block/${1#/dev/}/device" | grep /ata)" ]; then echo sata; else echo scsi; fi ;;
	esac
}

# Partition N of a disk: sda -> sda1, nvme0n1 -> nvme0n1p1.
vm_part() {
	case $1 in
	*[0-9]) echo "${1}p$2" ;;
	*) echo "$1$2" ;;
	esac
}

vm_udev_start() {
	/lib/systemd/systemd-udevd --daemon || return 1
	udevadm trigger --action=add --type=subsystems
	udevadm trigger --action=add --type=devices
	udevadm settle --timeout=60
}

# A tiny sweep: files 64K-256K, records 64K-256K, three tests: 18 rows per
# filesystem.
VM_SWEEP=$VM_LAB/sweep.ini
VM_ROWS_PER_FS=18
cat >"$VM_SWEEP" <<'EOF'
[sweep]
file_sizes = 64K-256K
record_sizes = 64K-256K
tests = write,read,random_read
trials = 1
cache = warm
EOF

# Data rows of a results CSV (the header is not one).
csv_rows() {
	if [ -f "$1" ]; then tail -n +2 "$1" | grep -c . || :; else echo 0; fi
}

# The whole default flow on DISK: setup, checks, run, report, teardown,
# clean disk.  Extra setup options in $VM_SETUP_OPTS.  The default does
# not precondition: the guests' disks are SSDs (rotation_rate=1) of 120 GiB,
# which --precondition on would write twice over (jobs/precondition.sh
# checks it on a small one).
vm_flow_default() {
	_disk=$1
	_name=${_disk#/dev/}
	timer_start
	expect_rc "setup $_disk" 0 fslab setup --device "$_disk" --yes --state "$VM_STATE" \
		--mount-root "$VM_MNT" ${VM_SETUP_OPTS:-}
	timer_end setup
	expect_eq "not preconditioned by default" "$(jq -r .precondition.status "$VM_STATE")" off
	expect_eq "partitions in the state" "$(jq '.partitions | length' "$VM_STATE")" 5
	_n=0
	for _fs in ext4:ext4 ext2:ext2 xfs:xfs fat32:vfat btrfs:btrfs; do
		_n=$((_n + 1))
		_nm=${_fs%%:*} _kt=${_fs#*:}
		_p=/dev/$(vm_part "$_name" $_n)
		expect_eq "$_nm: device" "$(jq -r ".partitions[$((_n - 1))].device" "$VM_STATE")" "$_p"
		check "$_nm: $_p is a block device" test -b "$_p"
		check "$_nm: kernel partition $_n in sysfs" test -e "/sys/block/$_name/$(vm_part "$_name" $_n)/partition"
		expect_eq "$_nm: mount_method" "$(jq -r ".partitions[$((_n - 1))].mount_method" "$VM_STATE")" kernel
		expect_eq "$_nm: mounted by the kernel as" "$(findmnt -n -o FSTYPE "$VM_MNT/$_nm")" "$_kt"
		expect_eq "$_nm: mount source" "$(findmnt -n -o SOURCE "$VM_MNT/$_nm")" "$_p"
	done
	${VM_HOOK_READY:-:} "$_disk"
	expect_rc "status" 0 fslab status --state "$VM_STATE"
	expect_rc "status --json" 0 fslab status --state "$VM_STATE" --json
	cp "$VM_CMD_OUT" /fslab-job/status.json
	expect_eq "status ok" "$(jq .ok /fslab-job/status.json)" true
	expect_eq "status: device transport" "$(jq -r .device.transport /fslab-job/status.json)" \
		"$(vm_transport "$_disk")"
	expect_eq "status: device serial" "$(jq -r .device.serial /fslab-job/status.json)" fslab-lab
	timer_start
	# --steady-state off: the guests' disks are SSDs (rotation_rate=1), and
	# auto would run the phase on each 20G filesystem (a 1G file, up to 25
	# rounds of 512M) under TCG; jobs/precondition.sh runs a small one
	expect_rc "run" 0 fslab run --state "$VM_STATE" --out "$VM_OUT" --sweep "$VM_SWEEP" \
		--no-device-probe --steady-state off --quiet
	timer_end run
	cp "$VM_OUT/manifest.json" /fslab-job/manifest.json 2>/dev/null
	# the lab as the run left it, still mounted (kernel vfat here): healthy,
	# whatever FSInfo's free count says before vfat syncs it
	expect_rc "status after the run" 0 fslab status --state "$VM_STATE"
	check "status after the run names no damage" sh -c "! grep -q damaged '$VM_CMD_OUT'"
	for _nm in ext4 ext2 xfs fat32 btrfs; do
		expect_eq "$_nm.csv rows" "$(csv_rows "$VM_OUT/$_nm.csv")" "$VM_ROWS_PER_FS"
		expect_eq "$_nm: rows not ok" "$(tail -n +2 "$VM_OUT/$_nm.csv" | grep -c -v ',ok,')" 0
		expect_eq "$_nm: manifest mount_method" \
			"$(jq -r ".filesystems[] | select(.name == \"$_nm\") | .mount_method" "$VM_OUT/manifest.json")" kernel
		expect_eq "$_nm: manifest device_serial" \
			"$(jq -r ".filesystems[] | select(.name == \"$_nm\") | .device_serial" "$VM_OUT/manifest.json")" fslab-lab
		expect_eq "$_nm: manifest fuse" \
			"$(jq -r ".filesystems[] | select(.name == \"$_nm\") | .fuse" "$VM_OUT/manifest.json")" false
	done
	timer_start
	expect_rc "report" 0 fslab report "$VM_OUT" --format text
	timer_end report
	for _nm in ext4 ext2 xfs fat32 btrfs; do
		expect_out "report names $_nm" "$_nm"
	done
	timer_start
	expect_rc "teardown" 0 fslab teardown --state "$VM_STATE" --yes ${VM_TEARDOWN_OPTS:-}
	timer_end teardown
	vm_expect_clean "$_disk"
}

# DISK carries no partition, table or signature and nothing is mounted.
vm_expect_clean() {
	_name=${1#/dev/}
	expect_eq "mounts left under $VM_MNT" "$(findmnt -n -l -o TARGET | grep -c "^$VM_MNT")" 0
	expect_eq "signatures left on $1 (wipefs -n)" "$(wipefs -n "$1" | wc -l)" 0
	_rc=0
	blkid -p "$1" >/dev/null 2>&1 || _rc=$?
	expect_eq "blkid -p $1 finds nothing (exit 2)" "$_rc" 2
	expect_eq "kernel partitions left on $_name" "$(ls -d /sys/block/"$_name"/"$_name"* 2>/dev/null | wc -l)" 0
	expect_eq "partition nodes left in /dev" "$(ls /dev/"$_name"?* 2>/dev/null | wc -l)" 0
	check "state file removed" test ! -e "$VM_STATE"
}
