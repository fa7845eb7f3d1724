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
# Usage: build-guest.sh [KERNEL_RELEASE]
#
# The default release is the one every committed reference was measured on
# (testdata/kernel/configs.json "kernel", oracle.GuestKernel), at its Debian
# version, not whatever linux-image-amd64 depends on in this host's apt lists:
# stale lists once built 6.1.0-48-amd64 here without a word while the
# references are 6.1.0-57-amd64. When apt does not know the package (or that
# version), the lists are refreshed once (apt-get update); a package apt still
# does not have is an error, never a silent substitute. Another release must be
# named on purpose, and the harness then refuses the guest for the committed
# references (oracle.ErrWrongGuest) until they are re-recorded on it.
# BLKMQ_ORACLE_DRY_RUN=1 prints the release and package version it would build
# and exits.
set -euo pipefail

# keep in step with oracle.GuestKernel and testdata/kernel/configs.json (a test
# checks them against each other)
default_rel=6.1.0-57-amd64
default_ver=6.1.192-3

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
rel="${1:-$default_rel}"
case "$rel" in
*[!0-9A-Za-z.+~-]* | "" | -*) echo "build-guest: $rel: not a kernel release (want uname -r, e.g. $default_rel)" >&2; exit 2 ;;
esac
ver=""
if [ "$rel" = "$default_rel" ]; then
	ver=$default_ver
else
	echo "build-guest: WARNING: kernel $rel is not $default_rel, the kernel of the committed references; validate and the reference tests refuse this guest until the references are re-recorded on it" >&2
fi
pkg="linux-image-$rel"

# apt's candidate versions of $1 ("" when apt does not know it)
versions() { apt-cache madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}'; }
has_pkg() {
	local v
	v=$(versions "$1")
	[ -n "$v" ] || return 1
	[ -z "${2:-}" ] || grep -qxF -- "$2" <<<"$v"
}
cached_deb() { compgen -G "pkgs/${pkg}_${ver:-*}_amd64.deb" | head -n1; }
want="$pkg${ver:+ $ver}"
if [ -z "$(cached_deb)" ] && ! has_pkg "$pkg" "$ver"; then
	echo "build-guest: apt does not know $want; refreshing the package lists (apt-get update)" >&2
	apt-get update -q >&2 || true
	if ! has_pkg "$pkg" "$ver"; then
		known=$(versions "$pkg" | paste -sd ' ' -)
		echo "build-guest: $want is not in this host's apt sources${known:+ (apt has: $known)}; refusing to build another kernel in its place." >&2
		echo "build-guest: the committed references were measured on $default_rel ($default_ver); a guest of another release needs every reference re-recorded on it" >&2
		exit 1
	fi
fi
echo "build-guest: kernel $rel${ver:+ (Debian $ver)}" >&2
if [ "${BLKMQ_ORACLE_DRY_RUN:-}" = 1 ]; then
	echo "$rel${ver:+ $ver}"
	exit 0
fi

install_missing qemu-system-x86 kmod cpio fio
(
	cd pkgs
	[ -n "$(cd .. && cached_deb)" ] || apt-get download "$pkg${ver:+=$ver}"
	compgen -G "busybox-static_*.deb" >/dev/null || apt-get download busybox-static
)
deb=$(cached_deb)
[ -n "$deb" ] || { echo "build-guest: no ${pkg} package in $cache/pkgs after the download" >&2; exit 1; }
got=$(dpkg-deb -f "$deb" Version)
if [ -n "$ver" ] && [ "$got" != "$ver" ]; then
	echo "build-guest: $deb is version $got, want $ver" >&2
	exit 1
fi

work="$cache/work"
rm -rf "$work"
mkdir -p "$work/kernel" "$work/bb"
dpkg-deb -x "$deb" "$work/kernel"
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
