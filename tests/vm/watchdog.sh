#!/bin/sh
# Guest side: what the guest is doing when its job overstays.  init.sh's
# stage 2 runs this (host's /bin/sh) VM_WATCHDOG_S seconds after the job
# started, if the job still runs; the host kills QEMU at its own timeout a
# little later, and shows the console from the WATCHDOG line on.  Writes to
# the console only: the job share may be what hangs.
# Usage: tests/vm/watchdog.sh SECONDS
exec >/dev/console 2>&1
echo "fslab-vm: WATCHDOG: the job still runs after $1 s; the guest's state follows"
echo "-- processes (kernel threads only when in D)"
ps -eo pid,ppid,stat,etime,wchan:24,args |
	awk 'NR == 1 || ($1 != 2 && $2 != 2) || $3 ~ /^D/'
# The kernel stacks of what waits in the kernel (D) and of fslab and its
# children (mkfs, mount helpers).
for d in /proc/[0-9]*; do
	pid=${d#/proc/}
	[ "$pid" = $$ ] && continue
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "$d/status" 2>/dev/null) || continue
	comm=$(cat "$d/comm" 2>/dev/null) || continue
	case "$st:$comm" in
	D:* | *:fslab* | *:mkfs* | *:mount* | *:fusefat*) ;;
	*) continue ;;
	esac
	echo "-- $pid $comm ($st): kernel stack"
	cat "$d/stack" 2>/dev/null
done
echo "-- the kernel log's tail, with the blocked tasks (sysrq w)"
echo w >/proc/sysrq-trigger 2>/dev/null
dmesg 2>/dev/null | tail -n 60
echo "fslab-vm: WATCHDOG: end of the guest's state"
