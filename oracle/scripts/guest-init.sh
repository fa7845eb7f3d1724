#!/bin/busybox sh
# guest-init.sh — PID 1 of the kernel oracle's guest.
#
# The host appends a small cpio with /job to the initrd:
#   /job/modprobe.txt  module invocations, one a line ("scsi_debug delay=1 ...")
#   /job/sysfs.txt     "ATTRIBUTE VALUE" lines written, in order, under
#                      /sys/block/DISK/ of every disk the modules created
#                      (e.g. "queue/scheduler none", "device/queue_depth 15")
#   /job/job.fio       the fio job; ${DEV}, ${DEV1}.. name the new disks
#   /job/env           optional shell assignments (FIO_ARGS=...)
# Results leave on the second serial port, each in a block
#   #blkmq-begin NAME ... #blkmq-end NAME RC
# (modprobe, sysfs, disks, before, sched-before, fio, after, sched-after, inflight,
# tasks, tags) and a final #blkmq-done line; the console (first port) gets the
# kernel log.
/bin/busybox --install -s
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
mount -t proc none /proc
mount -t sysfs none /sys
mount -t devtmpfs none /dev 2>/dev/null
mount -t tmpfs none /tmp
mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo /sbin/modprobe > /proc/sys/kernel/modprobe

res=/dev/ttyS1
stty -F $res raw -echo 2>/dev/null
open_block() { echo "#blkmq-begin $1" > $res; }
close_block() { echo "#blkmq-end $1 $2" > $res; }
halt_now() {
	echo "#blkmq-done" > $res
	sync
	poweroff -f
	echo o > /proc/sysrq-trigger
	sleep 10
}
[ -f /job/env ] && . /job/env

disks_before=" $(ls /sys/block | tr '\n' ' ') "

# 1. modules (sd_mod first: no udev here to load it on demand)
open_block modprobe
rc=0
modprobe sd_mod > $res 2>&1
while read -r line; do
	set -- $line
	[ $# -eq 0 ] && continue
	case "$1" in '#'*) continue;; modprobe) shift;; esac
	echo "modprobe $*" > $res
	# on CPU 0: add_disk's partition scan reads each new disk from the CPU modprobe
	# runs on, and on a tag set shared by several disks that read leaves the hctx
	# of that CPU an active user (blk_mq_tag_busy) until the queue's timeout work
	# finds it idle; unpinned, the CPU (and so the fair share fio sees) would vary
	# from boot to boot
	taskset 0x1 modprobe "$@" > $res 2>&1 || rc=$?
done < /job/modprobe.txt
# a misspelt parameter is only a warning in the kernel log: make it fatal
dmesg | grep -i 'unknown parameter' > $res && rc=22
echo "uptime $(cut -d' ' -f1 /proc/uptime)" > $res
close_block modprobe $rc
[ $rc -ne 0 ] && halt_now

# 2. wait until the set of new disks is stable and their nodes exist
tries=0
last=""
while [ $tries -lt 200 ]; do
	now=""
	for d in $(ls /sys/block); do
		case "$disks_before" in *" $d "*) ;; *) now="$now $d";; esac
	done
	if [ -n "$now" ] && [ "$now" = "$last" ]; then
		ready=1
		for d in $now; do [ -b /dev/$d ] || ready=0; done
		[ $ready = 1 ] && break
	fi
	last="$now"
	usleep 50000
	tries=$((tries + 1))
done
disks="$now"
i=0
all=""
for d in $disks; do
	i=$((i + 1))
	export DEV$i=/dev/$d
	all="$all /dev/$d"
done
export DEVS="${all# }"
export DEV="${DEVS%% *}"

# 3. sysfs settings, on every new disk, in the order given
open_block sysfs
rc=0
if [ -f /job/sysfs.txt ]; then
	while read -r attr value; do
		[ -z "$attr" ] && continue
		for d in $disks; do
			echo "$value" > /sys/block/$d/$attr 2> $res || { echo "write $d/$attr=$value failed" > $res; rc=1; }
		done
	done < /job/sysfs.txt
fi
close_block sysfs $rc
[ $rc -ne 0 ] && halt_now

# 4. the configuration fio runs against
open_block disks
echo "kernel $(uname -r) cpus $(nproc) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"  > $res
echo "version $(cat /proc/version)" > $res
for d in $disks; do
	q=/sys/block/$d/queue
	echo "disk $d scheduler $(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler) nr_requests $(cat $q/nr_requests)" \
		"hw_queues $(ls /sys/block/$d/mq | wc -l) queue_depth $(cat /sys/block/$d/device/queue_depth 2>/dev/null || echo -)" \
		"max_sectors_kb $(cat $q/max_sectors_kb) sectors $(cat /sys/block/$d/size)" \
		"io_timeout $(cat $q/io_timeout 2>/dev/null || echo -)" > $res
done
for h in /sys/class/scsi_host/host*; do
	[ -f $h/can_queue ] && echo "host $(basename $h) $(cat $h/proc_name) can_queue $(cat $h/can_queue)" > $res
done
for m in null_blk scsi_debug; do
	[ -d /sys/module/$m/parameters ] || continue
	printf 'params %s' $m > $res
	for p in /sys/module/$m/parameters/*; do printf ' %s=%s' ${p##*/} "$(cat $p 2>/dev/null | tr -d ' ')" > $res; done
	echo > $res
done
close_block disks 0

stat_all() { for d in $disks; do echo "$d $(cat /sys/block/$d/stat)"; done; }
# per-CPU time counters (user nice system idle iowait irq softirq ...), in USER_HZ
cpu_stat() { grep '^cpu[0-9]' /proc/stat | sed 's/^/stat /'; }

# sched_stat: the guest's per-CPU interrupt, softirq and hrtimer counters
# (cumulative; the fio run's deltas are after - before):
#   irq NAME: c0 c1 ...       /proc/interrupts rows LOC (local timer), RES
#                             (rescheduling IPIs), CAL (function-call IPIs), TLB
#                             (TLB shootdowns), per CPU (arch/x86/kernel/irq.c)
#   softirq NAME: c0 c1 ...   /proc/softirqs (fs/proc/softirqs.c)
#   timer cpuN FIELD V        /proc/timer_list's hrtimer_cpu_base nr_events,
#                             nr_retries, nr_hangs and tick_sched idle_calls,
#                             idle_sleeps (kernel/time/timer_list.c print_cpu)
# (forks are fine here: outside fio's run)
sched_stat() {
	grep -E '^ *(LOC|RES|CAL|TLB):' /proc/interrupts | sed 's/^ */irq /'
	sed -n '2,$p' /proc/softirqs | sed 's/^ */softirq /'
	awk '/^cpu: /{c=$2} /^  \.(nr_events|nr_retries|nr_hangs|idle_calls|idle_sleeps) /{f=$1; sub(/^\./, "", f); print "timer cpu" c " " f " " $3}' /proc/timer_list 2>/dev/null
}

# kthreads_of_interest: the PIDs of the kernel threads whose CPU the model charges
# as kblockd runs and softirq work: the high-priority kworkers (kworker/N:MH, the
# WQ_HIGHPRI pools kblockd runs on) and ksoftirqd/N; found once before fio
# (builtins only), sampled with the fio tasks
kthreads_of_interest() {
	kpids=""
	for p in /proc/[0-9]*; do
		c=
		read c < $p/comm 2>/dev/null
		case "$c" in kworker/*H|ksoftirqd/*) kpids="$kpids ${p#/proc/}";; esac
	done
}

# task_sample: one grep over every fio task (fio's main process $fiopid and the job
# processes it forks, whose PIDs are higher; threads and io-wq workers are tasks of
# them) and the kernel threads kthreads_of_interest found: /proc/PID/task/TID/
# schedstat (run time ns, run-queue wait ns, timeslices: fs/proc/base.c
# proc_pid_schedstat, sched_info), and from status the task's Name and voluntary /
# nonvoluntary context switches (fs/proc/array.c task_context_switch_counts). One
# fork per call; the comm reads are builtins.
task_sample() {
	read up rest < /proc/uptime
	files=""
	for n in $kpids; do
		files="$files /proc/$n/task/[0-9]*/schedstat /proc/$n/task/[0-9]*/status"
	done
	for p in /proc/[0-9]*; do
		n=${p#/proc/}
		[ "$n" -ge "$fiopid" ] 2>/dev/null || continue
		c=
		read c < $p/comm 2>/dev/null
		[ "$c" = fio ] || continue
		files="$files $p/task/[0-9]*/schedstat $p/task/[0-9]*/status"
	done
	[ -n "$files" ] || return
	echo "uptime $up"
	grep -H -e '^[0-9]' -e '^Name:' -e 'ctxt_switches:' $files 2>/dev/null
}

# hctx_counters: per hctx the debugfs "queued" and "run" counters (cumulative)
hctx_counters() {
	for d in $disks; do
		for h in /sys/kernel/debug/block/$d/hctx*; do
			[ -r $h/run ] || continue
			q=-
			[ -r $h/queued ] && read q < $h/queued
			read r < $h/run
			echo "hctx $d ${h##*/} queued $q run $r"
		done
	done
}

# first_busy FILE: sets $b to the first "busy=N" of a debugfs tags file, "-" if none
# (builtins only: a fork costs milliseconds of emulated CPU)
first_busy() {
	b=-
	[ -r "$1" ] || return
	while read -r l; do
		case $l in busy=*) b=${l#busy=}; return;; esac
	done < "$1"
}

# sample: one line per disk: NAME reads writes device_busy hctxN:tags_busy:sched_busy ...
sample() {
	for d in $disks; do
		read r w < /sys/block/$d/inflight
		db=-
		[ -r /sys/block/$d/device/device_busy ] && read db < /sys/block/$d/device/device_busy
		line="$d $r $w $db"
		for h in /sys/kernel/debug/block/$d/hctx*; do
			[ -d $h ] || continue
			first_busy $h/tags; t=$b
			first_busy $h/sched_tags
			line="$line ${h##*/}:$t:$b"
		done
		echo "$line"
	done
}

# 5. fio, with in-flight counts sampled every 250 ms
open_block before
echo "uptime $(cut -d' ' -f1 /proc/uptime)" > $res
stat_all > $res
hctx_counters > $res
cpu_stat > $res
close_block before 0
# the block layer's state left by the I/O before fio (the partition scan at
# add_disk): cumulative disk stat and, per hctx, the tag set's active users and
# the requests allocated there so far
open_block setup
for d in $disks; do
	for h in /sys/kernel/debug/block/$d/hctx*; do
		[ -r $h/tags ] || continue
		a=-
		while read -r l; do case $l in active_queues=*) a=${l#active_queues=};; esac; done < $h/tags
		q=-
		[ -r $h/queued ] && read q < $h/queued
		echo "active $d ${h##*/} active_queues $a queued $q"
	done
done > $res
close_block setup 0
open_block sched-before
sched_stat > $res
close_block sched-before 0
kthreads_of_interest
cd /job
fio --output-format=json --output=/tmp/fio.json ${FIO_ARGS:-} job.fio > /tmp/fio.log 2>&1 &
fiopid=$!
# every 250 ms the disks' in-flight state; every fourth time (1 s) the fio tasks'
# scheduler counters, the last sample at most 1 s before a task ends
(
	i=0
	while :; do
		sample
		[ $((i % 4)) -eq 0 ] && task_sample >> /tmp/tasks
		i=$((i + 1))
		usleep 250000
	done
) > /tmp/inflight 2>/dev/null &
sampler=$!
wait $fiopid
frc=$?
kill $sampler 2>/dev/null
open_block after
echo "uptime $(cut -d' ' -f1 /proc/uptime)" > $res
stat_all > $res
hctx_counters > $res
cpu_stat > $res
close_block after 0
open_block sched-after
sched_stat > $res
close_block sched-after 0
open_block fio
cat /tmp/fio.json > $res
close_block fio $frc
open_block fio-log
cat /tmp/fio.log > $res
close_block fio-log 0
open_block inflight
awk '{n[$1]++; r[$1]+=$2; w[$1]+=$3; if ($2+$3 > m[$1]) m[$1]=$2+$3}
     END {for (d in n) printf "%s samples %d mean %.2f max %d\n", d, n[d], (r[d]+w[d])/n[d], m[d]}' /tmp/inflight > $res
close_block inflight 0
# per disk: device_busy (SCSI budget in use) mean/max; per hctx: driver tags and
# scheduler tags in use (debugfs busy=), mean/max over the same samples
open_block samples
awk '{ d=$1; n[d]++
       if ($4 != "-") { db[d]+=$4; if ($4 > dbm[d]) dbm[d]=$4; dbn[d]++ }
       for (i = 5; i <= NF; i++) { split($i, p, ":"); k=d " " p[1]; hn[k]++
         if (p[2] != "-") { tb[k]+=p[2]; if (p[2] > tm[k]) tm[k]=p[2]; tn[k]++ }
         if (p[3] != "-") { sb[k]+=p[3]; if (p[3] > sm[k]) sm[k]=p[3]; sn[k]++ } } }
     END { for (d in n) if (dbn[d]) printf "disk %s device_busy_mean %.2f device_busy_max %d\n", d, db[d]/dbn[d], dbm[d]
           for (k in hn) { printf "hctx %s", k
             if (tn[k]) printf " tags_busy_mean %.2f tags_busy_max %d", tb[k]/tn[k], tm[k]
             if (sn[k]) printf " sched_busy_mean %.2f sched_busy_max %d", sb[k]/sn[k], sm[k]
             printf "\n" } }' /tmp/inflight > $res
close_block samples 0
# per fio task and sampled kernel thread (PID TID): its name and, between its first and last sample (span,
# s), the deltas of run time, run-queue wait (ns), timeslices and voluntary /
# nonvoluntary switches; *_total are the last sample's values (since the task began)
open_block tasks
[ -f /tmp/tasks ] && awk '
	/^uptime / { up = $2; next }
	{ i = index($0, ":"); path = substr($0, 1, i - 1); rest = substr($0, i + 1)
	  n = split(path, p, "/"); if (n < 6) next
	  k = p[3] " " p[5]; f = p[6]
	  if (f == "schedstat") { split(rest, v, " ")
	    if (!(k in u0)) { u0[k] = up; r0[k] = v[1]; w0[k] = v[2]; s0[k] = v[3] }
	    u1[k] = up; r1[k] = v[1]; w1[k] = v[2]; s1[k] = v[3]
	  } else { j = index(rest, ":"); key = substr(rest, 1, j - 1); val = substr(rest, j + 1); gsub(/[ \t]/, "", val)
	    if (key == "Name") name[k] = val
	    else if (key == "voluntary_ctxt_switches") { if (!(k in v0)) v0[k] = val; v1[k] = val }
	    else if (key == "nonvoluntary_ctxt_switches") { if (!(k in n0)) n0[k] = val; n1[k] = val } } }
	END { for (k in u0) printf "task %s name %s span %.2f run_ns %.0f wait_ns %.0f slices %.0f vol %.0f nvol %.0f run_ns_total %.0f wait_ns_total %.0f slices_total %.0f vol_total %.0f nvol_total %.0f\n",
	        k, (name[k] == "" ? "-" : name[k]), u1[k] - u0[k], r1[k] - r0[k], w1[k] - w0[k], s1[k] - s0[k], v1[k] - v0[k], n1[k] - n0[k],
	        r1[k], w1[k], s1[k], v1[k], n1[k] }' /tmp/tasks > $res
close_block tasks 0

# 6. blk-mq tag state from debugfs (when mounted)
open_block tags
for d in $disks; do
	for h in /sys/kernel/debug/block/$d/hctx*; do
		[ -d $h ] || continue
		printf '%s %s cpus=%s ' $d ${h##*/} "$(cd $h && ls -d cpu* 2>/dev/null | tr '\n' ',' | sed 's/,$//')" > $res
		grep -E '^(nr_tags|nr_reserved_tags|active_queues)' $h/tags 2>/dev/null | tr -d ' ' | tr '\n' ' ' > $res
		grep -E '^depth=' $h/tags 2>/dev/null | head -n1 | tr '\n' ' ' > $res
		st=$(grep -E '^nr_tags' $h/sched_tags 2>/dev/null | tr -d ' ')
		[ -n "$st" ] && printf 'sched_%s ' "$st" > $res
		# the bitmaps' wake batch and shallow floor (sbitmap_queue_show), driver
		# tags then scheduler tags: which waker rule the running kernel applies
		wb=$(grep -E '^(wake_batch|min_shallow_depth)=' $h/tags 2>/dev/null | head -n2 | tr '\n' ' ')
		[ -n "$wb" ] && printf '%s' "$wb" > $res
		wb=$(grep -E '^(wake_batch|min_shallow_depth)=' $h/sched_tags 2>/dev/null | head -n2 | sed 's/^/sched_/' | tr '\n' ' ')
		[ -n "$wb" ] && printf '%s' "$wb" > $res
		echo > $res
	done
done
close_block tags 0
halt_now
