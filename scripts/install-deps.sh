#!/bin/sh
# Installs everything fslab needs to build, run and test on Debian 12 (as
# root).  The one list of packages: README, CI and the demo all call this.
set -eu
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (apt-get install needs it)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	cmake gcc make pkg-config \
	libfdisk-dev libmount-dev libblkid-dev uuid-dev libinih-dev libjson-c-dev check \
	util-linux e2fsprogs xfsprogs dosfstools btrfs-progs fusefat fuse3 \
	gnuplot-nox \
	chromium \
	valgrind clang libclang-rt-14-dev \
	fio hyperfine time jq fdisk \
	dpkg-dev lintian bash-completion man-db
