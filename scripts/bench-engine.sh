#!/bin/sh
# How much the fslab engine costs, measured with public tools only
# (/usr/bin/time, fio, jq).  Prints figures; judges nothing by itself.
#
#   1. peak RSS of one 2 GiB file with 16 MiB records (goal <= 64 MiB)
#   2. fslab against fio (psync engine, same block and file size) on tmpfs
#      and on a loop-backed ext4 the script makes and removes, side by side
#      in one run: sequential write and read at 1 MiB, random read at 4 KiB,
#      buffered (fslab --cache warm) and O_DIRECT (fslab --cache direct,
#      fio --direct=1); fslab and fio interleaved, medians of RUNS runs,
#      printed as fslab/fio ratios (goal within 5%).  fslab's random read
#      makes IOzone's lseek + read per record (the default); the
#      "random_read/pos" row is fslab --io positional (pread, as psync).
#   3. the `quick` sweep on tmpfs: wall time against the sum of its timed
#      regions, and against timed + the untimed open/fsync/close/create/
#      delete/sync that IOzone also does (goal <= 1.15x)
#   4. --latency's cost on a cached 4 KiB record loop (reread of a 64M file
#      on tmpfs), with and without, interleaved, medians of RUNS (goal <= 3%)
#   5. the results journal's cost: the quick sweep on tmpfs, its results
#      directory on the disk under /tmp (rows fdatasync'ed, lib/results.h's
#      window) against the same on tmpfs (where fdatasync does nothing),
#      interleaved, medians of RUNS sweep wall times (goal <= 2%)
#   6. fslab against IOzone, all 13 tests, one cell per record size in
#      IOZONE_RECORDS, on tmpfs and on an ext4 image (the part's own loop
#      device), fslab --cache warm --sync global (IOzone's default: nothing
#      flushed in the timer, sync() twice before the cell); rounds
#      interleaved, per-test medians of RUNS rounds, printed as fslab/IOzone
#      ratios.  IOzone is not in Debian main (non-free: iozone3): without
#      `iozone` on PATH the part says so and is skipped.
#   7. files_vs_loop: the many-files tests (files_create, files_stat,
#      files_read, files_unlink) against tests/bench/files_loop, a plain
#      C loop of the same calls in the same order (Debian has no fs_mark
#      package), on files of each size in FILES_SIZES (one record a file),
#      warm, each file fsync'ed; interleaved with alternating order,
#      medians of RUNS rounds of each phase's seconds, printed as
#      fslab/loop ratios (goal within 5%), on tmpfs and on ext4 on a loop
#      device (direct I/O) the part makes and removes.
#   8. uring_vs_fio: the queued tests (io_uring) against fio's io_uring
#      engine, CrystalDiskMark's rows SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1
#      and RND4K Q1T1, read and write, in URING_PAIRS pairs of fixed-size
#      rounds a row: fslab and fio back to back, who goes first
#      alternating (A B, B A, ...), and the ratio taken per pair.  A round
#      does the same passes on both sides over a new file in the same
#      filesystem (URING_SEQ_FILE for a SEQ row, URING_FILE for an RND
#      row): a SEQ row writes it (queued_write; fio
#      rw=write on a new, fallocated file) and reads it (queued_read;
#      rw=read), an RND row writes it in order at the row's depth, then
#      writes and reads it in random order (queued_random_write,
#      queued_random_read; fio randwrite, randread); each pass one sweep
#      of the file, O_DIRECT, nothing flushed in a timer (fslab --cache
#      direct, a grid cell of the row's record, --iodepth and --jobs;
#      fio's jobs one after the other, --stonewall).  fio does fslab's
#      calls: --fixedbufs, --scramble_buffers=0, --gtod_reduce=1 (no
#      clock read per request), and (URING_FIO_BATCH=depth, the default)
#      --iodepth_batch_submit and --iodepth_batch_complete_max at the
#      depth: every completion there is taken at once and the requests
#      that replace them submitted in one io_uring_enter, as fslab's
#      engine does (URING_FIO_BATCH=1: fio's default, one completion
#      taken and one request submitted at a time).
#      Printed per row: the median of the pairs' fslab/fio ratios (goal
#      0.95-1.05) and their interquartile range, each side's median and
#      spread (lowest and highest over its median), and the loop
#      device's requests of the first round on each side (the same count
#      and size on both).  Then (RUNS > 0) the CPU time per I/O at RND4K
#      Q32T1 read, one sweep of a URING_CPU_FILE file each: fslab's run
#      of queued_write + queued_random_read less its run of queued_write
#      alone, over the file's requests, and fio's the same way (a run
#      of its layout and read jobs less a run of its layout job), with
#      the rounds' options (goal <= 1.1x fio's), medians of RUNS.  Both
#      sides run on the same CPU (URING_PIN), with the loop devices'
#      workers (URING_WQ), fslab's passes with fio's
#      pause between jobs (URING_GAP: --pass-gap), on an image whose
#      tmpfs pages are all allocated before the rounds (URING_FILL).
#      On ext4 on a loop device over a file in tmpfs (tmpfs-loop), on
#      ext4 on a loop device (direct I/O) over an image on the disk
#      (ext4-image), and on tmpfs-loop paced by the block layer's throttle
#      (paced-loop: at most URING_PACE_IOPS requests and URING_PACE_BPS
#      bytes a second each way, a cgroup both sides run in; no CPU
#      figure), each made and removed by the part.  Needs root.
#
# Usage: scripts/bench-engine.sh [FSLAB_BINARY]
#   env: RUNS (5), FILE_SIZE (256M, part 2), SKIP_SWEEP=1 skips parts 3 and 5,
#   IOZONE_FILE (256M) and IOZONE_RECORDS ("4K 1M") for part 6, ONLY=6 runs
#   part 6 alone; URING_SEQ_FILE (1G), URING_FILE (256M), URING_PAIRS (10), URING_PICK (rows,
#   e.g. "SEQ1M_Q8T1 RND4K_Q1T1"; all when empty), URING_FIO_BATCH
#   (depth, or a number), URING_CPU_FILE (512M; RUNS=0 skips the CPU
#   figure), URING_BACKINGS ("tmpfs-loop ext4-image paced-loop", any of
#   them), URING_PACE_IOPS (40000) and URING_PACE_BPS (512M) for paced-loop,
#   URING_PIN (last: both sides on the last CPU; a taskset CPU list;
#   off), URING_WQ (pin: the kernel's unbound workqueues on those CPUs
#   too, machine-wide for the part, put back after; off), URING_GAP
#   (200: fslab's --pass-gap in the rounds, fio's pause between jobs)
#   and URING_FILL (1; 0: leave the tmpfs image sparse) for part 8,
#   ONLY=8 runs part 8 alone; FILES_SIZES ("4K 64K 1M") and FILES_LOOP_BIN
#   (files_loop next to fslab, under tests/bench/) for part 7, ONLY=7 runs
#   part 7 alone.
# The ext4 parts need root (loop devices); they are skipped otherwise.
set -eu

FSLAB=${1:-${FSLAB_BIN:-build-bench/fslab}}
RUNS=${RUNS:-5}
FILE_SIZE=${FILE_SIZE:-256M}
[ -x "$FSLAB" ] || { echo "bench-engine: no fslab binary at $FSLAB (build first, or pass its path)" >&2; exit 2; }
for t in fio jq /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-engine: $t is missing" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/fslab-bench-engine.XXXXXX)
SHM=$(mktemp -d /dev/shm/fslab-bench-engine.XXXXXX)
# ---- part 6: fslab against IOzone (its own variables, loop device and
# cleanup, so the other parts stay as they are) ----
IOZONE_FILE=${IOZONE_FILE:-256M}
IOZONE_RECORDS=${IOZONE_RECORDS:-4K 1M}
# IOzone's 13 columns, in the order of its report line
IOZONE_TESTS="write rewrite read reread random_read random_write backward_read record_rewrite stride_read fwrite frewrite fread freread"
IOZ_MNT=""
IOZ_LOOP=""
iozone_cleanup() {
	if [ -n "$IOZ_MNT" ] && mountpoint -q "$IOZ_MNT"; then umount "$IOZ_MNT" || true; fi
	if [ -n "$IOZ_MNT" ]; then rmdir "$IOZ_MNT" 2>/dev/null || true; fi
	if [ -n "$IOZ_LOOP" ]; then losetup -d "$IOZ_LOOP" 2>/dev/null || true; fi
	IOZ_MNT=""
	IOZ_LOOP=""
}

# One IOzone round: the 13 tests on one file x record cell, as
# "test KiB/s" lines.  IOzone's kB are KiB, as fslab's.
iozone_round() { # dir file record
	if ! iozone -i 0 -i 1 -i 2 -i 3 -i 4 -i 5 -i 6 -i 7 -s "$2" -r "$3" -f "$1/iozone.tmp" \
		>"$WORK/iozone.out" 2>&1; then
		echo "bench-engine: iozone failed in $1 (its last lines follow)" >&2
		tail -n 5 "$WORK/iozone.out" >&2
		rm -f "$1/iozone.tmp"
		return 1
	fi
	rm -f "$1/iozone.tmp"
	awk -v names="$IOZONE_TESTS" 'BEGIN { n = split(names, t, " ") }
		$1 ~ /^[0-9]+$/ && NF == n + 2 { for (i = 1; i <= n; i++) print t[i], $(i + 2) }' "$WORK/iozone.out"
}

# One fslab round: the same cell and tests; warm (nothing flushed inside
# the timer) and --sync global (sync() twice before the cell), as IOzone.
fslab_iozone_round() { # dir file record
	out="$WORK/iozone-fslab"
	rm -rf "$out"
	"$FSLAB" run --dir "x=$1" --tests all --file-sizes "$2" --record-sizes "$3" --cache warm \
		--sync global --trials 1 --small-records keep --no-device-probe --quiet --out "$out" >/dev/null
	awk -F, 'NR > 1 && $9 == "ok" { print $2, $6 }' "$out/x.csv"
	rm -rf "$out"
}

iozone_compare() { # label dir
	printf '%-10s %-22s %-14s %14s %14s %8s %15s\n' "$1" "test" "cell" "fslab KiB/s" "IOzone KiB/s" \
		"ratio" "rounds min-max"
	for rec in $IOZONE_RECORDS; do
		: >"$WORK/iozone-ours"
		: >"$WORK/iozone-theirs"
		i=0
		while [ $i -lt "$RUNS" ]; do
			# interleaved, and who goes first alternates, so drift on
			# a shared machine and the other's cached pages favour neither
			if [ $((i % 2)) = 0 ]; then
				fslab_iozone_round "$2" "$IOZONE_FILE" "$rec" | sed "s/\$/ $i/" >>"$WORK/iozone-ours"
				iozone_round "$2" "$IOZONE_FILE" "$rec" | sed "s/\$/ $i/" >>"$WORK/iozone-theirs"
			else
				iozone_round "$2" "$IOZONE_FILE" "$rec" | sed "s/\$/ $i/" >>"$WORK/iozone-theirs"
				fslab_iozone_round "$2" "$IOZONE_FILE" "$rec" | sed "s/\$/ $i/" >>"$WORK/iozone-ours"
			fi
			i=$((i + 1))
		done
		for t in $IOZONE_TESTS; do
			ours=$(awk -v t="$t" '$1 == t { print $2 }' "$WORK/iozone-ours")
			theirs=$(awk -v t="$t" '$1 == t { print $2 }' "$WORK/iozone-theirs")
			[ -z "$ours" ] || ours=$(echo "$ours" | median)
			[ -z "$theirs" ] || theirs=$(echo "$theirs" | median)
			if [ -z "$ours" ] || [ -z "$theirs" ]; then
				printf '%-10s %-22s %-14s %14s %14s %8s\n' "$1" "$t" "$IOZONE_FILE/$rec" \
					"${ours:-failed}" "${theirs:-failed}" "-"
				continue
			fi
			# the spread: each round's own fslab/IOzone ratio
			range=$(awk -v t="$t" 'FNR == NR { if ($1 == t) a[$3] = $2; next }
				$1 == t && ($3 in a) && $2 > 0 { r = a[$3] / $2; if (!n++ || r < lo) lo = r; if (r > hi) hi = r }
				END { if (n) printf "%.3f-%.3f", lo, hi }' "$WORK/iozone-ours" "$WORK/iozone-theirs")
			printf '%-10s %-22s %-14s %14.0f %14.0f %8.3f %15s\n' "$1" "$t" "$IOZONE_FILE/$rec" \
				"$ours" "$theirs" "$(echo "$ours $theirs" | awk '{ print $1 / $2 }')" "$range"
		done
	done
}

iozone_part() {
	echo
	echo "== 6. fslab vs IOzone, 13 tests, warm, per-test medians of $RUNS interleaved rounds =="
	if ! command -v iozone >/dev/null; then
		echo "skipped: iozone is not on PATH (IOzone is not in Debian main; Debian ships it in"
		echo "non-free as iozone3; install it, or put an iozone binary on PATH, to get this table)"
		return 0
	fi
	iozone -v 2>/dev/null | awk '/Version/ { print "IOzone:", $0 }' | sed 's/  */ /g'
	iozone_compare tmpfs "$SHM"
	if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; then
		echo "ext4-loop: skipped (needs root and mkfs.ext4 for its own loop device)"
		return 0
	fi
	truncate -s 4G "$WORK/iozone-ext4.img"
	IOZ_LOOP=$(losetup --find --show "$WORK/iozone-ext4.img")
	# no lazy inode-table or journal init: no kernel thread writing the
	# image in the background while the rounds run
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$IOZ_LOOP"
	IOZ_MNT=$(mktemp -d /tmp/fslab-bench-iozone-mnt.XXXXXX)
	mount "$IOZ_LOOP" "$IOZ_MNT"
	iozone_compare ext4-loop "$IOZ_MNT"
	iozone_cleanup
	rm -f "$WORK/iozone-ext4.img"
}
# ---- end of part 6's definitions ----

# ---- part 7: the many-files tests against a plain loop of the same calls
# (tests/bench/files_loop.c; its own loop device and cleanup, as part 6) ----
FILES_SIZES=${FILES_SIZES:-4K 64K 1M}
FILES_LOOP_BIN=${FILES_LOOP_BIN:-$(dirname "$FSLAB")/tests/bench/files_loop}
FL_MNT=""
FL_LOOP=""
files_cleanup() {
	if [ -n "$FL_MNT" ] && mountpoint -q "$FL_MNT"; then umount "$FL_MNT" || true; fi
	if [ -n "$FL_MNT" ]; then rmdir "$FL_MNT" 2>/dev/null || true; fi
	if [ -n "$FL_LOOP" ]; then losetup -d "$FL_LOOP" 2>/dev/null || true; fi
	FL_MNT=""
	FL_LOOP=""
}

# One fslab round of the four files tests on files of one size (written
# and read in one record of that size), warm, each file fsync'ed: "phase
# seconds" lines (the timed regions).
files_fslab_round() { # dir size
	out="$WORK/files-fslab"
	rm -rf "$out"
	"$FSLAB" run --dir "x=$1" --tests files --file-sizes "$2" --record-sizes "$2" --cache warm \
		--file-sync fsync --trials 1 --stop fixed --no-device-probe --quiet --out "$out" >/dev/null
	awk -F, 'NR > 1 && $9 == "ok" { sub(/^files_/, "", $2); print $2, $7 }' "$out/x.csv"
	rm -rf "$out"
}

# The same calls as a plain loop: the same lines.
files_loop_round() { # dir size
	bytes=$(echo "$2" | awk '{ n = $1 + 0; u = substr($1, length($1)); if (u == "K") n *= 1024;
		if (u == "M") n *= 1048576; print n }')
	"$FILES_LOOP_BIN" "$1" "$bytes" "$bytes" fsync | tr ' ' '\n' |
		awk -F= '$1 ~ /_s$/ { sub(/_s$/, "", $1); print $1, $2 }'
}

files_compare() { # label dir
	printf '%-10s %-8s %-6s %12s %12s %8s %15s\n' "$1" "phase" "size" "fslab s" "loop s" "ratio" \
		"rounds min-max"
	for size in $FILES_SIZES; do
		: >"$WORK/files-ours"
		: >"$WORK/files-theirs"
		i=0
		while [ $i -lt "$RUNS" ]; do
			if [ $((i % 2)) = 0 ]; then
				files_fslab_round "$2" "$size" | sed "s/\$/ $i/" >>"$WORK/files-ours"
				files_loop_round "$2" "$size" | sed "s/\$/ $i/" >>"$WORK/files-theirs"
			else
				files_loop_round "$2" "$size" | sed "s/\$/ $i/" >>"$WORK/files-theirs"
				files_fslab_round "$2" "$size" | sed "s/\$/ $i/" >>"$WORK/files-ours"
			fi
			i=$((i + 1))
		done
		for ph in create stat read unlink; do
			ours=$(awk -v t="$ph" '$1 == t { print $2 }' "$WORK/files-ours" | median)
			theirs=$(awk -v t="$ph" '$1 == t { print $2 }' "$WORK/files-theirs" | median)
			range=$(awk -v t="$ph" 'FNR == NR { if ($1 == t) a[$3] = $2; next }
				$1 == t && ($3 in a) && $2 > 0 { r = a[$3] / $2; if (!n++ || r < lo) lo = r; if (r > hi) hi = r }
				END { if (n) printf "%.3f-%.3f", lo, hi }' "$WORK/files-ours" "$WORK/files-theirs")
			printf '%-10s %-8s %-6s %12.6f %12.6f %8.3f %15s\n' "$1" "$ph" "$size" "$ours" "$theirs" \
				"$(echo "$ours $theirs" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" "$range"
		done
	done
}

files_part() {
	echo
	echo "== 7. the many-files tests vs a plain loop of the same calls (files_loop), warm, fsync per file,"
	echo "   seconds of each phase (ratio > 1: fslab slower), medians of $RUNS interleaved rounds =="
	if [ ! -x "$FILES_LOOP_BIN" ]; then
		echo "skipped: no files_loop at $FILES_LOOP_BIN (built with the tests: cmake -DFSLAB_TESTS=ON;"
		echo "or set FILES_LOOP_BIN)"
		return 0
	fi
	files_compare tmpfs "$SHM"
	if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; then
		echo "ext4-loop: skipped (needs root and mkfs.ext4 for its own loop device)"
		return 0
	fi
	truncate -s 2G "$WORK/files-ext4.img"
	FL_LOOP=$(losetup --find --show --direct-io=on "$WORK/files-ext4.img")
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$FL_LOOP"
	FL_MNT=$(mktemp -d /tmp/fslab-bench-files-mnt.XXXXXX)
	mount "$FL_LOOP" "$FL_MNT"
	files_compare ext4-loop "$FL_MNT"
	files_cleanup
	rm -f "$WORK/files-ext4.img"
}
# ---- end of part 7's definitions ----

# ---- part 8: the queued tests against fio's io_uring engine (its own
# variables, loop devices and cleanup, as part 6) ----
URING_FILE=${URING_FILE:-256M}
# the SEQ rows' file: CrystalDiskMark's 1 GiB.  On tmpfs-loop a SEQ1M
# pass of 256M lasts 35-45 ms, which fio times in whole milliseconds and
# which a fixed cost of a few milliseconds on either side moves by 10%
URING_SEQ_FILE=${URING_SEQ_FILE:-1G}
URING_PAIRS=${URING_PAIRS:-10}
URING_PICK=${URING_PICK:-}
URING_FIO_BATCH=${URING_FIO_BATCH:-depth}
URING_CPU_FILE=${URING_CPU_FILE:-512M}
URING_BACKINGS=${URING_BACKINGS:-tmpfs-loop ext4-image paced-loop}
# Both sides on the same CPUs (taskset's list; "off": wherever the
# scheduler puts them).  On the 2-vCPU test VM the placement of the
# submitter against the loop device's worker, not the calls, decided a
# 1 MiB request's cost on tmpfs-loop: fio's SEQ1M Q1T1 read moved
# 2.8-3.2 GiB/s unpinned and 6.9-7.4 GiB/s on one CPU, fslab's 4.5-5.2
# and 6.6-7.6 (docs/tests.md).  The default is the last CPU.
URING_PIN=${URING_PIN:-last}
# The kernel's unbound workqueues (the loop device's worker among them:
# it does each request's read or write of the backing file) on the same
# CPUs as the two sides, for the part only: "pin", or "off" (wherever
# the scheduler puts them).  Pinned but not these, RND4K Q1T1 read moved
# 210-370 MiB/s from round to round on either side, as the worker ran
# on the submitter's CPU or the other one; with them, 409-459 on both
# (docs/tests.md).  Machine-wide while the part runs
# (/sys/devices/virtual/workqueue/cpumask); the mask before is put back
# on every exit.
URING_WQ=${URING_WQ:-pin}
URING_WQ_MASK=/sys/devices/virtual/workqueue/cpumask
URING_WQ_SAVED=""
# fslab's --pass-gap in the rounds, milliseconds: fio starts each job of
# a round about 200 ms after the one before it ends (strace: a job's
# exit_group to the next one's io_uring_setup, 190-203 ms here), fslab
# its next pass within a millisecond; on tmpfs-loop a read pass started
# right after a write pass ran about a fifth slower than one started a
# second later.  0: fslab's default, no pause.
URING_GAP=${URING_GAP:-200}
# 1: the tmpfs image's pages all allocated after mkfs (uring_mkfs); 0: sparse
URING_FILL=${URING_FILL:-1}
# paced-loop: tmpfs-loop with the block layer's throttle on the loop
# device (cgroup v2 io.max, or v1 blkio.throttle), at most URING_PACE_IOPS
# requests and URING_PACE_BPS bytes a second each way, for both sides.
# Below what either engine reaches on tmpfs-loop (about 110 thousand 4K
# requests a second at Q1, GiB/s at 1M), so the device, not the engine's
# CPU, sets every row's pace: a device of steady speed, which neither
# the other backings (CPU-bound; the host's disk) nor this VM's kernel
# (no null_blk) offer.
URING_PACE_IOPS=${URING_PACE_IOPS:-40000}
URING_PACE_BPS=${URING_PACE_BPS:-512M}
URING_CG=""
URING_CG_HOME=""
# CrystalDiskMark's default rows: name, bs, iodepth, numjobs, kind (seq:
# queued_write then queued_read; rnd: queued_write, then
# queued_random_write and queued_random_read)
URING_ROWS="SEQ1M_Q8T1:1M:8:1:seq
SEQ1M_Q1T1:1M:1:1:seq
RND4K_Q32T1:4K:32:1:rnd
RND4K_Q1T1:4K:1:1:rnd"
URING_MNT=""
URING_LOOP=""
uring_cleanup() {
	if [ -n "$URING_MNT" ] && mountpoint -q "$URING_MNT"; then umount "$URING_MNT" || true; fi
	if [ -n "$URING_MNT" ]; then rmdir "$URING_MNT" 2>/dev/null || true; fi
	if [ -n "$URING_LOOP" ]; then losetup -d "$URING_LOOP" 2>/dev/null || true; fi
	URING_MNT=""
	URING_LOOP=""
}
# paced-loop's throttle on device: a new cgroup (v2 where its io
# controller is on, else v1 blkio) with the device's limits, and this
# shell, so every round it starts, in it; uring_pace_off moves the shell
# back where it was and removes the cgroup.  Fails, saying why, where
# the kernel has neither.
uring_pace_on() { # device
	majmin=$(lsblk -dno MAJ:MIN "$1" | tr -d ' ')
	bps=$(numfmt --from=iec "$URING_PACE_BPS")
	v2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
	if [ -n "$v2" ] && grep -qw io "$v2/cgroup.subtree_control" 2>/dev/null; then
		URING_CG_HOME=$v2$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
		URING_CG=$(mktemp -d "$v2/fslab-bench-pace.XXXXXX")
		echo "$majmin riops=$URING_PACE_IOPS wiops=$URING_PACE_IOPS rbps=$bps wbps=$bps" >"$URING_CG/io.max" ||
			return 1
		how="cgroup v2 io.max"
	elif [ -w /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device ]; then
		URING_CG_HOME=/sys/fs/cgroup/blkio$(awk -F: '$2 == "blkio" { print $3 }' /proc/self/cgroup)
		URING_CG=$(mktemp -d /sys/fs/cgroup/blkio/fslab-bench-pace.XXXXXX)
		for rw in read write; do
			echo "$majmin $URING_PACE_IOPS" >"$URING_CG/blkio.throttle.${rw}_iops_device" || return 1
			echo "$majmin $bps" >"$URING_CG/blkio.throttle.${rw}_bps_device" || return 1
		done
		how="cgroup v1 blkio.throttle"
	else
		echo "bench-engine: paced-loop needs the block layer's throttle: a cgroup v2 with its io controller on, or a v1 blkio hierarchy at /sys/fs/cgroup/blkio (neither is here)" >&2
		return 1
	fi
	echo $$ >"$URING_CG/cgroup.procs" || return 1
	echo "paced-loop: $1 throttled to $URING_PACE_IOPS requests/s and $URING_PACE_BPS/s each way ($how, URING_PACE_IOPS, URING_PACE_BPS); both sides' rounds run under it"
}
uring_pace_off() {
	[ -n "$URING_CG" ] || return 0
	echo $$ >"$URING_CG_HOME/cgroup.procs" ||
		echo "bench-engine: could not move back to cgroup $URING_CG_HOME" >&2
	rmdir "$URING_CG" || echo "bench-engine: could not remove cgroup $URING_CG (rmdir it)" >&2
	URING_CG=""
}

# This shell's CPUs, as taskset prints them (a hex mask, which is also
# what the workqueue mask takes).
uring_affinity() { taskset -p $$ | awk '{ print $NF }'; }
uring_wq_restore() {
	if [ -n "$URING_WQ_SAVED" ] && ! echo "$URING_WQ_SAVED" >"$URING_WQ_MASK"; then
		echo "bench-engine: could not put back the unbound workqueues' CPUs: echo $URING_WQ_SAVED >$URING_WQ_MASK" >&2
	fi
	URING_WQ_SAVED=""
}

# A column of fslab's CSV by its header's name, for the rows of test
# that are ok: "iodepth jobs value" lines.
uring_csv() { # csv test column
	awk -F, -v t="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["test"] == t && $c["status"] == "ok" { print $c["iodepth"], $c["jobs"], $c[col] }' "$1"
}

# fio's options that make its io_uring job do fslab's calls: O_DIRECT,
# registered buffers, buffers sent as they are (fio's default
# scramble_buffers rewrites part of each write buffer first: 25-35% off
# its SEQ1M Q1T1 write), no clock read per request (fslab's grid passes
# read none; fio's default reads it for each request's latencies), and
# with URING_FIO_BATCH=depth fslab's batches: every completion there is
# taken at once (up to the depth) and the requests that replace them
# submitted in one io_uring_enter.  fio's default (URING_FIO_BATCH=1)
# takes one completion at a time and submits one request at a time:
# about one io_uring_enter a request where fslab makes one a batch, and
# the block layer merges none of a sequential 4K writer's requests.
uring_fio_opts() { # iodepth
	b=$1
	[ "$URING_FIO_BATCH" = depth ] || b=$URING_FIO_BATCH
	echo "--ioengine=io_uring --fixedbufs --direct=1 --scramble_buffers=0 --gtod_reduce=1" \
		"--iodepth_batch_submit=$b --iodepth_batch_complete_max=$b"
}

# The loop device's requests so far: "reads sectors-read writes
# sectors-written" (its stat, in 512-byte sectors).
uring_dev_stat() {
	awk '{ print $1, $3, $5, $7 }' "/sys/block/${URING_LOOP#/dev/}/stat"
}

# The file of a round of a row of kind (seq or rnd).
uring_file() { # kind
	if [ "$1" = seq ]; then echo "$URING_SEQ_FILE"; else echo "$URING_FILE"; fi
}

# One fslab round of a row, fixed-size: one grid cell of the row's
# record, depth and threads on a file of the row's size (uring_file), O_DIRECT (--cache
# direct: nothing flushed in a timer), one trial; its queued_write lays
# the file out (new, fallocated) and the row's read and write passes
# follow in the engine's order.  "write KiB/s" and "read KiB/s" lines.
uring_fslab_round() { # dir bs iodepth jobs kind
	out="$WORK/uring-fslab"
	rm -rf "$out"
	tests=queued_write,queued_read w=queued_write r=queued_read
	[ "$5" = seq ] || tests=queued_write,queued_random_write,queued_random_read w=queued_random_write \
		r=queued_random_read
	"$FSLAB" run --dir "x=$1" --tests "$tests" --file-sizes "$(uring_file "$5")" --record-sizes "$2" \
		--iodepth "$3" --jobs "$4" --cache direct --trials 1 --stop fixed --small-records keep --pass-gap "$URING_GAP" \
		--no-device-probe --steady-state off --quiet --out "$out" >/dev/null || true
	echo "write $(uring_csv "$out/x.csv" "$w" throughput_kib_s | cut -d' ' -f3)"
	echo "read $(uring_csv "$out/x.csv" "$r" throughput_kib_s | cut -d' ' -f3)"
	rm -rf "$out"
}

# The same round by fio: a new file of the same size in the same
# filesystem (fio fallocates it, as fslab), jobs in fslab's order, each
# after the one before (stonewall), each job its own region as fslab's
# threads (numjobs, offset_increment).  "write KiB/s" and "read KiB/s".
uring_fio_round() { # dir bs iodepth jobs kind
	f="$1/fio.dat"
	rm -f "$f"
	region=$(($(numfmt --from=iec "$(uring_file "$5")") / $4))
	if [ "$5" = seq ]; then
		set -- "$@" --name=w --rw=write --name=r --stonewall --rw=read
	else
		set -- "$@" --name=l --rw=write --name=w --stonewall --rw=randwrite --name=r --stonewall --rw=randread
	fi
	d=$1 bs=$2 q=$3 t=$4
	shift 5
	# shellcheck disable=SC2046 # the options are words
	fio --filename="$f" --bs="$bs" --iodepth="$q" --numjobs="$t" --size="$region" \
		--offset_increment="$region" $(uring_fio_opts "$q") --group_reporting --output-format=json \
		"$@" >"$WORK/uring-fio.json" 2>"$WORK/uring-fio.err" || true
	rm -f "$f"
	echo "write $(jq '.jobs[] | select(.jobname == "w" and .error == 0) | .write.bw' "$WORK/uring-fio.json" 2>/dev/null)"
	echo "read $(jq '.jobs[] | select(.jobname == "r" and .error == 0) | .read.bw' "$WORK/uring-fio.json" 2>/dev/null)"
}

# One side's round with the loop device's requests it made: its
# "rw KiB/s" lines into file, "reads MiB writes MiB" into file.dev.
uring_side() { # side file dir bs iodepth jobs kind
	s=$1 into=$2
	shift 2
	a=$(uring_dev_stat)
	"uring_${s}_round" "$@" >"$into"
	echo "$a $(uring_dev_stat)" | awk '{ printf "%d reads (%.0f MiB), %d writes (%.0f MiB)\n",
		$5 - $1, ($6 - $2) / 2048, $7 - $3, ($8 - $4) / 2048 }' >"$into.dev"
}

# "median q1-q3" of a list of numbers (quartiles interpolated)
uring_quart() { sort -n | awk '{ v[NR] = $1 }
	function q(p,  h, i) { h = (NR - 1) * p + 1; i = int(h); return i >= NR ? v[NR] : v[i] + (h - i) * (v[i + 1] - v[i]) }
	END { if (NR) printf "%.3f %.3f-%.3f\n", q(0.5), q(0.25), q(0.75) }'; }

# "lo-hi" of a list of numbers, each over their median
uring_spread() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) exit; m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
	if (m > 0) printf "%.3f-%.3f", v[1] / m, v[NR] / m }'; }

# One row, URING_PAIRS pairs of rounds, fslab and fio back to back with
# who goes first alternating (A B, B A, A B ...): "pair rw fslab fio"
# lines into uring-pairs; the first pair's device requests printed.
uring_row_pairs() { # label dir row bs iodepth jobs kind
	label=$1 dir=$2 row=$3
	shift 3
	: >"$WORK/uring-pairs"
	i=0
	while [ $i -lt "$URING_PAIRS" ]; do
		if [ $((i % 2)) = 0 ]; then
			uring_side fslab "$WORK/uring-a" "$dir" "$@"
			uring_side fio "$WORK/uring-b" "$dir" "$@"
		else
			uring_side fio "$WORK/uring-b" "$dir" "$@"
			uring_side fslab "$WORK/uring-a" "$dir" "$@"
		fi
		[ $i != 0 ] || printf '%-12s %-12s device requests of a round: fslab %s; fio %s\n' "$label" "$row" \
			"$(cat "$WORK/uring-a.dev")" "$(cat "$WORK/uring-b.dev")"
		for side in write read; do
			echo "$i $side $(awk -v s="$side" '$1 == s { print $2 }' "$WORK/uring-a") $(awk -v s="$side" \
				'$1 == s { print $2 }' "$WORK/uring-b")" >>"$WORK/uring-pairs"
		done
		i=$((i + 1))
	done
}

# The row's table lines from uring-pairs: per rw, the median of the
# pairs' fslab/fio ratios, their interquartile range, each side's median
# and spread; a pair where either side failed is left out and counted.
uring_row_print() { # label row
	for side in read write; do
		awk -v s="$side" '$2 == s && NF == 4 && $3 > 0 && $4 > 0' "$WORK/uring-pairs" >"$WORK/uring-ok"
		bad=$(awk -v s="$side" '$2 == s && !(NF == 4 && $3 > 0 && $4 > 0)' "$WORK/uring-pairs" | wc -l)
		if [ ! -s "$WORK/uring-ok" ]; then
			printf '%-12s %-12s %-6s every pair failed (fio: %s)\n' "$1" "$2" "$side" \
				"$(tail -n 1 "$WORK/uring-fio.err" 2>/dev/null)"
			continue
		fi
		set -- "$1" "$2" "$(awk '{ print $3 / $4 }' "$WORK/uring-ok" | uring_quart)"
		[ "$bad" = 0 ] && bad="" || bad=" ($bad failed)"
		printf '%-12s %-12s %-6s %7s %13s %12.0f %13s %12.0f %13s %5s\n' "$1" "$2" "$side" "${3% *}" \
			"${3#* }" "$(awk '{ print $3 }' "$WORK/uring-ok" | median)" \
			"$(awk '{ print $3 }' "$WORK/uring-ok" | uring_spread)" \
			"$(awk '{ print $4 }' "$WORK/uring-ok" | median)" \
			"$(awk '{ print $4 }' "$WORK/uring-ok" | uring_spread)" \
			"$(wc -l <"$WORK/uring-ok")$bad"
		set -- "$1" "$2"
	done
}

# CPU seconds (user + system) of one fslab grid run at RND4K Q32T1 on a
# URING_CPU_FILE file: the tests given, O_DIRECT (--cache direct: no
# cache dropped, whose CPU would count), one trial.
uring_cpu_fslab() { # dir tests
	out="$WORK/uring-cpu-out"
	rm -rf "$out"
	/usr/bin/time -f '%U %S' -o "$WORK/uring-time" "$FSLAB" run --dir "x=$1" --tests "$2" \
		--file-sizes "$URING_CPU_FILE" --record-sizes 4K --iodepth 32 --jobs 1 --cache direct \
		--trials 1 --stop fixed --small-records keep --no-device-probe --steady-state off --quiet \
		--out "$out" >/dev/null
	rm -rf "$out"
	awk '{ print $1 + $2 }' "$WORK/uring-time"
}

# CPU seconds (user + system) of one fio run at RND4K Q32T1 on a new
# URING_CPU_FILE file in dir, as fslab's: its layout job (fslab's
# queued_write: a sequential 4K Q32 write of the fallocated file), then
# with read set its random read job, both with the rounds' options; the
# whole run, fio's job processes included (/usr/bin/time counts the
# children it waits for).  fio's job JSON figure, its usr + sys over its
# I/Os, into uring-cpu-json when read is set.
uring_cpu_fio() { # dir read(0|1)
	f="$1/fio-cpu.dat" rd=$2
	rm -f "$f"
	set -- --name=l --rw=write
	[ "$rd" = 0 ] || set -- "$@" --name=u --stonewall --rw=randread
	# shellcheck disable=SC2046 # the options are words
	/usr/bin/time -f '%U %S' -o "$WORK/uring-time" fio --filename="$f" --bs=4K --iodepth=32 \
		--size="$URING_CPU_FILE" $(uring_fio_opts 32) --output-format=json "$@" >"$WORK/uring-fio.json"
	rm -f "$f"
	[ "$rd" = 0 ] || jq '.jobs[] | select(.jobname == "u") | ((.usr_cpu + .sys_cpu) / 100 * .job_runtime / 1000) / .read.total_ios * 1e6' \
		"$WORK/uring-fio.json" >>"$WORK/uring-cpu-json"
	awk '{ print $1 + $2 }' "$WORK/uring-time"
}

# CPU time per I/O at RND4K Q32T1, random read, one sweep of a
# URING_CPU_FILE file, both sides measured alike: a whole run that lays
# the file out and reads it at random, less a whole run that only lays
# it out (the same write, the same file; the difference is the read
# pass), over the file's requests.  fio's own figure for its read job
# (its JSON's usr + sys, job process only) is printed beside it.
uring_cpu() { # label dir
	: >"$WORK/uring-cpu-ours"
	: >"$WORK/uring-cpu-theirs"
	: >"$WORK/uring-cpu-json"
	n_ios=$(($(numfmt --from=iec "$URING_CPU_FILE") / 4096))
	i=0
	while [ $i -lt "$RUNS" ]; do
		a=$(uring_cpu_fslab "$2" queued_write,queued_random_read)
		b=$(uring_cpu_fslab "$2" queued_write)
		echo "$a $b" | awk -v n="$n_ios" '{ print ($1 - $2) / n * 1e6 }' >>"$WORK/uring-cpu-ours"
		a=$(uring_cpu_fio "$2" 1)
		b=$(uring_cpu_fio "$2" 0)
		echo "$a $b" | awk -v n="$n_ios" '{ print ($1 - $2) / n * 1e6 }' >>"$WORK/uring-cpu-theirs"
		i=$((i + 1))
	done
	ours=$(median <"$WORK/uring-cpu-ours")
	theirs=$(median <"$WORK/uring-cpu-theirs")
	printf '%-12s CPU per I/O, RND4K Q32T1 read, %s file, two whole runs'"'"' difference each: fslab %.2f us (%s), fio %.2f us (%s), fslab/fio %.3f (goal <= 1.1; medians of %s); fio'"'"'s own job figure %.2f us (%s)\n' \
		"$1" "$URING_CPU_FILE" "$ours" "$(uring_spread <"$WORK/uring-cpu-ours")" "$theirs" \
		"$(uring_spread <"$WORK/uring-cpu-theirs")" "$(echo "$ours $theirs" | awk '{ print $1 / $2 }')" "$RUNS" \
		"$(median <"$WORK/uring-cpu-json")" "$(uring_spread <"$WORK/uring-cpu-json")"
}

# The rows on one filesystem (URING_PICK: only the rows named), each
# row's pairs of rounds back to back, then (RUNS > 0) the CPU per I/O.
uring_compare() { # label dir
	printf '%-12s %-12s %-6s %7s %13s %12s %13s %12s %13s %5s\n' "$1" "row" "rw" "ratio" "ratio q1-q3" \
		"fslab KiB/s" "fslab lo-hi" "fio KiB/s" "fio lo-hi" "pairs"
	echo "$URING_ROWS" | while IFS=: read -r row bs q t kind; do
		if [ -n "$URING_PICK" ]; then
			case " $URING_PICK " in *" $row "*) ;; *) continue ;; esac
		fi
		uring_row_pairs "$1" "$2" "$row" "$bs" "$q" "$t" "$kind"
		uring_row_print "$1" "$row"
	done
	# under the throttle a request's CPU is not the engine's alone
	[ "$RUNS" -gt 0 ] && [ "$1" != paced-loop ] || return 0
	uring_cpu "$1" "$2"
}

# One ext4 on its own loop device over an image of size at path; extra
# losetup options (--direct-io=on); mounted at URING_MNT.
uring_mkfs() { # image size [losetup options]
	truncate -s "$2" "$1"
	img=$1
	shift 2
	URING_LOOP=$(losetup --find --show "$@" "$img")
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$URING_LOOP"
	# every page of an image in tmpfs allocated now (mkfs discarded the
	# device: holes), so that no round's write is the first to touch one
	if [ "$URING_FILL" = 1 ] && [ "$(stat -f -c %T "$img")" = tmpfs ]; then
		fallocate -l "$(stat -c %s "$img")" "$img"
	fi
	URING_MNT=$(mktemp -d /tmp/fslab-bench-uring-mnt.XXXXXX)
	mount "$URING_LOOP" "$URING_MNT"
}

uring_part() {
	echo
	echo "== 8. uring_vs_fio: queued tests vs fio io_uring, O_DIRECT, $URING_PAIRS pairs of fixed-size rounds a row =="
	echo "fio: $(fio --version), batch $URING_FIO_BATCH; fslab: grid cell, $URING_SEQ_FILE file (SEQ) or $URING_FILE (RND), --cache direct --pass-gap $URING_GAP; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; then
		echo "skipped: needs root and mkfs.ext4 for its own loop devices"
		return 0
	fi
	case $URING_PACE_IOPS in
	'' | *[!0-9]* | 0 | 0*)
		echo "bench-engine: URING_PACE_IOPS: a whole number of requests a second, such as 40000, not '$URING_PACE_IOPS'" >&2
		return 2
		;;
	esac
	if ! numfmt --from=iec "$URING_PACE_BPS" 2>/dev/null | grep -qx '[1-9][0-9]*'; then
		echo "bench-engine: URING_PACE_BPS: bytes a second, such as 512M, not '$URING_PACE_BPS'" >&2
		return 2
	fi
	# pinned: this shell, and so every round it starts, on URING_PIN's
	# CPUs; its own CPUs again at the end of the part
	cpus_before=$(uring_affinity)
	case $URING_PIN in
	off) echo "CPUs: not pinned" ;;
	*)
		pin=$URING_PIN
		[ "$pin" != last ] || pin=$(($(nproc) - 1))
		if ! taskset -p -c "$pin" $$ >/dev/null; then
			echo "bench-engine: URING_PIN: cannot pin to CPUs '$URING_PIN' (a taskset list such as 1 or 0-3, 'last' or 'off')" >&2
			return 2
		fi
		echo "CPUs: both sides pinned to CPU $pin (URING_PIN=off: unpinned)"
		;;
	esac
	case $URING_WQ in
	off) echo "unbound workqueues: where the scheduler puts them" ;;
	pin)
		if [ "$URING_PIN" = off ]; then
			echo "unbound workqueues: where the scheduler puts them (URING_PIN=off)"
		elif [ ! -w "$URING_WQ_MASK" ]; then
			echo "unbound workqueues: where the scheduler puts them (no $URING_WQ_MASK to write)"
		else
			mask=$(uring_affinity)
			URING_WQ_SAVED=$(cat "$URING_WQ_MASK")
			if ! echo "$mask" >"$URING_WQ_MASK"; then
				URING_WQ_SAVED=""
				echo "bench-engine: URING_WQ: the kernel refused CPU mask $mask for its unbound workqueues (URING_WQ=off: leave them)" >&2
				return 2
			fi
			echo "unbound workqueues (the loop devices' workers): on the same CPUs, mask $mask (was $URING_WQ_SAVED; URING_WQ=off: left)"
		fi
		;;
	*) echo "bench-engine: URING_WQ: 'pin' or 'off', not '$URING_WQ'" >&2; return 2 ;;
	esac
	big=$URING_FILE
	for f in $URING_SEQ_FILE $URING_CPU_FILE; do
		[ "$(numfmt --from=iec "$f")" -le "$(numfmt --from=iec "$big")" ] || big=$f
	done
	# fio's file and fslab's side by side, and room for ext4's own
	size=$(($(numfmt --from=iec "$big") * 2 + 512 * 1024 * 1024))
	for backing in $URING_BACKINGS; do
		case $backing in
		tmpfs-loop) uring_mkfs "$SHM/uring-ext4.img" "$size" ;;
		ext4-image) uring_mkfs "$WORK/uring-ext4.img" "$size" --direct-io=on ;;
		paced-loop)
			uring_mkfs "$SHM/uring-ext4.img" "$size"
			if ! uring_pace_on "$URING_LOOP"; then
				uring_pace_off
				uring_cleanup
				continue
			fi
			;;
		*) echo "bench-engine: URING_BACKINGS: no backing '$backing' (tmpfs-loop, ext4-image, paced-loop)" >&2; return 2 ;;
		esac
		uring_compare "$backing" "$URING_MNT"
		uring_pace_off
		uring_cleanup
		rm -f "$SHM/uring-ext4.img" "$WORK/uring-ext4.img"
	done
	uring_wq_restore
	taskset -p "$cpus_before" $$ >/dev/null
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
# ---- end of part 8's definitions ----

MNT=""
cleanup() {
	iozone_cleanup
	files_cleanup
	uring_pace_off
	uring_cleanup
	uring_wq_restore
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then umount "$MNT"; fi
	[ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null || true
	rm -rf "$WORK" "$SHM"
}
trap cleanup EXIT INT TERM

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# fslab's throughput (KiB/s) of one test at one file and record size in
# DIR, one trial in cache mode MODE (warm: buffered; direct: O_DIRECT).
fslab_kib_s() { # dir test file record mode [extra options]
	out="$WORK/out.$$.$(date +%s%N)"
	d=$1 t=$2 f=$3 r=$4 m=$5
	shift 5
	"$FSLAB" run --dir "x=$d" --tests "$t" --file-sizes "$f" --record-sizes "$r" \
		--cache "$m" --trials 1 --small-records keep --no-device-probe --quiet --out "$out" "$@" >/dev/null
	awk -F, -v t="$t" 'NR > 1 && $2 == t && $9 == "ok" { print $6 }' "$out/x.csv"
	rm -rf "$out"
}

# fio's throughput (KiB/s): psync, buffered, one job, same sizes.  Like
# fslab (and IOzone) it neither preallocates the file (--fallocate=none)
# nor drops its pages before reading (--invalidate=0).
fio_kib_s() { # dir rw bs size direct(0|1)
	f="$1/fio.dat"
	case $2 in
	write) fio --name=w --filename="$f" --rw=write --bs="$3" --size="$4" --ioengine=psync \
		--direct="$5" --fallocate=none --invalidate=0 --output-format=json | jq '.jobs[0].write.bw'; rm -f "$f" ;;
	*) # lay the file out first (untimed) and fsync it, like fslab's untimed
		# write before its read tests: both then read clean pages (dirty ones
		# would survive another process's drop_caches, clean ones do not)
		fio --name=l --filename="$f" --rw=write --bs=1M --size="$4" --ioengine=psync \
			--direct="$5" --fallocate=none --end_fsync=1 --output-format=json >/dev/null
		fio --name=r --filename="$f" --rw="$2" --bs="$3" --size="$4" --ioengine=psync \
			--direct="$5" --fallocate=none --invalidate=0 --output-format=json | jq '.jobs[0].read.bw'
		rm -f "$f" ;;
	esac
}

compare() { # label dir
	printf '%-10s %-9s %-30s %14s %14s %8s\n' "$1" "mode" "test" "fslab KiB/s" "fio KiB/s" "ratio"
	for mode in buffered direct; do
		cache=warm direct=0
		[ $mode = direct ] && cache=direct direct=1
		for spec in "write write 1M" "read read 1M" "random_read randread 4K" \
			"random_read/pos randread 4K --io positional"; do
			set -- "$1" "$2" $spec
			label=$1 dir=$2 test=$3 rw=$4 bs=$5
			shift 5
			# interleaved, so drift on a shared machine hits both alike
			: >"$WORK/ours"
			: >"$WORK/theirs"
			i=0
			while [ $i -lt "$RUNS" ]; do
				fslab_kib_s "$dir" "${test%/pos}" "$FILE_SIZE" "$bs" "$cache" "$@" >>"$WORK/ours"
				fio_kib_s "$dir" "$rw" "$bs" "$FILE_SIZE" "$direct" >>"$WORK/theirs"
				i=$((i + 1))
			done
			ours=$(median <"$WORK/ours")
			theirs=$(median <"$WORK/theirs")
			printf '%-10s %-9s %-30s %14.0f %14.0f %8.3f\n' "$label" "$mode" "$test ($bs, $FILE_SIZE)" \
				"$ours" "$theirs" "$(echo "$ours $theirs" | awk '{ print $1 / $2 }')"
			set -- "$label" "$dir"
		done
	done
}

# IOZONE_ONLY=1 (ONLY=6): part 6 alone; ONLY=7, ONLY=8: part 7 or 8 alone
if [ "${IOZONE_ONLY:-0}" = 1 ] || [ "${ONLY:-}" = 6 ]; then
	iozone_part
	exit 0
fi
if [ "${ONLY:-}" = 7 ]; then
	files_part
	exit 0
fi
if [ "${ONLY:-}" = 8 ]; then
	uring_part
	exit 0
fi

echo "== 1. peak RSS: one 2G file, 16M records (tmpfs) =="
/usr/bin/time -f '%M' -o "$WORK/rss" "$FSLAB" run --dir "x=$SHM" --file-sizes 2G --record-sizes 16M \
	--cache warm --trials 1 --no-device-probe --quiet --out "$WORK/rss-out" >/dev/null
echo "peak RSS: $(cat "$WORK/rss") KiB (goal <= 65536 KiB)"
rm -rf "$WORK/rss-out"

echo
echo "== 2. fslab vs fio (psync), medians of $RUNS runs =="
compare tmpfs "$SHM"
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null; then
	truncate -s 4G "$WORK/ext4.img"
	mkfs.ext4 -q -F "$WORK/ext4.img"
	MNT=$(mktemp -d /tmp/fslab-bench-engine-mnt.XXXXXX)
	mount -o loop "$WORK/ext4.img" "$MNT"
	compare ext4-loop "$MNT"
	umount "$MNT"
	rmdir "$MNT"
	MNT=""
	rm -f "$WORK/ext4.img"
else
	echo "ext4-loop: skipped (needs root for mount -o loop)"
fi

if [ "${SKIP_SWEEP:-0}" != 1 ]; then
	echo
	echo "== 3. the quick sweep on tmpfs (warm, 1 trial): wall time vs its timed regions =="
	/usr/bin/time -f '%e' -o "$WORK/wall" "$FSLAB" run --dir "x=$SHM" --sweep quick --no-device-probe \
		--quiet --out "$WORK/quick" >/dev/null
	jq -r --arg wall "$(cat "$WORK/wall")" '.time as $t |
		"process wall time:               \($wall) s",
		"sweep wall time (manifest):      \($t.wall_s * 1000 | round / 1000) s",
		"sum of the timed regions:        \($t.timed_s * 1000 | round / 1000) s",
		"untimed open/fsync/close/create/delete/sync: \($t.untimed_io_s * 1000 | round / 1000) s",
		"ratio process wall / timed:             \(($wall | tonumber) / $t.timed_s * 1000 | round / 1000)",
		"ratio process wall / (timed + untimed): \(($wall | tonumber) / ($t.timed_s + $t.untimed_io_s) * 1000 | round / 1000) (goal <= 1.15)"' \
		"$WORK/quick/manifest.json"
fi

echo
echo "== 4. --latency on a cached 4K record loop (reread, 64M file, tmpfs), medians of $RUNS =="
: >"$WORK/plain"
: >"$WORK/lat"
i=0
while [ $i -lt "$RUNS" ]; do
	fslab_kib_s "$SHM" reread 64M 4K warm >>"$WORK/plain"
	fslab_kib_s "$SHM" reread 64M 4K warm --latency >>"$WORK/lat"
	i=$((i + 1))
done
plain=$(median <"$WORK/plain")
lat=$(median <"$WORK/lat")
printf 'without: %.0f KiB/s  with --latency: %.0f KiB/s  overhead: %.1f%% (goal <= 3%%)\n' "$plain" "$lat" \
	"$(echo "$plain $lat" | awk '{ print ($1 - $2) / $1 * 100 }')"

if [ "${SKIP_SWEEP:-0}" != 1 ]; then
	echo
	echo "== 5. the results journal: quick sweep (tmpfs), results on the disk ($WORK) vs on tmpfs, medians of $RUNS =="
	: >"$WORK/journal-disk"
	: >"$WORK/journal-shm"
	i=0
	while [ $i -lt "$RUNS" ]; do
		for where in disk shm; do
			out="$WORK/journal-out"
			[ $where = shm ] && out="$SHM/journal-out"
			rm -rf "$out"
			"$FSLAB" run --dir "x=$SHM" --sweep quick --no-device-probe --quiet --out "$out" >/dev/null
			jq '.time.wall_s' "$out/manifest.json" >>"$WORK/journal-$where"
			rm -rf "$out"
		done
		i=$((i + 1))
	done
	disk=$(median <"$WORK/journal-disk")
	shm=$(median <"$WORK/journal-shm")
	printf 'sweep wall, results journaled to the disk: %.3f s  on tmpfs (fdatasync does nothing): %.3f s  cost: %.1f%% (goal <= 2%%)\n' \
		"$disk" "$shm" "$(echo "$disk $shm" | awk '{ print ($1 - $2) / $2 * 100 }')"
fi

iozone_part

files_part

uring_part
