# Host side of the vm tests (sourced by run-guest.sh and the scenario
# tests, not run).  One guest per call of vm_boot: the disks a scenario
# asks for (sparse raw files in a per-test temp dir), the host's / read-only
# and the temp dir's share/ writable over 9p, a hard timeout, and cleanup
# that always kills QEMU and removes the temp dir.
#
#   vm_init NAME              temp dir, traps; exit 77 when a VM cannot run
#   vm_disk ID KIND SIZE [QEMU_OPTS]
#                             KIND scsi (virtio-scsi SSD), sata (AHCI SSD),
#                             nvme; SIZE for truncate(1); the file is
#                             $VM_DIR/ID.img, the guest sees serial fslab-ID
#   vm_boot JOB TIMEOUT       runs the guest script JOB (sh), waits for it;
#                             returns its exit status (124 on timeout);
#                             vm_start JOB TIMEOUT + vm_wait TIMEOUT do it
#                             in two steps, to act on the guest while it
#                             runs; a job that overstays has the guest
#                             print its state (tests/vm/watchdog.sh)
#   vm_monitor CMD            an HMP command to the running QEMU
#   vm_wait_file NAME SECS    waits for $VM_SHARE/NAME (the guest's
#                             /fslab-job/NAME) while the guest runs
# The guest finds $VM_ENV (/fslab-job/env) with FSLAB_BIN, FSLAB_SOURCE_DIR
# and VM_* settings; its output is in $VM_SHARE/log.

vm_log() { echo "vm[$VM_NAME]: $*" >&2; }
vm_skip() {
	echo "vm[$VM_NAME]: SKIP: $*" >&2
	exit 77
}
vm_fail() {
	echo "vm[$VM_NAME]: FAIL: $*" >&2
	exit 1
}

vm_cleanup() {
	# Runs from the traps, also under set -e: nothing here may stop it.
	if [ -n "${VM_QEMU_PID:-}" ]; then
		kill "$VM_QEMU_PID" 2>/dev/null || :
		for _i in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$VM_QEMU_PID" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$VM_QEMU_PID" 2>/dev/null || :
		wait "$VM_QEMU_PID" 2>/dev/null || :
		VM_QEMU_PID=
	fi
	if [ -n "${VM_MON_PID:-}" ]; then
		kill "$VM_MON_PID" 2>/dev/null || :
		wait "$VM_MON_PID" 2>/dev/null || :
		VM_MON_PID=
	fi
	if [ -n "${VM_DIR:-}" ] && [ -d "$VM_DIR" ]; then
		if [ -n "${VM_KEEP:-}" ]; then
			vm_log "kept $VM_DIR (VM_KEEP set)"
		else
			rm -rf "$VM_DIR" || :
		fi
	fi
}

vm_init() {
	VM_NAME=$1
	: "${FSLAB_BIN:?FSLAB_BIN: the fslab binary to run in the guest}"
	: "${FSLAB_BUILD_DIR:?FSLAB_BUILD_DIR: the build directory}"
	: "${FSLAB_SOURCE_DIR:?FSLAB_SOURCE_DIR: the source directory}"
	[ "$(id -u)" -eq 0 ] || vm_skip "needs root (the guest's 9p share of / uses passthrough)"
	VM_QEMU=$(command -v qemu-system-x86_64) ||
		vm_skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	VM_GUEST=$(sh "$FSLAB_SOURCE_DIR/tests/vm/build-guest.sh" "$FSLAB_BUILD_DIR") || {
		_rc=$?
		[ $_rc -eq 77 ] && vm_skip "no guest kernel/initramfs (see above)"
		vm_fail "building the guest failed (exit $_rc)"
	}
	VM_DIR=$(mktemp -d "${VM_TMPDIR:-${TMPDIR:-/var/tmp}}/fslab-vm-$VM_NAME.XXXXXX")
	VM_SHARE=$VM_DIR/share
	mkdir "$VM_SHARE"
	chmod 755 "$VM_DIR" "$VM_SHARE"
	VM_QEMU_PID=
	VM_MON_PID=
	VM_DISK_ARGS=
	VM_HAVE_SCSI=
	VM_HAVE_AHCI=
	VM_AHCI_PORT=0
	VM_ENV=$VM_SHARE/env
	{
		echo "FSLAB_BIN='$FSLAB_BIN'"
		echo "FSLAB_SOURCE_DIR='$FSLAB_SOURCE_DIR'"
		echo "VM_NAME='$VM_NAME'"
	} >"$VM_ENV"
	trap 'vm_cleanup' EXIT
	trap 'vm_cleanup; exit 130' INT
	trap 'vm_cleanup; exit 143' TERM HUP PIPE
}

vm_disk() {
	_id=$1 _kind=$2 _size=$3 _extra=${4:-}
	_f=$VM_DIR/$_id.img
	truncate -s "$_size" "$_f" || vm_fail "cannot create $_f"
	_drive="-drive file=$_f,if=none,id=drv-$_id,format=raw,cache=unsafe,discard=unmap"
	case $_kind in
	scsi)
		if [ -z "$VM_HAVE_SCSI" ]; then
			VM_DISK_ARGS="$VM_DISK_ARGS -device virtio-scsi-pci,id=scsi0"
			VM_HAVE_SCSI=1
		fi
		_dev="-device scsi-hd,bus=scsi0.0,drive=drv-$_id,id=$_id,serial=fslab-$_id,rotation_rate=1"
		;;
	sata)
		if [ -z "$VM_HAVE_AHCI" ]; then
			VM_DISK_ARGS="$VM_DISK_ARGS -device ahci,id=ahci0"
			VM_HAVE_AHCI=1
		fi
		_dev="-device ide-hd,bus=ahci0.$VM_AHCI_PORT,drive=drv-$_id,id=$_id,serial=fslab-$_id,model=FSLAB-SATA-SSD,rotation_rate=1"
		VM_AHCI_PORT=$((VM_AHCI_PORT + 1))
		;;
	nvme)
		_dev="-device nvme,drive=drv-$_id,id=$_id,serial=fslab-$_id"
		;;
	*) vm_fail "vm_disk: unknown kind $_kind" ;;
	esac
	[ -n "$_extra" ] && _dev="$_dev,$_extra"
	VM_DISK_ARGS="$VM_DISK_ARGS $_drive $_dev"
	echo "VM_DISK_$(echo "$_id" | tr a-z- A-Z_)='$_kind'" >>"$VM_ENV"
}

# vm_boot JOB TIMEOUT: boots, runs JOB in the guest, returns its status.
vm_boot() {
	vm_start "$1" "$2"
	vm_wait "$2"
}

# What the guest kernel logs when an emulated disk does not answer in
# time (NVMe's and SCSI's command timeouts and the resets after them).
VM_STALL_RE='I/O [0-9]+ (\(|QID).*timeout|timeout, (abort|reset)|resetting controller|Removing after probe failure|rejecting I/O to offline device'

# The guest prints its state (processes, kernel stacks, the kernel log)
# this long before the host's timeout kills it: TCG takes a while to print.
VM_WATCHDOG_LEAD_S=60

# vm_start JOB TIMEOUT: boots the guest in the background to run JOB; its
# watchdog fires VM_WATCHDOG_LEAD_S before TIMEOUT (at half of a short one).
vm_start() {
	_job=$1 _wd=$(($2 - VM_WATCHDOG_LEAD_S))
	[ "$_wd" -ge $(($2 / 2)) ] || _wd=$(($2 / 2))
	cp "$_job" "$VM_SHARE/job.sh" || vm_fail "cannot copy the job $_job"
	rm -f "$VM_SHARE/rc" "$VM_SHARE/log" "$VM_SHARE/cmd.out"
	sed -i '/^VM_WATCHDOG_S=/d' "$VM_ENV"
	echo "VM_WATCHDOG_S=$_wd" >>"$VM_ENV"
	mkfifo "$VM_DIR/mon.in" "$VM_DIR/mon.out"
	cat "$VM_DIR/mon.out" >"$VM_DIR/monitor.log" 2>/dev/null &
	VM_MON_PID=$!
	VM_T0=$(date +%s)
	# shellcheck disable=SC2086 # VM_DISK_ARGS is a word list
	"$VM_QEMU" -machine pc,accel=tcg -cpu max -smp 1 -m 1536 \
		-nodefaults -display none -no-reboot -net none \
		-kernel "$VM_GUEST/vmlinuz" -initrd "$VM_GUEST/initrd.img" \
		-append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" \
		-serial "file:$VM_DIR/console.log" \
		-monitor "pipe:$VM_DIR/mon" \
		-virtfs "local,path=/,mount_tag=host,security_model=passthrough,readonly=on,multidevs=remap" \
		-virtfs "local,path=$VM_SHARE,mount_tag=job,security_model=passthrough" \
		$VM_DISK_ARGS </dev/null >"$VM_DIR/qemu.log" 2>&1 &
	VM_QEMU_PID=$!
}

# vm_wait TIMEOUT: waits until the guest powers off (TIMEOUT s after
# vm_start at most); returns the job's status, 124 on timeout.
vm_wait() {
	_timeout=$1
	_status=
	while kill -0 "$VM_QEMU_PID" 2>/dev/null; do
		if [ $(($(date +%s) - VM_T0)) -ge "$_timeout" ]; then
			_status=124
			break
		fi
		sleep 0.5
	done
	if [ -z "$_status" ]; then
		wait "$VM_QEMU_PID"
		_qrc=$?
		VM_QEMU_PID=
	fi
	VM_WALL_S=$(($(date +%s) - VM_T0))
	echo "---- guest output ($VM_NAME, $VM_WALL_S s on the host)" >&2
	cat "$VM_SHARE/log" >&2 2>/dev/null
	if [ "$_status" = 124 ]; then
		if [ -s "$VM_SHARE/cmd.out" ]; then
			echo "---- the last command's output so far" >&2
			sed 's/^/    /' "$VM_SHARE/cmd.out" >&2
		fi
		echo "---- console (timed out after $_timeout s)" >&2
		# From the watchdog's report on, or the tail when there is none.
		if grep -q '^fslab-vm: WATCHDOG' "$VM_DIR/console.log"; then
			sed -n '/^fslab-vm: WATCHDOG/,$p' "$VM_DIR/console.log" | tr -d '\r' >&2
		else
			tail -n 40 "$VM_DIR/console.log" >&2
		fi
		vm_cleanup_qemu_only
		vm_log "TIMEOUT after $_timeout s: QEMU killed"
		return 124
	fi
	if [ ! -f "$VM_SHARE/rc" ]; then
		echo "---- console" >&2
		tail -n 60 "$VM_DIR/console.log" >&2
		cat "$VM_DIR/qemu.log" >&2
		vm_log "the guest stopped without a job status (QEMU exit $_qrc)"
		return 125
	fi
	VM_GUEST_S=$(sed -n 's/^fslab-vm: job done \([0-9.]*\).*/\1/p' "$VM_DIR/console.log" | tr -d '\r')
	vm_log "guest uptime at the end: ${VM_GUEST_S:-?} s, host wall: $VM_WALL_S s"
	_rc=$(cat "$VM_SHARE/rc")
	if [ "$_rc" != 0 ]; then
		# The kernel's warnings (loglevel=4) say whether an emulated
		# disk stalled: a timed-out command, a controller reset.
		echo "---- the guest kernel's warnings and errors" >&2
		grep -v '^fslab-vm:' "$VM_DIR/console.log" | tr -d '\r' | tail -n 30 >&2
		if grep -q -E "$VM_STALL_RE" "$VM_DIR/console.log"; then
			vm_log "an emulated disk stalled (the kernel log above): the emulator's, not fslab's"
			return 75
		fi
	fi
	return "$_rc"
}

vm_cleanup_qemu_only() {
	[ -n "${VM_QEMU_PID:-}" ] || return 0
	kill -9 "$VM_QEMU_PID" 2>/dev/null || :
	wait "$VM_QEMU_PID" 2>/dev/null || :
	VM_QEMU_PID=
}

vm_monitor() {
	echo "$*" >"$VM_DIR/mon.in"
}

vm_wait_file() {
	_n=0
	while [ ! -e "$VM_SHARE/$1" ]; do
		kill -0 "$VM_QEMU_PID" 2>/dev/null || return 1
		[ $_n -ge $(($2 * 2)) ] && return 1
		sleep 0.5
		_n=$((_n + 1))
	done
	return 0
}

# Allocated bytes of a (sparse) file on the host.
vm_allocated() {
	echo $(($(stat -c '%b * %B' "$1")))
}
