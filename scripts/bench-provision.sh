#!/bin/sh
# Times fslab setup and fslab teardown of the DEFAULT layout (five 20 GiB
# partitions: ext4, ext2, xfs, fat32, btrfs) on a sparse 100 GiB image, and
# the same steps done by hand (truncate, losetup, sfdisk, partx, mkfs,
# mount/fusefat; umount, wipefs, partx, losetup -d, rm), with hyperfine, and
# prints the figures and their ratios.  Goal: setup <= 5 s, teardown <= 3 s,
# each <= 1.2x the hand-made steps.  Run as root after scripts/install-deps.sh.
#
# Usage: scripts/bench-provision.sh [RUNS] [WORK_DIR]
#        (defaults: 5 runs, /var/tmp/fslab-bench-provision; FSLAB=path/to/fslab)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
self=$top/scripts/bench-provision.sh
runs=${1:-5}
work=${2:-/var/tmp/fslab-bench-provision}
fslab=${FSLAB:-$top/build/fslab}
img=$work/lab.img
state=$work/state.json
mnt=$work/mnt
names="ext4 ext2 xfs fat32 btrfs"
PATH=$PATH:/usr/sbin:/sbin

# --- the hand-made steps (also called by hyperfine through this script) ---
hand_setup() {
	truncate -s 102402M "$img" # 100 GiB + 2 MiB, as fslab makes it
	dev=$(losetup --find --show --partscan "$img")
	echo "$dev" >"$work/hand.dev"
	sfdisk --quiet --no-reread "$dev" <<-SFDISK
		label: gpt
		size=20GiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=ext4
		size=20GiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=ext2
		size=20GiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=xfs
		size=20GiB, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name=fat32
		size=20GiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=btrfs
	SFDISK
	# this kernel may lack a GPT parser: add the partitions with BLKPG
	partx --add "$dev" 2>/dev/null || true
	i=0
	for n in $names; do
		i=$((i + 1))
		p=${dev}p$i
		while [ ! -b "$p" ]; do sleep 0.01; done
		case $n in
		ext4) mkfs.ext4 -q "$p" ;;
		ext2) mkfs.ext2 -q "$p" ;;
		xfs) mkfs.xfs -q "$p" ;;
		fat32) mkfs.fat -F 32 "$p" >/dev/null ;;
		btrfs) mkfs.btrfs -q "$p" ;;
		esac
		mkdir -p "$mnt/$n"
		if [ "$n" = fat32 ] && ! grep -qw vfat /proc/filesystems; then
			fusefat -o "rw+,fsname=$p" "$p" "$mnt/$n"
		else
			mount "$p" "$mnt/$n"
		fi
	done
}

hand_teardown() {
	dev=$(cat "$work/hand.dev")
	i=0
	for n in $names; do
		i=$((i + 1))
		umount "$mnt/$n"
	done
	i=0
	for n in $names; do
		i=$((i + 1))
		wipefs --all --quiet "${dev}p$i"
		rmdir "$mnt/$n"
	done
	partx --delete "$dev"
	wipefs --all --quiet "$dev"
	losetup --detach "$dev"
	rm -f "$img" "$work/hand.dev"
}

fslab_setup() { "$fslab" setup --image "$img" --state "$state" --mount-root "$mnt" >/dev/null; }
fslab_teardown() { "$fslab" teardown --state "$state" >/dev/null; }

# Leaves nothing behind, whichever way the last run ended.
clean() {
	if [ -e "$state" ]; then "$fslab" teardown --state "$state" >/dev/null 2>&1 || true; fi
	if [ -e "$work/hand.dev" ]; then hand_teardown >/dev/null 2>&1 || true; fi
	rm -f "$img" "$work/hand.dev"
}

case ${1:-} in
_hand_setup) work=$2 img=$work/lab.img mnt=$work/mnt; hand_setup; exit ;;
_hand_teardown) work=$2 img=$work/lab.img mnt=$work/mnt; hand_teardown; exit ;;
_fslab_setup) work=$2 img=$work/lab.img state=$work/state.json mnt=$work/mnt; fslab_setup; exit ;;
_fslab_teardown) work=$2 state=$work/state.json; fslab_teardown; exit ;;
_clean) work=$2 img=$work/lab.img state=$work/state.json mnt=$work/mnt; clean; exit ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "bench-provision.sh: run as root (loop devices, mkfs, mount)" >&2
	exit 1
fi
for t in hyperfine sfdisk partx wipefs losetup mkfs.ext4 mkfs.xfs mkfs.fat mkfs.btrfs; do
	command -v "$t" >/dev/null || { echo "bench-provision.sh: $t missing (scripts/install-deps.sh)" >&2; exit 1; }
done
if [ ! -x "$fslab" ]; then
	cmake -S "$top" -B "$top/build" >/dev/null
	cmake --build "$top/build" -j"$(nproc)" --target fslab >/dev/null
fi
mkdir -p "$work"
export FSLAB="$fslab"
trap 'sh "$self" _clean "$work"' EXIT INT TERM
sh "$self" _clean "$work"

hf() { # name, prepare (untimed, before each run), command
	hyperfine --style basic --runs "$runs" --export-csv "$work/$1.csv" \
		--prepare "$2" --cleanup "$s _clean $work" --command-name "$1" "$3" >"$work/$1.out" 2>&1 ||
		{ cat "$work/$1.out" >&2; exit 1; }
}
echo "fslab $("$fslab" --version | cut -d' ' -f2), $runs runs each, image $img (sparse 100 GiB + 2 MiB)"
echo "kernel $(uname -r), $(nproc) CPUs; vfat in kernel: $(grep -qw vfat /proc/filesystems && echo yes || echo no)"
s="sh $self"
# Each run starts from a blank slate: the prepare step (not timed) removes
# the previous run's lab and, for teardown, makes a fresh one.
hf fslab_setup "$s _clean $work" "$s _fslab_setup $work"
hf fslab_teardown "$s _clean $work; $s _fslab_setup $work" "$s _fslab_teardown $work"
hf hand_setup "$s _clean $work" "$s _hand_setup $work"
hf hand_teardown "$s _clean $work; $s _hand_setup $work" "$s _hand_teardown $work"

mean() { awk -F, 'NR == 2 { printf "%.3f", $2 }' "$work/$1.csv"; }
sd() { awk -F, 'NR == 2 { printf "%.3f", $3 }' "$work/$1.csv"; }
fs=$(mean fslab_setup) ft=$(mean fslab_teardown) hs=$(mean hand_setup) ht=$(mean hand_teardown)
printf '\n%-16s %10s %10s\n' "step" "mean (s)" "sd (s)"
for n in fslab_setup hand_setup fslab_teardown hand_teardown; do
	printf '%-16s %10s %10s\n' "$n" "$(mean $n)" "$(sd $n)"
done
awk -v fs="$fs" -v ft="$ft" -v hs="$hs" -v ht="$ht" 'BEGIN {
	printf "\nsetup:    fslab %.2f s / by hand %.2f s = %.2fx  (goal <= 5 s and <= 1.2x: %s)\n",
		fs, hs, fs / hs, (fs <= 5 && fs / hs <= 1.2) ? "met" : "NOT met"
	printf "teardown: fslab %.2f s / by hand %.2f s = %.2fx  (goal <= 3 s and <= 1.2x: %s)\n",
		ft, ht, ft / ht, (ft <= 3 && ft / ht <= 1.2) ? "met" : "NOT met"
}'
