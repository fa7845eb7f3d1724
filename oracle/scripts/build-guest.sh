#!/bin/bash
# build-guest.sh — prepare the kernel oracle's guest in a cache directory.
#
# Everything comes from Debian packages: apt-get installs the host tools
# (qemu-system-x86, kmod, cpio, fio) when they are missing, and apt-get download
# fetches the kernel image package and busybox-static, which are unpacked, never
# installed. Output, in $BLKMQ_ORACLE_CACHE (default $XDG_CACHE_HOME/blkmq-oracle,
# else ~/.cache/blkmq-oracle):
#   kernel      the guest kernel: the uncompressed ELF when extraction works (it
#               boots through its PVH note and skips the slow in-guest
#               decompression under TCG), else the bzImage
#   initrd.cpio busybox, fio and its libraries, kmod, the block driver modules
#   release     the kernel release string (e.g. 6.1.0-57-amd64)
# Nothing here belongs in the repository.
#
# Usage: build-guest.sh [KERNEL_RELEASE]   (default: what linux-image-amd64 depends on)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${BLKMQ_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/blkmq-oracle}"
mkdir -p "$cache/pkgs"
cd "$cache"

install_missing() {
	local missing=()
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "build-guest: apt-get install ${missing[*]}" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
	fi
}
install_missing qemu-system-x86 kmod cpio fio

rel="${1:-}"
if [ -z "$rel" ]; then
	rel=$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: linux-image-\([0-9].*\)/\1/p' | head -n1)
fi
[ -n "$rel" ] || { echo "build-guest: cannot tell which kernel linux-image-amd64 points at; pass a release" >&2; exit 1; }
echo "build-guest: kernel $rel" >&2

(
	cd pkgs
	compgen -G "linux-image-${rel}_*.deb" >/dev/null || apt-get download "linux-image-$rel"
	compgen -G "busybox-static_*.deb" >/dev/null || apt-get download busybox-static
)

work="$cache/work"
rm -rf "$work"
mkdir -p "$work/kernel" "$work/bb"
dpkg-deb -x pkgs/linux-image-"${rel}"_*.deb "$work/kernel"
dpkg-deb -x pkgs/busybox-static_*.deb "$work/bb"
depmod -b "$work/kernel" "$rel"

# The bzImage embeds an xz stream; unpacking it here saves seconds per boot.
if ! python3 -c '
import lzma, sys
blob = open(sys.argv[1], "rb").read()
at = blob.find(b"\xfd7zXZ\x00")
if at < 0:
    sys.exit(1)
open(sys.argv[2], "wb").write(lzma.LZMADecompressor().decompress(blob[at:]))
' "$work/kernel/boot/vmlinuz-$rel" kernel.elf 2>/dev/null; then
	cp "$work/kernel/boot/vmlinuz-$rel" kernel.elf
fi
mv kernel.elf kernel

root="$work/root"
mods="lib/modules/$rel"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,job,etc,usr/bin,lib64,"$mods"}

# Block drivers under test and what they need; modprobe --show-depends gives
# the closure.
want="null_blk scsi_debug sd_mod configfs ${EXTRA_MODULES:-}"
for m in $want; do
	modprobe -d "$work/kernel" -S "$rel" --show-depends "$m" | while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		sub="${path#*/lib/modules/$rel/}"
		mkdir -p "$root/$mods/$(dirname "$sub")"
		cp "$path" "$root/$mods/$sub"
	done
done
cp "$work/kernel/$mods"/modules.order "$work/kernel/$mods"/modules.builtin* "$root/$mods/"
depmod -b "$root" "$rel"

cp "$work/bb/bin/busybox" "$root/bin/busybox"

# Host binaries (same Debian release) with every library ldd names.
add_binary() {
	cp "$1" "$root$2"
	ldd "$1" | grep -o '/[^ ]*' | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -Ln "$lib" "$root$lib"
	done
}
add_binary "$(command -v fio)" /usr/bin/fio
add_binary "$(command -v kmod)" /usr/bin/kmod
for t in modprobe insmod lsmod; do ln -sf /usr/bin/kmod "$root/sbin/$t"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
echo /usr/lib/x86_64-linux-gnu > "$root/etc/ld.so.conf"
echo /lib/x86_64-linux-gnu >> "$root/etc/ld.so.conf"
ldconfig -r "$root"
install -m 755 "$here/guest-init.sh" "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet) > initrd.cpio
echo "$rel" > release
rm -rf "$work"
echo "build-guest: ready in $cache ($(du -sh initrd.cpio | cut -f1) initrd)" >&2
