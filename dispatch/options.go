package dispatch

import (
	"fmt"
	"strconv"
	"strings"
)

// RestartRule selects how a SCSI command completion re-runs its LUN's queue
// (drivers/scsi/scsi_lib.c scsi_run_queue_async / scsi_end_request).
type RestartRule uint8

const (
	// RestartCounter (v5.10+, Ming Lei ed5dd6a67d5e): a completion re-runs every hctx
	// of the LUN asynchronously only if a budget failure was recorded since the last
	// re-run (sdev->restarts, reset by compare-and-swap).
	RestartCounter RestartRule = iota
	// RestartEveryCompletion (before v5.10): every completion re-runs every hctx of the
	// LUN asynchronously.
	RestartEveryCompletion
)

// SwQueueDequeue selects how a hctx without elevator takes requests out of its
// software queues (block/blk-mq-sched.c __blk_mq_sched_dispatch_requests).
type SwQueueDequeue uint8

const (
	// DequeueByDispatchBusy (v4.19+): one-by-one round robin (blk_mq_do_dispatch_ctx)
	// when dispatch_busy is set or the dispatch list was just drained, otherwise flush
	// every ctx (blk_mq_flush_busy_ctxs).
	DequeueByDispatchBusy SwQueueDequeue = iota
	// DequeueOneByOne (v4.15–v4.18): always one-by-one when the driver has a budget
	// callback (SCSI).
	DequeueOneByOne
	// DequeueFlushAll (≤ v4.14): always take every request of every ctx.
	DequeueFlushAll
)

// ElevatorRule selects the default I/O scheduler of a new request queue
// (block/elevator.c elevator_get_default).
type ElevatorRule uint8

const (
	// ElevatorSingleQueueOrSharedTags (v5.13+, Ming Lei 580dca8143d2 "blk-mq: set
	// default elevator as deadline in case of hctx shared tagset", which fixed the
	// "write performance is degraded a lot" of host-wide tags running with none):
	// mq-deadline when nr_hw_queues == 1 or the tag set has host-wide (hctx-shared)
	// tags, else none.
	ElevatorSingleQueueOrSharedTags ElevatorRule = iota
	// ElevatorSingleQueue (before v5.13, so also v5.10–v5.12 with host-wide tags,
	// 32bc15afed04): mq-deadline only when nr_hw_queues == 1.
	ElevatorSingleQueue
)

// DevResourceRule selects when scsi_queue_rq turns BLK_STS_RESOURCE into
// BLK_STS_DEV_RESOURCE ("a completion of this LUN will re-run the queue").
type DevResourceRule uint8

const (
	// DevResourceIfBlocked (v5.10 fix 673235f91531, case R16): only when the device is
	// blocked.
	DevResourceIfBlocked DevResourceRule = iota
	// DevResourceIfBusy (pre-v5.13 text, and v5.10-rc1 with the restarts counter):
	// whenever the LUN has commands in flight — the race of case R16 when those
	// complete without a recorded budget failure.
	DevResourceIfBusy
	// DevResourceIfOtherBudget (v5.13 budget-map text): another budget token of the
	// LUN is held, or the device is blocked.
	DevResourceIfOtherBudget
)

// MapQueuesRule selects blk_mq_map_queues' CPU → hctx spreading (block/blk-mq-cpumap.c).
type MapQueuesRule uint8

const (
	// MapGroupEvenly (v6.3+, group_cpus_evenly): CPUs split into nr_hw_queues
	// contiguous groups, the first (nr_cpus mod nr_queues) groups one CPU larger.
	MapGroupEvenly MapQueuesRule = iota
	// MapModulo (before v6.3, no SMT siblings): cpu → cpu mod nr_hw_queues.
	MapModulo
)

// DeadlineAsyncRule selects mq-deadline's limit on the sched-tag depth of writes and
// asynchronous I/O (block/mq-deadline.c dd_limit_depth / dd_depth_updated, §6.4).
type DeadlineAsyncRule uint8

const (
	// DeadlineAsyncScaled (v6.10+): async_depth defaults to nr_requests, scaled per
	// word; min_shallow_depth 1.
	DeadlineAsyncScaled DeadlineAsyncRule = iota
	// DeadlineAsyncRawPerWord (v5.14–v6.9, Bart Van Assche): 3/4 of nr_requests passed
	// raw as a per-word shallow depth; min_shallow_depth set to it.
	DeadlineAsyncRawPerWord
	// DeadlineAsyncNone (≤ v5.13): no limit.
	DeadlineAsyncNone
	// DeadlineAsyncWordShift (v6.6–v6.7 and stable 6.1.53–6.1.83: Zhiguo Niu
	// d47f9717e5cf, "block/mq-deadline: use correct way to throttling write
	// requests", reverted by Bart Van Assche 256aab46e316): async_depth =
	// max(1, 3·2^shift/4) from the sched tags' word width instead of nr_requests,
	// passed raw as the per-word shallow depth; min_shallow_depth set to it.
	DeadlineAsyncWordShift
)

// Options are the era switches of the dispatch layer. The zero value is the current
// kernel. Kernel returns the switches of a given release.
type Options struct {
	// SCSIRestart: see RestartRule (scsi_lib.c scsi_run_queue_async).
	SCSIRestart RestartRule
	// SwQueueDequeue: see SwQueueDequeue (blk-mq-sched.c).
	SwQueueDequeue SwQueueDequeue
	// DefaultElevator: see ElevatorRule (elevator.c elevator_get_default).
	DefaultElevator ElevatorRule
	// DevResource: see DevResourceRule (scsi_lib.c scsi_queue_rq, case R16).
	DevResource DevResourceRule
	// MapQueues: see MapQueuesRule (blk-mq-cpumap.c).
	MapQueues MapQueuesRule
	// NoBudgetRerun, when true, models kernels before Douglas Anderson's v5.8
	// "blk-mq: Rerun dispatching in the case of budget contention" (case R15): a budget
	// taken and put back without dispatch schedules no delayed re-run.
	NoBudgetRerun bool
	// NoSchedBatch, when true, models v4.15–v5.9 elevator dequeue: one request per
	// budget and dispatch (blk_mq_do_dispatch_sched without Ming Lei's v5.10 batching).
	NoSchedBatch bool
	// RunAllHctxsWithSQSched, when true, models kernels before v5.12 (Jan Kara
	// b6e68ee82585): blk_mq_run_hw_queues runs every hctx even with a single-queue
	// elevator (mq-deadline), instead of the local hctx plus those with a non-empty
	// dispatch list.
	RunAllHctxsWithSQSched bool
	// NoTagWaitBarrier, when true, models the lost-wakeup race of case R07
	// (CVE-2024-26671, fixed in v6.8 by 5266caaf5660): the hctx's dispatch-wait hook is
	// registered after the retry of the driver tag allocation has already failed, so a
	// tag freed between the failed attempt and the registration wakes nobody.
	NoTagWaitBarrier bool
	// DeviceBusyCounter models v4.15–v5.12: the LUN budget is an atomic device_busy
	// counter instead of the v5.13+ budget map (budget.Options.DeviceBusyCounter).
	DeviceBusyCounter bool
	// HostBusyCheck models kernels before v5.5 (6eb045e092ef): scsi_host_queue_ready
	// refuses when host_busy >= can_queue (budget.Options.HostBusyCheck).
	HostBusyCheck bool
	// BudgetMapSkip models the 2025 proposal of seed 003 (budget.Options.BudgetMapSkip);
	// off in every Kernel era since it is not merged as far as known.
	BudgetMapSkip bool
	// NoWakeBatchRecalc models kernels before v5.17 (180dccb0dba4): the tag bitmap's
	// wake batch is not recalculated when the number of active queues changes
	// (tagset.Options.NoWakeBatchRecalc, case R03).
	NoWakeBatchRecalc bool
	// NoMigrationWakeup models kernels before v4.18: a tag waiter that wakes on
	// another hctx does not pass a wake-up back to the bitmap it left
	// (tagset.Options.NoMigrationWakeup, case R02).
	NoMigrationWakeup bool
	// DeadlineAsyncDepth: see DeadlineAsyncRule.
	DeadlineAsyncDepth DeadlineAsyncRule
	// DeadlineMinShallowAsyncDepth, under DeadlineAsyncScaled only, sets the sched
	// tags' min_shallow_depth to async_depth (nr_requests) instead of 39823b47bbd4's 1,
	// as Yu Kuai's follow-up to that commit on linux-block (Dec 2024, "fix
	// min_shallow_depth for deadline") proposes: the wake batch is then computed
	// from the depth (8 for 64 sched tags) instead of 1, so a reader asleep on a
	// scheduler tag is woken once per 8 freed tags. Basis: assumed — whether a fix
	// of this kind is in a kernel is not known; off in every Kernel era. Not the
	// rule of 6.1.192: its debugfs sched_tags report wake_batch=1 and
	// min_shallow_depth=1 under mq-deadline with nr_requests 64 (round 11,
	// testdata/kernel/hosts/2026-12-03-eve, fam-2q-ph-dl-aio-pin facts), as the
	// default models.
	DeadlineMinShallowAsyncDepth bool
	// MaxPlugRequests is BLK_MAX_REQUEST_COUNT: a plug holding this many requests is
	// flushed before another is added (32 since v5.16, 16 before). 0 means 32.
	MaxPlugRequests int
	// PlugFlushInsert models kernels before v4.19 (Jianchao Wang, "blk-mq: issue
	// directly if hw queues isn't busy in case of 'none'"): a plug flush without an
	// elevator inserts its requests into their software queues and runs the hctx
	// (blk_mq_sched_insert_requests → blk_mq_insert_requests) instead of issuing them
	// directly, so they stay mergeable until the dispatch run takes them.
	PlugFlushInsert bool
	// Pre415: the v4.11–v4.14 dispatch switches (era_pre415.go, KernelPre415).
	Pre415 Pre415Options
	// DeadlineMoveClearsNextRq models mq-deadline before v5.14 ("block/mq-deadline:
	// Micro-optimize the batching algorithm", Bart Van Assche, June 2021): every
	// dispatched request's deadline_move_request cleared next_rq of both data
	// directions before setting its own, so a batch in the other direction started
	// again from that direction's FIFO head. false (v5.14+, 6.1): only the
	// dispatched direction's next_rq is updated and the other keeps its sort-order
	// position, so a new batch continues the direction's sweep from where its last
	// batch stopped unless its FIFO head has expired.
	DeadlineMoveClearsNextRq bool
	// PerHctxSchedTagsWithHostTags models host-wide tags before v5.14 (d97e594c5166,
	// "blk-mq: Use request queue-wide tags for tagset-wide sbitmap"): with an elevator
	// every hctx keeps its own nr_requests scheduler tags in front of the one driver-tag
	// bitmap (tagset.Options.PerHctxSchedTagsWithHostTags).
	PerHctxSchedTagsWithHostTags bool
	// AIOPlugAlways models kernels before v5.1 (Jens Axboe, "aio: only use blk plugs
	// for > 2 depth submissions", which added AIO_PLUG_THRESHOLD = 2 to fs/aio.c
	// io_submit): every io_submit call, even of a single iocb, runs under a blk_plug,
	// so its requests are issued by the plug flush when the syscall returns
	// (blk_finish_plug) instead of by blk_mq_submit_bio's unplugged path. From v5.1 on
	// (false) only a batch of more than two iocbs is plugged. The dispatch layer does
	// not read it: the submitter (package stack, libaio engine) does.
	AIOPlugAlways bool
	// NoBlkdevWriteIterPlug models kernels before v5.16 as the model did before round
	// 9: no plug around a write to a block device file. Every release holds one
	// (block/fops.c, fs/block_dev.c before v5.15: blkdev_write_iter's
	// blk_start_plug/blk_finish_plug), but its effect is that of the plug flush of the
	// era, and the model's flush is the v5.16+ one (dc5fc361d891, "block: attempt
	// direct issue of plug list": blk_mq_plug_issue_direct, a refused request to
	// hctx->dispatch). Before v5.16 blk_mq_submit_bio plugged a multi-queue
	// non-rotational device's request only one at a time and the flush went through
	// blk_mq_sched_insert_requests, which inserts into the software queue instead when
	// the hctx is dispatch_busy; neither is modelled, so those eras keep the unplugged
	// path (blk_mq_try_issue_directly: a request that finds no budget waits in the
	// software queue). The dispatch layer does not read it: the submitter (package
	// stack) does, with stack.SubmitTiming.NoBlkdevWriteIterPlug.
	NoBlkdevWriteIterPlug bool
	// RestartSharedTags models v4.12–v4.18: Bart Van Assche's 6d8c6c0f97ad ("blk-mq:
	// Restart a single queue if tag sets are shared", v4.12) made blk_mq_sched_restart
	// walk every queue sharing the tag set; Ming Lei's 358a3a6bccb7 ("blk-mq: don't
	// handle TAG_SHARED in restart": +20–30 % IOPS on 8 scsi_debug LUNs, and "RESTART
	// causes half of IOPS be cut" with many LUNs in Roman Pen's test) was reverted, and
	// the walk went with 97889f9ac24f ("blk-mq: remove synchronize_rcu() from
	// blk_mq_del_queue_tag_set()", v4.19). While the tag set is shared between queues,
	// a freed request restarts, round robin, the first hctx with SCHED_RESTART and the
	// same driver tags of another queue (else of its own queue, starting after its own
	// hctx); when no hctx of its own queue is marked it restarts nothing. Each hctx
	// looked at costs a load of its state line (restart_shared.go).
	RestartSharedTags bool
	// NoPlugRequestCache models kernels before v5.16 (Jens Axboe 47c122e35d7e, "block:
	// pre-allocate requests if plug is started and is a batch", with "sbitmap: add
	// __sbitmap_queue_get_batch()" and io_uring's "inform block layer of how many
	// requests we are submitting"): a plugged submission allocates one tag per bio.
	// From v5.16 on (false) the first request allocated under a plug started for
	// nr_ios > 1 I/Os (io_uring's submission of that many SQEs; libaio and iomap
	// start theirs for one) takes up to nr_ios tags from one bitmap word at once
	// (blk_mq_get_tags), keeps the spare requests on the plug (plug->cached_rq) for
	// the following bios, and frees the unused ones when the plug is finished or
	// flushed because its task sleeps (dispatch/batchalloc.go).
	NoPlugRequestCache bool
	// NoFairSharing: the 2023 UFS proposal without hctx_may_queue's fair share
	// (tagset.Options.NoFairSharing); false is the current kernel.
	NoFairSharing bool
	// NoKblockdWakeupPreempt, when true, leaves out the CFS wake-up preemption of a
	// submitting task by the kblockd worker its unplugged submission wakes
	// (check_preempt_wakeup; kblockd is WQ_HIGHPRI, its workers nice -20; in every
	// supported release, so false in every Kernel era): when the woken worker's
	// vruntime is more than KblockdPreemptGranularity behind the submitter's (by
	// default always, NoPlaceEntityCredit gives the rounds 6-8 rule), the worker runs
	// the submission's hctx run before the task continues (Hctx.runInsertAsync), one
	// run per submission, instead of waiting for the CPU and taking several
	// submissions in one run. True is the model before round 6.
	NoKblockdWakeupPreempt bool
	// NoPlaceEntityCredit, when true, measures the woken kblockd worker's vruntime
	// lead over the submitter as the CPU time run on its CPU since the worker last
	// ran (the rule of rounds 6-8), leaving out the credit 6.1's place_entity gives
	// a waking entity (kernel/sched/fair.c: vruntime = max(its own, min_vruntime -
	// sysctl_sched_latency / 2) with GENTLE_FAIR_SLEEPERS). By default (false, from
	// round 9) the worker's lag behind min_vruntime is carried from run to run: it
	// grows by the nice-0 time run on the CPU, is capped at that credit at each
	// wake-up and shrinks by the worker's own run time × 1024 / 88761 (its nice -20
	// weight), so the worker preempts the submitter at every wake-up
	// (KblockdPlaceCredit, Hctx.runInsertAsync). Only with NoKblockdWakeupPreempt
	// false. Both rules are the same in every Kernel era (CFS from 2.6.32 to 6.5;
	// 6.6's EEVDF placement is not modelled).
	NoPlaceEntityCredit bool
}

// Kernel returns the Options of a kernel release: mainline "MAJOR.MINOR" (e.g.
// "5.17", "6.1"), or a stable or uname -r form ("6.1.192", "6.1.0-57-amd64"), which
// is the mainline release plus the backports its line carries (KernelProfile, the
// table in Profile's documentation). Releases are accepted from "4.15" (the first
// with a SCSI budget callback) to "6.19"; other versions return an error naming the
// allowed range.
func Kernel(version string) (Options, error) {
	if o, ok, err := stableKernel(version); ok {
		return o, err
	}
	return mainlineKernel(version)
}

// mainlineKernel returns the Options of mainline release "MAJOR.MINOR".
func mainlineKernel(version string) (Options, error) {
	maj, min, err := parseVersion(version)
	if err != nil {
		return Options{}, err
	}
	v := maj*100 + min
	if v < 415 || v > 619 {
		return Options{}, fmt.Errorf("dispatch: kernel version %q out of range [4.15, 6.19]", version)
	}
	var o Options
	if v < 510 {
		o.SCSIRestart = RestartEveryCompletion
		o.NoSchedBatch = true
	}
	if v < 419 {
		o.SwQueueDequeue = DequeueOneByOne
		o.PlugFlushInsert = true
	}
	if v < 516 {
		o.MaxPlugRequests = 16
		o.NoPlugRequestCache = true
		o.NoBlkdevWriteIterPlug = true
	}
	if v < 513 {
		o.DefaultElevator = ElevatorSingleQueue
	}
	if v < 508 {
		o.NoBudgetRerun = true
	}
	if v < 513 {
		o.DeviceBusyCounter = true
	}
	if v < 505 {
		o.HostBusyCheck = true
	}
	if v < 512 {
		o.RunAllHctxsWithSQSched = true
	}
	if v < 603 {
		o.MapQueues = MapModulo
	}
	if v < 517 {
		o.NoWakeBatchRecalc = true
	}
	if v < 418 {
		o.NoMigrationWakeup = true
	}
	if v < 419 {
		o.RestartSharedTags = true
	}
	if v < 514 {
		o.PerHctxSchedTagsWithHostTags = true
		o.DeadlineMoveClearsNextRq = true
	}
	if v < 501 {
		o.AIOPlugAlways = true
	}
	switch {
	case v < 514:
		o.DeadlineAsyncDepth = DeadlineAsyncNone
	case v == 606 || v == 607:
		o.DeadlineAsyncDepth = DeadlineAsyncWordShift
	case v < 610:
		o.DeadlineAsyncDepth = DeadlineAsyncRawPerWord
	}
	if v < 608 {
		o.NoTagWaitBarrier = true
	}
	return o, nil
}

func parseVersion(s string) (maj, min int, err error) {
	a, b, ok := strings.Cut(s, ".")
	if ok {
		maj, err = strconv.Atoi(a)
		if err == nil {
			min, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || maj < 0 || min < 0 {
		return 0, 0, fmt.Errorf("dispatch: kernel version %q: want MAJOR.MINOR, e.g. \"5.17\"", s)
	}
	return maj, min, nil
}

func (o Options) maxPlugRequests() int {
	if o.MaxPlugRequests <= 0 {
		return 32
	}
	return o.MaxPlugRequests
}
