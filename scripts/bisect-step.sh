#!/bin/sh
# One step of `git bisect run` for "did this change make the filesystem
# slower?": N fresh runs of a small image lab (each: setup, fslab run,
# teardown), compared with a saved BEFORE set of N runs by
# `fslab report BEFORE,... AFTER,... --fail-on-regression PCT`, whose exit
# status it returns: 0 not regressed (good), 1 regressed (bad), 125 cannot
# tell (skip).  Every failure of its own (setup, run, the build command,
# not root) is 125 too: git bisect run takes 1-124 for "bad".
#
# Usage: scripts/bisect-step.sh --save DIR    N runs of the code as it is now into
#                                            DIR (DIR/before-1 ...): the BEFORE set
#        scripts/bisect-step.sh DIR [PCT]     N runs compared with DIR's (PCT default 5)
#
# e.g., bisecting the xfs module between v6.8 (good) and HEAD (bad):
#   printf '[fs xfs]\ntype = xfs\nsize = 512M\n' >/var/tmp/xfs.ini
#   export N=5 FSLAB_BISECT_SPEC=/var/tmp/xfs.ini
#   export FSLAB_BISECT_BUILD='make -j8 M=fs/xfs && rmmod xfs && insmod fs/xfs/xfs.ko'
#   git checkout v6.8 && /path/to/fslab/scripts/bisect-step.sh --save /var/tmp/before
#   git bisect start HEAD v6.8
#   git bisect run /path/to/fslab/scripts/bisect-step.sh /var/tmp/before 10
#
# Environment:
#   FSLAB               the fslab binary (default: the tree's build/fslab, else fslab on PATH)
#   N                   runs a side (default 3; each one fresh setup + run, ~30 s)
#   FSLAB_BISECT_BUILD  a shell command run first (build and load what is bisected);
#                       failing: 125
#   FSLAB_BISECT_SPEC   a lab spec file (default: one 512M ext4 partition)
#   FSLAB_BISECT_RUN    fslab run's options (default: 6 IOzone tests, files 8M-32M,
#                       1M records, 3 trials)
#   WORK                where the image, mounts and AFTER runs go
#                       (default /var/tmp/fslab-bisect)
# Root (setup attaches a loop device).  The lab is torn down on every path.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
skip() { echo "bisect-step: $*: cannot tell (exit 125)" >&2; exit 125; }
fslab=${FSLAB:-$top/build/fslab}
[ -x "$fslab" ] || fslab=$(command -v fslab) || skip "no fslab binary: set FSLAB"
n=${N:-3}
work=${WORK:-/var/tmp/fslab-bisect}
state=$work/state.json
run_opts=${FSLAB_BISECT_RUN:---tests write,rewrite,read,reread,random_read,random_write --file-sizes 8M-32M --record-sizes 1M --trials 3}
PATH=$PATH:/usr/sbin:/sbin
[ "$(id -u)" -eq 0 ] || skip "run as root (setup attaches a loop device, formats and mounts)"
case ${1:-} in
--save) [ $# -eq 2 ] || skip "usage: $0 --save DIR | $0 BEFORE_DIR [PCT]"
	out=$2 side=before ;;
"" | -*) skip "usage: $0 --save DIR | $0 BEFORE_DIR [PCT]" ;;
*) before=$(ls -d "$1"/before-* 2>/dev/null | paste -sd, -)
	[ -n "$before" ] || skip "$1 holds no before-* directory: make it with $0 --save $1"
	out=$work/after side=after ;;
esac
[ ! -e "$state" ] || skip "$state exists: an earlier lab is still set up; remove it with: $fslab teardown --state $state --yes"
mkdir -p "$work" || skip "cannot create $work"
cleanup() {
	[ ! -e "$state" ] || "$fslab" teardown --state "$state" --yes >/dev/null || true
	rm -f "$work/lab.img"
}
trap 'st=$?; cleanup; exit $st' EXIT
trap 'exit 125' INT TERM
if [ -n "${FSLAB_BISECT_BUILD:-}" ]; then
	sh -c "$FSLAB_BISECT_BUILD" || skip "the build command failed"
fi
if [ -z "${FSLAB_BISECT_SPEC:-}" ]; then
	FSLAB_BISECT_SPEC=$work/spec.ini
	printf '[fs ext4]\ntype = ext4\nsize = 512M\n' >"$FSLAB_BISECT_SPEC"
fi
rm -rf "$out"
mkdir -p "$out" || skip "cannot create $out"
i=1
while [ "$i" -le "$n" ]; do
	"$fslab" setup --image "$work/lab.img" --spec "$FSLAB_BISECT_SPEC" --state "$state" \
		--mount-root "$work/mnt" --yes >/dev/null || skip "setup of run $i failed"
	# shellcheck disable=SC2086 # the options are words
	"$fslab" run --state "$state" --out "$out/$side-$i" --quiet $run_opts || skip "run $i failed"
	cleanup
	i=$((i + 1))
done
if [ -z "${before:-}" ]; then
	echo "bisect-step: saved $n runs in $out"
	exit 0
fi
"$fslab" report "$before" "$(ls -d "$out"/after-* | paste -sd, -)" --fail-on-regression "${2:-5}"
