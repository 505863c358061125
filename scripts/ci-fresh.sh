#!/bin/sh
# CI stage "fresh": the README's two commands on a machine with nothing
# installed.  Builds a brand-new Debian 12 root (mmdebstrap --variant=minbase
# bookworm), bind-mounts /dev, /proc and /sys into it, clones this checkout
# (its committed HEAD: uncommitted changes are not in the clone) into
# /root/fslab and, as root inside it, with a clean environment and no
# standard input:
#   1. runs README command 1 exactly as the README writes it (read from
#      README.md, not typed here): install the runtime packages, then the
#      demo (setup, run, report, teardown on a loop-backed image); then
#      checks that no loop device backed by a file of the root and no mount
#      inside it is left;
#   2. runs README command 2 (read the same way) with FSLAB_TEST_LABEL=unit:
#      the install step whole, then the tests that need neither root-only
#      devices nor guests, so a package missing from the test list shows up.
# The root is always unmounted and removed, also on failure, and never
# removed while anything is still mounted under it.
#
# Usage: scripts/ci-fresh.sh            (as root; needs mmdebstrap: installed
#                                        by scripts/install-deps.sh --fresh)
# FSLAB_FRESH_TMP=tmpfs   a tmpfs on the root's /tmp (as on Debian 13);
#                         default: /tmp on the root's own disk filesystem
# FSLAB_FRESH_LABEL=L     run command 2's tests of label L (default unit);
#                         "all" runs command 2 whole (every test, about 20 min)
# FSLAB_FRESH_DIR=DIR     make the root in a new directory under DIR
#                         (default /var/tmp)
set -eu
. "$(dirname "$0")/ci-lib.sh"
me=ci-fresh.sh

say() { echo "$me: $*"; }
die() { echo "$me: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (the root is built with mmdebstrap and chroot)"
if ! command -v mmdebstrap >/dev/null; then
	say "mmdebstrap missing: installing it (scripts/install-deps.sh --fresh)"
	sh "$top/scripts/install-deps.sh" --fresh
fi
command -v git >/dev/null || die "git is needed to clone the checkout into the root"
tmp_mode=${FSLAB_FRESH_TMP:-disk}
case $tmp_mode in
disk | tmpfs) ;;
*) die "FSLAB_FRESH_TMP='$tmp_mode': give tmpfs or disk" ;;
esac
unset FSLAB_TEST_LABEL
label=${FSLAB_FRESH_LABEL:-unit}
[ "$label" = all ] && label=

# README commands 1 and 2: the command lines of its first ```sh block.
readme_cmds=$(awk '/^```sh$/ && !seen { inblk = 1; seen = 1; next }
	inblk && /^```/ { exit }
	inblk && !/^[ \t]*#/ && NF { print }' "$top/README.md")
cmd1=$(printf '%s\n' "$readme_cmds" | sed -n 1p)
cmd2=$(printf '%s\n' "$readme_cmds" | sed -n 2p)
[ -n "$cmd1" ] && [ -n "$cmd2" ] && [ "$(printf '%s\n' "$readme_cmds" | wc -l)" -eq 2 ] ||
	die "README.md's first sh block must hold exactly two commands (found: $readme_cmds)"

root=$(mktemp -d "${FSLAB_FRESH_DIR:-/var/tmp}/fslab-fresh.XXXXXX")
# The root's own mounts, deepest first.
mounts_under() {
	findmnt -rn -o TARGET | awk -v r="$root/" 'index($0, r) == 1' | sort -r
}
# Loop devices whose backing file lies inside the root.
loops_under() {
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] || continue
		case $(cat "$f") in
		"$root"/*) d=${f#/sys/block/}; echo "/dev/${d%%/*} $(cat "$f")" ;;
		esac
	done
}
cleanup() {
	rc=$?
	set +e
	# processes running inside the root (a daemon a command left) hold it
	for p in /proc/[0-9]*; do
		case $(readlink "$p/root" 2>/dev/null) in
		"$root" | "$root"/*) kill -KILL "${p#/proc/}" 2>/dev/null ;;
		esac
	done
	loops_under | while read -r dev _; do losetup -d "$dev"; done
	for m in $(mounts_under); do umount "$m" 2>/dev/null; done
	for m in $(mounts_under); do umount -R "$m" 2>/dev/null; done
	left=$(mounts_under)
	if [ -n "$left" ]; then
		echo "$me: still mounted under $root, so it is NOT removed:" >&2
		echo "$left" >&2
		exit 1
	fi
	rm -rf --one-file-system "$root"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(ci_now)
say "building a fresh Debian 12 root in $root (mmdebstrap --variant=minbase bookworm)"
mmdebstrap --quiet --variant=minbase bookworm "$root" </dev/null ||
	die "mmdebstrap failed (Debian's package mirror unreachable?)"
say "root built in $(($(ci_now) - t0)) s"
# A chroot must not start services (apt's postinst scripts would start sshd
# or udev from inside it and hold its mounts): refused, as in any chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
if [ "$tmp_mode" = tmpfs ]; then
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
fi
git clone -q --no-hardlinks "$top" "$root/root/fslab"
say "cloned $(git -C "$top" rev-parse --short HEAD) into /root/fslab; /tmp is on $tmp_mode"

in_root() { # COMMAND: run in the root, at the top of the clone, as a new machine would
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${FSLAB_TEST_LABEL:+FSLAB_TEST_LABEL=$FSLAB_TEST_LABEL} \
		/bin/sh -c "cd /root/fslab && $1" </dev/null
}

t1=$(ci_now)
say "README command 1: $cmd1"
in_root "$cmd1" || die "README command 1 failed in a fresh Debian 12 root: $cmd1"
say "README command 1 passed in $(($(ci_now) - t1)) s"
left_loops=$(loops_under)
left_mounts=$(mounts_under | awk -v r="$root" '$0 != r "/tmp" && index($0, r "/dev") != 1 &&
	index($0, r "/proc") != 1 && index($0, r "/sys") != 1')
[ -z "$left_loops" ] || die "README command 1 left loop devices attached: $left_loops"
[ -z "$left_mounts" ] || die "README command 1 left mounts: $left_mounts"
say "nothing left attached or mounted"

t2=$(ci_now)
FSLAB_TEST_LABEL=$label
say "README command 2${label:+ (tests labelled $label)}: $cmd2"
in_root "$cmd2" || die "README command 2 failed in a fresh Debian 12 root: $cmd2"
say "README command 2 passed in $(($(ci_now) - t2)) s"
say "passed in $(($(ci_now) - t0)) s"
