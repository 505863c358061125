#!/bin/sh
# Installs what fslab needs on Debian 12 (as root).  The one place that
# lists packages: README, CI and the demo all call this.
#
#   scripts/install-deps.sh           build and run fslab (the demo): the
#                                     compiler, the libraries, the mkfs
#                                     programs, fusefat, gnuplot
#   scripts/install-deps.sh --tests   that, plus what the tests add
#                                     (Check, Chromium, sanitizers, fio,
#                                     packaging, Ansible, SSH, ...)
#   scripts/install-deps.sh --fresh   only what the CI stage that builds a
#                                     brand-new Debian root needs on the
#                                     host (scripts/ci-fresh.sh): mmdebstrap
set -eu
usage="usage: scripts/install-deps.sh [--tests | --fresh]"

# Build fslab and run it (scripts/demo.sh).
runtime="
	cmake gcc make pkg-config
	libfdisk-dev libmount-dev libblkid-dev uuid-dev libinih-dev libjson-c-dev
	libsmartcols-dev liburing-dev
	util-linux e2fsprogs xfsprogs dosfstools btrfs-progs fusefat fuse3
	gnuplot-nox
"

# What the tests add (scripts/test.sh, .ci/run).
tests="
	check
	chromium
	valgrind clang libclang-rt-14-dev
	fio hyperfine time jq fdisk python3 smartmontools
	dpkg-dev lintian bash-completion man-db
	ansible ansible-lint openssh-server python3-apt
	qemu-system-x86 busybox-static cpio kmod udev
	mmdebstrap
"

# The host side of scripts/ci-fresh.sh (git is there: CI cloned with it).
fresh="
	mmdebstrap
"

with_tests=no
case ${1-} in
'') ;;
--tests) with_tests=yes ;;
--fresh) with_tests=fresh ;;
-h | --help) echo "$usage"; exit 0 ;;
*) echo "install-deps.sh: unknown argument '$1'; $usage" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (apt-get install needs it)" >&2
	exit 1
fi
case $with_tests in
no) packages=$runtime ;;
yes) packages="$runtime $tests" ;;
fresh) packages=$fresh ;;
esac
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# udev is for the tests/vm guest only: its package must not start
# systemd-udevd on this machine (a policy-rc.d that refuses just udev).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n[ "$1" = udev ] && exit 101\nexit 0\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
# shellcheck disable=SC2086 # the lists are words
apt-get install -y -q --no-install-recommends $packages
