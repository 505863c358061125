#!/bin/sh
# Builds the QEMU guest for the vm tests into BUILD_DIR/vm-guest: Debian's
# distribution kernel (the package linux-image-amd64 depends on, fetched with
# apt-get download and unpacked with dpkg-deb) and a busybox-static
# initramfs that loads the block, filesystem and 9p modules, mounts the
# host's / read-only over 9p under a tmpfs overlay and switch_roots into it,
# so the host's fslab build and mkfs tools run in the guest unchanged.
# Cached: nothing is rebuilt while the kernel version, this script and
# init.sh are unchanged.
# Usage: tests/vm/build-guest.sh BUILD_DIR   (prints the guest directory)
# Exit 77 when the guest cannot be built here (no apt package, no busybox).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: build-guest.sh BUILD_DIR}
out=$build/vm-guest
skip() { echo "build-guest: SKIP: $*" >&2; exit 77; }

command -v dpkg-deb >/dev/null || skip "dpkg-deb not found (a Debian system is needed)"
busybox=/bin/busybox
[ -x "$busybox" ] && "$busybox" --list 2>/dev/null | grep -qx switch_root ||
	skip "no static busybox (apt-get install busybox-static)"
ldd "$busybox" 2>&1 | grep -q "not a dynamic" ||
	skip "$busybox is not statically linked (apt-get install busybox-static)"
command -v cpio >/dev/null || skip "cpio not found (apt-get install cpio)"
command -v depmod >/dev/null || skip "depmod not found (apt-get install kmod)"

# One build at a time per build directory (ctest -j, two scenarios).
mkdir -p "$build"
exec 9>"$build/vm-guest.lock"
flock 9

# The real kernel package behind the linux-image-amd64 metapackage.
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
[ -n "$kpkg" ] || skip "apt knows no linux-image-amd64 (run apt-get update)"
kver=${kpkg#linux-image-}
stamp="$kpkg $(cat "$0" "$here/init.sh" | cksum)"
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] &&
	[ -f "$out/vmlinuz" ] && [ -f "$out/initrd.img" ]; then
	echo "$out"
	exit 0
fi

work=$(mktemp -d "$build/vm-guest-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# apt-get download drops privileges to _apt, which cannot write to a 0700
# directory: download where it can, then move the file into the work dir.
(cd "$work" && chmod 755 . && apt-get download -q "$kpkg" >"$work/apt.log" 2>&1) || {
	cat "$work/apt.log" >&2
	skip "apt-get download $kpkg failed (no network or no apt lists?)"
}
dpkg-deb -x "$work"/"$kpkg"_*.deb "$work/k"
mods=$work/k/lib/modules/$kver
depmod -b "$work/k" "$kver"

# Modules the guest needs; each is loaded after the modules it depends on
# (modules.dep order), built-in ones are skipped.
# crc32c first: libcrc32c (xfs, btrfs) asks the crypto API for it at load.
want="crc32c_generic crc32c-intel virtio_pci virtio_scsi sd_mod nvme ahci
9pnet_virtio 9p overlay ext4 xfs btrfs vfat nls_cp437 nls_iso8859-1
nls_ascii nls_utf8 fuse loop"
mkdir -p "$work/initrd/mods"
for m in $want; do echo "$m"; done | awk -v dep="$mods/modules.dep" \
	-v builtin="$mods/modules.builtin" '
	function norm(s) { gsub(/-/, "_", s); return s }
	function base(p,  b) { b = p; sub(/.*\//, "", b); sub(/\.ko.*$/, "", b); return norm(b) }
	function visit(p,  n, i, d) {
		if (p in seen) return
		seen[p] = 1
		n = split(deps[p], d, " ")
		for (i = n; i >= 1; i--) visit(d[i])
		print p
	}
	BEGIN {
		while ((getline line < builtin) > 0) isbuiltin[base(line)] = 1
		while ((getline line < dep) > 0) {
			p = line; sub(/:.*/, "", p)
			d = line; sub(/^[^:]*:[ ]*/, "", d)
			deps[p] = d; path[base(p)] = p
		}
	}
	{
		m = norm($1)
		if (m in path) visit(path[m])
		else if (!(m in isbuiltin)) { print "no module " $1 > "/dev/stderr"; exit 1 }
	}' >"$work/order"
i=0
while read -r p; do
	i=$((i + 1))
	f=$(printf '%02d-%s' "$i" "${p##*/}")
	cp "$mods/$p" "$work/initrd/mods/$f"
done <"$work/order"

mkdir -p "$work/initrd/bin" "$work/initrd/proc" "$work/initrd/sys" "$work/initrd/dev" \
	"$work/initrd/host" "$work/initrd/rw" "$work/initrd/newroot"
cp "$busybox" "$work/initrd/bin/busybox"
ln -s busybox "$work/initrd/bin/sh"
cp "$here/init.sh" "$work/initrd/init"
chmod 755 "$work/initrd/init"
(cd "$work/initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.img"

mkdir -p "$out"
rm -f "$out/stamp"
cp "$work/k/boot/vmlinuz-$kver" "$out/vmlinuz"
mv "$work/initrd.img" "$out/initrd.img"
echo "$stamp" >"$out/stamp"
echo "$out"
