#!/bin/sh
# How much the fslab engine costs, measured with public tools only
# (/usr/bin/time, fio, jq).  Prints figures; judges nothing by itself.
#
#   1. peak RSS of one 2 GiB file with 16 MiB records (goal <= 64 MiB)
#   2. fslab against fio (psync engine, same block and file size) on tmpfs
#      and on a loop-backed ext4 the script makes and removes: sequential
#      write and read at 1 MiB, random read at 4 KiB; medians of RUNS runs,
#      printed as fslab/fio ratios (goal within 5%)
#   3. the `seed` sweep on tmpfs: wall time against the sum of the timed
#      regions plus the untimed open/fsync/close/create/delete that IOzone
#      also does (goal <= 1.15x)
#
# Usage: scripts/bench-engine.sh [FSLAB_BINARY]
#   env: RUNS (5), FILE_SIZE (512M, part 2), SKIP_SEED=1 skips part 3.
# The ext4 part needs root (mount -o loop); it is skipped otherwise.
set -eu

FSLAB=${1:-${FSLAB_BIN:-build-bench/fslab}}
RUNS=${RUNS:-5}
FILE_SIZE=${FILE_SIZE:-512M}
[ -x "$FSLAB" ] || { echo "bench-engine: no fslab binary at $FSLAB (build first, or pass its path)" >&2; exit 2; }
for t in fio jq /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-engine: $t is missing" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/fslab-bench-engine.XXXXXX)
SHM=$(mktemp -d /dev/shm/fslab-bench-engine.XXXXXX)
MNT=""
cleanup() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then umount "$MNT"; fi
	[ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null || true
	rm -rf "$WORK" "$SHM"
}
trap cleanup EXIT INT TERM

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# fslab's throughput (KiB/s) of one test at one file and record size in DIR.
fslab_kib_s() { # dir test file record
	out="$WORK/out.$$.$(date +%s%N)"
	"$FSLAB" run --dir "x=$1" --tests "$2" --file-sizes "$3" --record-sizes "$4" \
		--small-records keep --no-device-probe --quiet --out "$out" >/dev/null
	awk -F, -v t="$2" 'NR > 1 && $2 == t && $9 == "ok" { print $6 }' "$out/x.csv"
	rm -rf "$out"
}

# fio's throughput (KiB/s): psync, buffered, one job, same sizes.  Like
# fslab (and IOzone) it neither preallocates the file (--fallocate=none)
# nor drops its pages before reading (--invalidate=0).
fio_kib_s() { # dir rw bs size
	f="$1/fio.dat"
	case $2 in
	write) fio --name=w --filename="$f" --rw=write --bs="$3" --size="$4" --ioengine=psync \
		--fallocate=none --invalidate=0 --output-format=json | jq '.jobs[0].write.bw'; rm -f "$f" ;;
	*) # lay the file out first (untimed), like fslab's write before its read tests
		fio --name=l --filename="$f" --rw=write --bs=1M --size="$4" --ioengine=psync \
			--fallocate=none --output-format=json >/dev/null
		fio --name=r --filename="$f" --rw="$2" --bs="$3" --size="$4" --ioengine=psync \
			--fallocate=none --invalidate=0 --output-format=json | jq '.jobs[0].read.bw'
		rm -f "$f" ;;
	esac
}

compare() { # label dir
	printf '%-8s %-22s %14s %14s %8s\n' "$1" "test" "fslab KiB/s" "fio KiB/s" "ratio"
	for spec in "write write 1M" "read read 1M" "random_read randread 4K"; do
		set -- "$1" "$2" $spec
		# interleaved, so drift on a shared machine hits both alike
		: >"$WORK/ours"
		: >"$WORK/theirs"
		i=0
		while [ $i -lt "$RUNS" ]; do
			fslab_kib_s "$2" "$3" "$FILE_SIZE" "$5" >>"$WORK/ours"
			fio_kib_s "$2" "$4" "$5" "$FILE_SIZE" >>"$WORK/theirs"
			i=$((i + 1))
		done
		ours=$(median <"$WORK/ours")
		theirs=$(median <"$WORK/theirs")
		printf '%-8s %-22s %14.0f %14.0f %8.3f\n' "$1" "$3 ($5, $FILE_SIZE)" "$ours" "$theirs" \
			"$(echo "$ours $theirs" | awk '{ print $1 / $2 }')"
	done
}

echo "== 1. peak RSS: one 2G file, 16M records (tmpfs) =="
/usr/bin/time -f '%M' -o "$WORK/rss" "$FSLAB" run --dir "x=$SHM" --file-sizes 2G --record-sizes 16M \
	--no-device-probe --quiet --out "$WORK/rss-out" >/dev/null
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

if [ "${SKIP_SEED:-0}" != 1 ]; then
	echo
	echo "== 3. the seed sweep on tmpfs: wall time vs timed + untimed I/O =="
	/usr/bin/time -f '%e' -o "$WORK/wall" "$FSLAB" run --dir "x=$SHM" --sweep seed --no-device-probe \
		--quiet --out "$WORK/seed" >/dev/null
	jq -r --arg wall "$(cat "$WORK/wall")" '.time as $t |
		"process wall time:               \($wall) s",
		"sweep wall time (manifest):      \($t.wall_s * 1000 | round / 1000) s",
		"timed regions:                   \($t.timed_s * 1000 | round / 1000) s",
		"untimed open/fsync/close/create/delete/syncfs: \($t.untimed_io_s * 1000 | round / 1000) s",
		"ratio process wall / (timed + untimed): \(($wall | tonumber) / ($t.timed_s + $t.untimed_io_s) * 1000 | round / 1000) (goal <= 1.15)",
		"ratio sweep wall / (timed + untimed):   \($t.wall_s / ($t.timed_s + $t.untimed_io_s) * 1000 | round / 1000)"' \
		"$WORK/seed/manifest.json"
fi
