#!/bin/sh
# The guest's /init (busybox sh, in the initramfs build-guest.sh makes).
# Loads the modules in dependency order, mounts the host's / (9p tag "host",
# read-only) under a tmpfs overlay, mounts the per-test share (9p tag "job",
# writable) at /fslab-job and switch_roots into the overlay (a fresh /run;
# /tmp is the host's, written in the overlay: a checkout under /tmp stays
# visible).  There, as
# PID 1, it runs /fslab-job/job.sh with the host's /bin/sh, writes its exit
# status to /fslab-job/rc and powers the guest off.  When the job still
# runs after VM_WATCHDOG_S seconds (/fslab-job/env), tests/vm/watchdog.sh
# prints the guest's state to the console.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "fslab-vm: init" >/dev/console
# insmod reads no /proc/cmdline: module options go here.  NVMe's command
# timeout is 30 s; an emulator under load can take that long to answer.
for m in /mods/*.ko; do
	case $m in
	*-nvme-core.ko) opt=io_timeout=90 ;;
	*) opt= ;;
	esac
	insmod "$m" $opt 2>/dev/null || echo "fslab-vm: insmod $m failed" >/dev/console
done
fail() {
	echo "fslab-vm: FATAL: $*" >/dev/console
	echo o >/proc/sysrq-trigger
	sleep 60
}
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=loose,ro host /host ||
	fail "cannot mount the host's / (9p tag host)"
mount -t tmpfs -o mode=0755 tmpfs /rw || fail "tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot ||
	fail "cannot mount the overlay"
mkdir -p /newroot/fslab-job /newroot/fslab-vm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 job /newroot/fslab-job ||
	fail "cannot mount the job share (9p tag job)"
for d in proc sys dev; do
	mount --move /$d /newroot/$d || fail "mount --move /$d"
done
cp /bin/busybox /newroot/fslab-vm/busybox
cat >/newroot/fslab-vm/stage2 <<'STAGE2'
B=/fslab-vm/busybox
$B mount -t tmpfs -o mode=0755 tmpfs /run
$B mkdir -p /dev/pts /dev/shm
$B mount -t devpts devpts /dev/pts
$B mount -t tmpfs tmpfs /dev/shm
$B ln -sf /proc/self/mounts /etc/mtab 2>/dev/null
$B hostname fslab-vm
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
cd /
. /fslab-job/env
if [ -n "${VM_WATCHDOG_S:-}" ]; then
	( $B sleep "$VM_WATCHDOG_S" && [ ! -e /fslab-job/rc ] &&
		/bin/sh "$FSLAB_SOURCE_DIR/tests/vm/watchdog.sh" "$VM_WATCHDOG_S" ) &
fi
echo "fslab-vm: job start $($B cat /proc/uptime)" >/dev/console
/bin/sh /fslab-job/job.sh >/fslab-job/log 2>&1 </dev/null
echo $? >/fslab-job/rc.tmp && $B mv /fslab-job/rc.tmp /fslab-job/rc
echo "fslab-vm: job done $($B cat /proc/uptime) rc=$($B cat /fslab-job/rc)" >/dev/console
$B sync
echo o >/proc/sysrq-trigger
$B sleep 60
STAGE2
exec switch_root /newroot /fslab-vm/busybox sh /fslab-vm/stage2
fail "switch_root failed"
