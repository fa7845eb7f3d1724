#!/bin/bash
# run-guest.sh — boot the oracle guest once and run one fio job in it.
#
#   run-guest.sh [-c CPUS] [-m MIB] [-t SECONDS] [-a tcg|kvm] -o OUTDIR MODPROBE SYSFS JOB
#
# MODPROBE  file of module invocations, one a line ("null_blk irqmode=2 ...")
# SYSFS     file of "ATTRIBUTE VALUE" lines written under /sys/block/DISK/ of every
#           new disk, in order (may be empty: /dev/null)
# JOB       fio job file; ${DEV} is the first new disk, ${DEV1}, ${DEV2}... each one
# OUTDIR    receives result.log (the guest's #blkmq-begin/#blkmq-end blocks, see
#           guest-init.sh), console.log (kernel log) and qemu.log
# The guest is built by build-guest.sh into $BLKMQ_ORACLE_CACHE (default
# $XDG_CACHE_HOME/blkmq-oracle or ~/.cache/blkmq-oracle). Acceleration: tcg by
# default (KVM on the project machines is a software nested hypervisor on which the
# Debian kernel does not boot usefully); -a kvm on a host with real VT-x/SVM.
# Exit: 0 ok, 2 usage or guest not built, 3 VM failed or timed out, 4 modprobe
# failed, 5 a sysfs write failed, 6 fio failed.
set -uo pipefail

cache="${BLKMQ_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/blkmq-oracle}"
cpus=2 mem=1024 limit=300 accel=tcg out=""
while getopts "c:m:t:a:o:" opt; do
	case $opt in
	c) cpus=$OPTARG ;; m) mem=$OPTARG ;; t) limit=$OPTARG ;; a) accel=$OPTARG ;; o) out=$OPTARG ;;
	*) sed -n '3,20p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ] || [ -z "$out" ]; then sed -n '3,20p' "$0" >&2; exit 2; fi
modfile=$1 sysfile=$2 job=$3
for f in "$modfile" "$sysfile" "$job"; do [ -r "$f" ] || { echo "run-guest: cannot read $f" >&2; exit 2; }; done
command -v qemu-system-x86_64 >/dev/null || { echo "run-guest: qemu-system-x86_64 not found: apt-get install qemu-system-x86" >&2; exit 2; }
[ -f "$cache/kernel" ] && [ -f "$cache/initrd.cpio" ] || { echo "run-guest: no guest in $cache: run oracle/scripts/build-guest.sh" >&2; exit 2; }
mkdir -p "$out"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/blkmq-oracle.XXXXXX")
vm=""
trap '[ -n "$vm" ] && kill $vm 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/extra/job"
cp "$modfile" "$tmp/extra/job/modprobe.txt"
cp "$sysfile" "$tmp/extra/job/sysfs.txt"
cp "$job" "$tmp/extra/job/job.fio"
# the guest-init.sh next to this script replaces the initrd's /init (a later cpio
# entry wins), so a changed init needs no rebuild of the guest
here="$(cd "$(dirname "$0")" && pwd)"
[ -r "$here/guest-init.sh" ] && install -m 755 "$here/guest-init.sh" "$tmp/extra/init"
printf 'FIO_ARGS=%q\n' "${FIO_ARGS:-}" > "$tmp/extra/job/env"
(cd "$tmp/extra" && find . | cpio -o -H newc --quiet) > "$tmp/job.cpio"
cat "$cache/initrd.cpio" "$tmp/job.cpio" > "$tmp/initrd"

case $accel in
kvm) acc=(-accel kvm -cpu host) ;;
tcg) acc=(-accel tcg,thread=multi -cpu Nehalem) ;;
*) echo "run-guest: -a $accel: allowed tcg, kvm" >&2; exit 2 ;;
esac
# tsc as clocksource: the default fallback (hpet) makes every clock read trap.
cmdline="console=ttyS0 rdinit=/init panic=-1 loglevel=4 8250.nr_uarts=2 scsi_mod.scan=sync mitigations=off audit=0 tsc=reliable clocksource=tsc"
: > "$out/result.raw"
# Under TCG guest time is host time, so host contention shows up as device
# latency. BLKMQ_ORACLE_RT=N (root only) runs the VM at SCHED_FIFO priority N:
# its threads then preempt other work on a shared host (the VM mostly sleeps;
# the kernel's RT throttling keeps 5 % for everything else).
prio=()
[ -n "${BLKMQ_ORACLE_RT:-}" ] && prio=(chrt -f "$BLKMQ_ORACLE_RT")
"${prio[@]}" qemu-system-x86_64 "${acc[@]}" -machine q35 -smp "$cpus" -m "$mem" -nodefaults -no-user-config \
	-display none -no-reboot -kernel "$cache/kernel" -initrd "$tmp/initrd" -append "$cmdline" \
	-chardev file,id=c0,path="$out/console.log" -serial chardev:c0 \
	-chardev file,id=c1,path="$out/result.raw" -serial chardev:c1 \
	</dev/null >"$out/qemu.log" 2>&1 &
vm=$!
end=$((SECONDS + limit))
while kill -0 $vm 2>/dev/null; do
	if [ $SECONDS -ge $end ]; then
		echo "run-guest: no power-off after ${limit}s: killing the VM" >&2
		kill $vm; sleep 1; kill -9 $vm 2>/dev/null
		break
	fi
	sleep 0.2
done
wait $vm 2>/dev/null
vm=""
tr -d '\r' < "$out/result.raw" > "$out/result.log"
rm -f "$out/result.raw"

rc_of() { sed -n "s/^#blkmq-end $1 //p" "$out/result.log" | head -n1; }
grep -q '^#blkmq-done' "$out/result.log" || { echo "run-guest: the guest did not finish (see $out/console.log)" >&2; tail -n 20 "$out/console.log" >&2; exit 3; }
[ "$(rc_of modprobe)" = 0 ] || { echo "run-guest: modprobe failed:" >&2; sed -n '/^#blkmq-begin modprobe/,/^#blkmq-end modprobe/p' "$out/result.log" >&2; exit 4; }
[ "$(rc_of sysfs)" = 0 ] || { echo "run-guest: a sysfs write failed:" >&2; sed -n '/^#blkmq-begin sysfs/,/^#blkmq-end sysfs/p' "$out/result.log" >&2; exit 5; }
[ "$(rc_of fio)" = 0 ] || { echo "run-guest: fio failed:" >&2; sed -n '/^#blkmq-begin fio-log/,/^#blkmq-end fio-log/p' "$out/result.log" >&2; exit 6; }
exit 0
