package dispatch

import (
	"errors"
	"fmt"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// Timing holds the latencies of kernel mechanisms that are not modelled step by step.
// Each is drawn uniformly from [Min, Max] with the host's seeded PCG. The zero value of
// a field means the default given in its comment.
type Timing struct {
	// KblockdMin/KblockdMax bound the delay (ns) between queueing an asynchronous hctx
	// run (kblockd_mod_delayed_work_on with delay 0) and the run. Default 5–30 µs.
	// Assumption: a workqueue kworker wake-up on an otherwise idle CPU; not from a source.
	KblockdMin, KblockdMax sim.Time
	// WakeupMin/WakeupMax bound the delay (ns) between waking a sleeping task (a tag
	// waiter) and the task running again. Default 5–30 µs (same assumption).
	WakeupMin, WakeupMax sim.Time
	// ResourceDelay is BLK_MQ_RESOURCE_DELAY = BLK_MQ_BUDGET_DELAY = SCSI_QUEUE_DELAY,
	// 3 ms (block/blk-mq.h, drivers/scsi/scsi_lib.c). Default 3 ms.
	ResourceDelay sim.Time
	// KblockdTTWU selects how a kblockd run queued with delay 0 reaches its kworker,
	// which decides which hctx's run wins a budget token a completion frees. false
	// (default): every run is due KblockdMin..KblockdMax after the queueing point,
	// whichever CPU's worker runs it. true: the wake-up follows 6.1's try_to_wake_up
	// (kernel/workqueue.c __queue_work → insert_work → wake_up_worker;
	// kernel/sched/core.c try_to_wake_up → ttwu_queue → ttwu_queue_wakelist):
	//   - a worker on the queueing CPU is activated by the waker itself
	//     (ttwu_queue_cond is false for the running CPU) and runs at that CPU's next
	//     schedule point, when it leaves the interrupt or path that queued it: it is
	//     due at the queueing point and waits for the CPU's charged work, every
	//     wake-up the same blk_mq_run_hw_queues call sends after it included;
	//   - a worker on another CPU needs an IPI. The IPI leaves the waker once the
	//     waker's CPU has done its work up to and including this wake-up
	//     (CPUCosts.Wakeup each, charged on the waker; so in one blk_mq_run_hw_queues
	//     call the hctxs' wake-ups leave in hctx order). An idle target (no CPU work
	//     charged) is woken through its wake list (ttwu_queue_cond:
	//     !cpu_rq(cpu)->nr_running, v6.0+; send_call_function_single_ipi, as a
	//     HLT-idle CPU does not poll): the IPI is delivered and the CPU leaves idle
	//     after a latency drawn from KblockdMin..KblockdMax, then the target handles
	//     the interrupt and activates the worker (CPUCosts.IPI + CPUCosts.Wakeup). A
	//     busy target was activated by the waker (resched_curr's IPI): the interrupt
	//     (CPUCosts.IPI) lengthens the target's work and the worker runs at its end.
	//     The target's share is charged on the target when the run starts.
	//   - a run queued while the target's kblockd worker is running a work item (its
	//     kblockd run's charged work not yet done) is taken by that worker when the
	//     item ends: insert_work calls wake_up_worker only if !pool->nr_running
	//     (__need_more_worker), and worker_thread's loop takes the next work while
	//     keep_working(pool), so there is no wake-up, IPI, activation or context
	//     switch (kernel/workqueue.c, Host.kworkerRunning).
	//   - a task sleeping for a tag (blk_mq_get_tag's io_schedule) is woken by the
	//     same try_to_wake_up: on the CPU it slept on, due by the same rule instead of
	//     WakeupMin..WakeupMax after the wake-up (the target's share is not charged).
	// The CPU costs are guest instructions and take the emulation slowdown
	// (CPUCosts.Emulated); the delivery and idle exit do not: under QEMU TCG a
	// cross-vCPU kick wakes the halted vCPU's host thread (qemu_cpu_kick), host
	// time. The sender's APIC write is an exit to QEMU's APIC model, host time too,
	// so the waker is charged no IPI beyond its Wakeup. Assumed: the delivery range
	// is the kblockd latency's (5–30 µs), not a measurement (KVM's halt-polling
	// documentation puts a host scheduler trip "on the order of a few
	// micro-seconds"). The 5.17 ttwu_queue_cond has no idle rule (the waker activates
	// an idle target too): the model charges the activation on a 5.17 target as on
	// 6.1's, a native difference of one Wakeup. Off by default: against the oracle's
	// real-kernel family it reproduces the pinned WAL's hand-off but starves the
	// WAL with host-wide tags (000-small-none) and splits 4-hctx readers by hctx
	// order.
	KblockdTTWU bool
	// IRQPreempt makes the simulated CPUs preemptive for interrupts and for kblockd's
	// workers, as 6.1 schedules them (Debian's PREEMPT_DYNAMIC kernel boots in
	// voluntary mode, the mode of the oracle's guest, whose command line sets no
	// preempt=). false (default): every CPU runs its work first come, first served:
	// a completion, a kblockd run or a woken task waits for all the work charged to
	// its CPU before it. true:
	//   - a completion (the driver's interrupt, blk_mq_complete_request and its IPI
	//     to the submitting CPU, the softirq's blk_mq_end_request with its tag and
	//     budget puts, wake-ups and kblockd queueing: kernel/softirq.c irq_exit_rcu
	//     runs the softirq before the interrupted context resumes) runs at once in
	//     interrupt context (sim.CPU.Interrupt): it waits only for earlier interrupt
	//     work on its CPU, and the task work it interrupts finishes later by its
	//     cost. The kblockd runs and wake-ups it queues leave at the interrupt's own
	//     pace (the queueing point is the interrupt's progress, not the end of the
	//     CPU's work);
	//   - a woken kblockd worker (kblockd is WQ_HIGHPRI: its pool's workers are
	//     nice -20, kernel/workqueue.c create_worker / HIGHPRI_NICE_LEVEL) that
	//     waits for its CPU runs before the next submission step of a nice-0 fio
	//     thread there. kernel/sched/fair.c check_preempt_wakeup preempts when
	//     wakeup_preempt_entity finds the running task's vruntime ahead of the
	//     wakee's by more than wakeup_gran(wakee) = sysctl_sched_wakeup_granularity
	//     (1 ms × (1 + ilog2(min(ncpus, 8)))) scaled by NICE_0_LOAD / the wakee's
	//     weight (1024 / 88761 for nice -20: 23-35 µs of vruntime on 2-8 CPUs).
	//     place_entity gives the wakee max(its vruntime, min_vruntime -
	//     sched_latency / 2), and a nice -20 worker's vruntime grows 87 times
	//     slower than a nice-0 thread's, so the woken worker is at or behind
	//     min_vruntime and preempts once the running thread is those few µs past
	//     it: in practice always. Under voluntary preemption it takes the CPU at
	//     the thread's next preemption point; the model takes the end of the thread's current
	//     submission step (one bio through blk_mq_submit_bio) as that point, where
	//     the kernel's is the return of the system call or the thread's sleep
	//     (a batch of several iocbs in one io_submit is one step per bio here: an
	//     approximation towards full preemption);
	//   - a woken fio thread (the reaper after io_getevents / io_uring_enter, a tag
	//     sleeper in blk_mq_get_tag) goes through the same rules: it runs when the
	//     interrupt that woke it returns (irq_exit, then the return path's
	//     schedule), no earlier than the end of the work charged to its CPU then:
	//     the whole interrupt and the task work it preempted (Host.wakeTask for the
	//     tag sleeper, after its wake-up latency or KblockdTTWU's due time; the
	//     reaper waits for its CPU after its context switch, as by default, when
	//     CPUCosts.Switch is non-zero). It does not preempt a running kworker item
	//     (a nice-0 wakee's wakeup_gran is 2-4 ms against runs of a few µs to tens
	//     of µs, and under voluntary preemption the item is not preempted anyway:
	//     process_one_work's cond_resched comes after it), and its next submission
	//     step waits for a woken kworker as the submitter's does.
	// fio's default iodepth_batch_submit of 1 makes every submission step one
	// io_submit / io_uring_enter, so there the step's end is the system call's
	// return, voluntary preemption's point. No new cost or latency: the interrupt
	// is the existing completion costs. Off by default: README gives its counts
	// against the oracle's reference set and their sensitivity. Interrupt work
	// serialises on its CPU's interrupt queue: a completion whose CPU is still in an
	// earlier interrupt waits for it (Queue.completeIRQ), and one sent by IPI for the
	// sending interrupt's end. A bio submitted from inside a completion (a Bio.End
	// callback that resubmits at once; fio resubmits from its task, after the reap)
	// is the task's work, not the interrupt's: it runs when the interrupt returns and
	// the task has its CPU, and SubmitBio returns Deferred (Host.deferSubmit). So no
	// CPU finishes work before the time charged ahead of it in its own context.
	IRQPreempt bool
	// NoProcessOneWork turns off the order of a kblockd run after its worker's
	// arrival. By default (false, from round 7) a run is ordered as
	// kernel/workqueue.c runs a work item: the queued work keeps its PENDING bit
	// while the woken worker is activated and switched in, and process_one_work
	// clears it (set_work_pool_and_clear_pending) just before it calls the work
	// function (blk_mq_run_work_fn). true (the model before round 7): when a run is
	// due and its CPU free, its dispatch (the budget and tag gets, queue_rq) happens at once and
	// the worker's two context switches (CPUCosts.Switch) and, under
	// KblockdTTWU, its IPI receive are charged after it, so the run takes a freed
	// budget token before the CPU time that precedes it in the kernel has passed,
	// and a run queued meanwhile is a second run. true: the receive and the
	// switch to the worker are charged first and the dispatch happens when they
	// end; until then the work is still pending and a run queued for it
	// (mod_delayed_work_on with delay 0: try_to_grab_pending re-queues the pending
	// item where the arriving worker finds it) is absorbed by it; the switch away
	// is charged after the dispatch. A 3 ms delayed run armed meanwhile turns the
	// work back into a timer (the worker finds nothing; its switch away is not
	// charged). A worker already running another item (KblockdTTWU's chained
	// runs) has no switch. No new cost: CPUCosts.Switch is 0 natively, so the
	// rule changes nothing there, and only the emulated guest (the oracle's
	// TCG slowdown) sees it. It does not change the inline run of a kblockd worker
	// preempting the submitter (NoKblockdWakeupPreempt's rule, mq-deadline),
	// whose dispatch still comes before its switches. On by default since the
	// guest's per-hctx run counters on two hold-outs (hold-pow-*-qd8) were the
	// rule's predictions; README gives its counts against the oracle's reference set.
	NoProcessOneWork bool
	// GetTagIOScheduleReturn times a tag sleeper's retry by when blk_mq_get_tag's
	// io_schedule() returns (block/blk-mq-tag.c, 6.1): try_to_wake_up only makes the
	// woken task runnable on a run queue (kernel/sched/core.c ttwu_do_activate), and
	// the task's loop (blk_mq_run_hw_queue, then __blk_mq_get_tag) runs once the
	// scheduler picks it, after the work already charged to that CPU: earlier woken
	// tasks of the same wake-up batch (__sbitmap_queue_wake_up wakes up to wake_batch
	// at once), a running fio thread's submission. Meanwhile a running task's
	// __blk_mq_get_tag (an io_uring NOWAIT inline submission, an io-wq worker on to
	// its next item) can take the freed tag, and the woken task that then finds none
	// re-queues at the tail of a wait queue (sbitmap_prepare_to_wait →
	// prepare_to_wait_exclusive). false (default, the model before round 9): the
	// retry happens WakeupMin..WakeupMax after the wake-up (or at KblockdTTWU's due
	// time) whatever its CPU is doing, so a woken sleeper almost always wins the tag
	// it was woken for. true: no earlier than the end of the work charged by then to
	// the CPU the task is placed on (WakeRunCPU; the CPU it slept on otherwise).
	// IRQPreempt already includes this rule. It is an upper bound of the run-queue
	// wait: the model's CPUs do not model check_preempt_wakeup, by which a woken task
	// with little vruntime preempts a running one. Off by default: README gives its
	// counts against the oracle's reference set.
	GetTagIOScheduleReturn bool
	// GetTagRunQueueWait: a woken tag sleeper waits in its CPU's run queue until the
	// CPU has no charged work left when its retry falls due, checked again each time
	// that work ends, so the tasks of one wake-up batch (__sbitmap_queue_wake_up wakes
	// up to wake_batch at once) run one after the other on a shared CPU, each behind
	// the work the ones before it charged, and behind a task that keeps running (an
	// io-wq worker going on to its next item, unless stack.SubmitTiming.IOWQWorkerYields):
	// kernel/sched/core.c ttwu_do_activate only enqueues the woken task, and
	// blk_mq_get_tag's retry (block/blk-mq-tag.c, after io_schedule) runs when
	// __schedule picks it. GetTagIOScheduleReturn instead fixes the retry at the end
	// of the work charged by the instant of the wake-up, so a whole batch retries at
	// once. Off by default: an opt-in rule for measuring (it has no
	// check_preempt_wakeup either).
	GetTagRunQueueWait bool
	// RunHwQueuesSerialWake times the kblockd runs one asynchronous blk_mq_run_hw_queues
	// call queues (the freed-budget re-run of scsi_run_queue_async, a completion's
	// restart) by the point the calling CPU reaches each queueing, not by the call's
	// start. block/blk-mq.c (6.1) blk_mq_run_hw_queues walks the hctxs in index order
	// (queue_for_each_hw_ctx) and, for each with pending work, blk_mq_run_hw_queue →
	// __blk_mq_delay_run_hw_queue(async) → kblockd_mod_delayed_work_on(
	// blk_mq_hctx_next_cpu(hctx)) → __queue_work → wake_up_worker → try_to_wake_up,
	// whose IPI (or wake-list kick) leaves only when that try_to_wake_up has run: the
	// kworker of the k-th hctx queued cannot be woken before the waker has paid the
	// k-1 wake-ups before it. So the run of the k-th queued hctx is due
	// (k-1) × CPUCosts.Wakeup (the cost each queueing already charges; emulated, it
	// takes the TCG slowdown) later than the first's, plus its own KblockdMin..KblockdMax
	// latency, drawn as before. No new parameter. It keeps the default rule's
	// independence of the latencies (no local-first hand-off: the completing CPU's
	// worker is not favoured, unlike KblockdTTWU). Only the default rule (KblockdTTWU
	// unset) reads it; KblockdTTWU already sends its IPIs in loop order.
	RunHwQueuesSerialWake bool
}

// DefaultTiming returns the Timing the zero value stands for (each field's default).
func DefaultTiming() Timing { return Timing{}.withDefaults() }

func (t Timing) withDefaults() Timing {
	if t.KblockdMax == 0 {
		t.KblockdMin, t.KblockdMax = 5*sim.Microsecond, 30*sim.Microsecond
	}
	if t.WakeupMax == 0 {
		t.WakeupMin, t.WakeupMax = 5*sim.Microsecond, 30*sim.Microsecond
	}
	if t.ResourceDelay == 0 {
		t.ResourceDelay = 3 * sim.Millisecond
	}
	return t
}

// HostConfig describes a blk_mq_tag_set and the CPUs it serves (block/blk-mq.c
// blk_mq_alloc_tag_set): a SCSI host (drivers/scsi/scsi_lib.c scsi_mq_setup_tags), a
// null_blk tag set (drivers/block/null_blk/main.c null_init_tag_set), or an NVMe-like
// controller.
type HostConfig struct {
	// NrCPUs is the number of CPUs (software queues per request queue), [1, 4096].
	NrCPUs int
	// NrHwQueues is shost->nr_hw_queues, [1, 4096]; hctxs beyond NrCPUs get no CPU and
	// are never run (unmapped).
	NrHwQueues int
	// CanQueue is the tag-set queue_depth (set->queue_depth: shost->can_queue for
	// SCSI, hw_queue_depth for null_blk), [1, 10240].
	CanQueue int
	// HostTagset is BLK_MQ_F_TAG_HCTX_SHARED (shost->host_tagset, null_blk
	// shared_tag_bitmap; called hctx_share_tags in the 2022 storvsc RFC): one
	// blk_mq_tags for all hctxs. Flags with BlkMqFTagHctxShared does the same.
	HostTagset bool
	// Flags are the tag set's other BLK_MQ_F_* flags (BlkMqFBlocking,
	// BlkMqFNoSched, BlkMqFNoSchedByDefault; BlkMqFTagQueueShared is the core's).
	Flags TagSetFlags
	// Options are the kernel-era switches.
	Options Options
	// WakeScheme and RecalcEra select the sbitmap_queue era of every tag bitmap.
	WakeScheme sbitmap.WakeScheme
	RecalcEra  sbitmap.RecalcEra
	// Timing: see Timing.
	Timing Timing
	// Seed seeds the PCG used for Timing draws.
	Seed uint64
	// CPU is the CPU cost model (CPUModel): the zero value charges DefaultCPUCosts;
	// CPU.Off charges nothing.
	CPU CPUModel
}

// Validate returns an error naming the first field out of range.
func (c HostConfig) Validate() error {
	switch {
	case c.NrCPUs < 1 || c.NrCPUs > 4096:
		return fmt.Errorf("dispatch: nr_cpus %d out of range [1, 4096]", c.NrCPUs)
	case c.NrHwQueues < 1 || c.NrHwQueues > 4096:
		return fmt.Errorf("dispatch: nr_hw_queues %d out of range [1, 4096]", c.NrHwQueues)
	case c.CanQueue < 1 || c.CanQueue > 10240:
		return fmt.Errorf("dispatch: can_queue %d out of range [1, 10240]", c.CanQueue)
	}
	if err := c.Timing.validate(); err != nil {
		return err
	}
	return c.CPU.validate()
}

// validate names the first Timing field out of range and its range: each Min in
// [0, its Max], each Max >= 0 (0 = the default pair), ResourceDelay >= 0 (0 = 3 ms).
func (t Timing) validate() error {
	for _, p := range []struct {
		name     string
		min, max sim.Time
	}{{"Kblockd", t.KblockdMin, t.KblockdMax}, {"Wakeup", t.WakeupMin, t.WakeupMax}} {
		if p.max < 0 {
			return fmt.Errorf("dispatch: Timing.%sMax %v out of range [0 (= default), %v]", p.name, p.max, sim.MaxTime)
		}
		if p.max == 0 && p.min > 0 {
			return fmt.Errorf("dispatch: Timing.%sMin %v set without Timing.%sMax: a Max of 0 selects the default pair 5µs–30µs, Min included; set both", p.name, p.min, p.name)
		}
		if p.min < 0 || p.min > p.max {
			return fmt.Errorf("dispatch: Timing.%sMin %v out of range [0, %v (Timing.%sMax)]", p.name, p.min, p.max, p.name)
		}
	}
	if t.ResourceDelay < 0 {
		return fmt.Errorf("dispatch: Timing.ResourceDelay %v out of range [0 (= 3ms), %v]", t.ResourceDelay, sim.MaxTime)
	}
	return nil
}

// Host is a tag set (struct blk_mq_tag_set) with the simulated CPUs it runs on:
// driver tags (per hctx, or one shared object with host-wide tags) and the request
// queues that use them. The driver behind each queue (Ops) holds the driver's own
// state (a SCSI host's admission counters, for example).
type Host struct {
	eng    *sim.Engine
	cfg    HostConfig
	opts   Options
	timing Timing
	rnd    *sim.Rand
	ts     *tagset.TagSet // blk_mq_tag_set: driver tags, sharing, fair share
	queues []*Queue

	cpu cpuState // simulated CPUs and shared cache lines (CPUModel)

	// kblockdFrom is the point every kblockd run queued by the asynchronous
	// blk_mq_run_hw_queues call in progress is queued from (set while
	// kblockdFromSet; Queue.runHwQueues).
	kblockdFrom    sim.Time
	kblockdFromSet bool
	// kblockdLoopWakes is the wake-up CPU time the blk_mq_run_hw_queues call in
	// progress has charged so far (Timing.RunHwQueuesSerialWake)
	kblockdLoopWakes sim.Time
	// kwRunEnd is, per CPU, when the kblockd work item its worker last started ends
	// (Timing.KblockdTTWU; kworkerRunning)
	kwRunEnd []sim.Time
	// kwInRun is 1 + the CPU whose kblockd worker's run is in progress, 0 for none
	kwInRun int
	// kwWait is, per CPU, the kblockd run works whose worker is woken and waits for
	// the CPU's current work (Timing.IRQPreempt; Host.KworkerWaiting)
	kwWait [][]*runWork
	// irqWakes are the tasks an interrupt in progress woke (Timing.IRQPreempt;
	// Host.wakeTask), released when it returns
	irqWakes []irqWake
	kw       kworkers // kblockd workers as tasks, for the scheduler's idle test
	// pendingHooks counts the hctxs of every queue whose R07 bad-era wait-hook
	// registration is not yet visible (tagops.go: landOwnHooks skips its walk at 0)
	pendingHooks int

	// kbPreempt is the kblockd wake-up preemption's state (kblockdpreempt.go)
	kbPreempt kblockdPreempt
}

// NewHost builds a host on eng. It returns Validate's error, or an sbitmap error.
func NewHost(eng *sim.Engine, cfg HostConfig) (*Host, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Flags&BlkMqFTagHctxShared != 0 {
		cfg.HostTagset = true
	}
	cfg.Flags &^= BlkMqFTagQueueShared
	if cfg.HostTagset {
		cfg.Flags |= BlkMqFTagHctxShared
	}
	h := &Host{eng: eng, cfg: cfg, opts: cfg.Options, timing: cfg.Timing.withDefaults(), rnd: sim.NewRand(cfg.Seed),
		cpu: newCPUState(cfg.CPU, cfg.NrCPUs)}
	var err error
	if h.ts, err = tagset.New(tagset.Config{NrHwQueues: cfg.NrHwQueues, QueueDepth: cfg.CanQueue,
		HostTagset: cfg.HostTagset, NrCPUs: cfg.NrCPUs, Seed: cfg.Seed, Queue: h.queueOptions(),
		Options: tagset.Options{NoWakeBatchRecalc: cfg.Options.NoWakeBatchRecalc,
			NoMigrationWakeup:            cfg.Options.NoMigrationWakeup,
			PerHctxSchedTagsWithHostTags: cfg.Options.PerHctxSchedTagsWithHostTags,
			NoFairSharing:                cfg.Options.NoFairSharing}}); err != nil {
		return nil, fmt.Errorf("dispatch: %w", err)
	}
	return h, nil
}

func (h *Host) queueOptions() sbitmap.QueueOptions {
	return sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{
		WakeScheme: h.cfg.WakeScheme, RecalcEra: h.cfg.RecalcEra}}}
}

// Engine returns the engine the host runs on.
func (h *Host) Engine() *sim.Engine { return h.eng }

// Config returns the host's configuration.
func (h *Host) Config() HostConfig { return h.cfg }

// Queues returns the request queues (LUNs) added so far.
func (h *Host) Queues() []*Queue { return h.queues }

// Flags returns the tag set's BLK_MQ_F_* flags, with BlkMqFTagQueueShared once two
// request queues share it.
func (h *Host) Flags() TagSetFlags {
	f := h.cfg.Flags
	if h.ts.QueueShared() {
		f |= BlkMqFTagQueueShared
	}
	return f
}

// TagSet returns the host's tag set (driver tags, sharing state).
func (h *Host) TagSet() *tagset.TagSet { return h.ts }

// serialLoop reports whether an asynchronous blk_mq_run_hw_queues call is in
// progress under Timing.RunHwQueuesSerialWake (and the default kblockd rule).
func (h *Host) serialLoop() bool {
	return h.kblockdFromSet && h.timing.RunHwQueuesSerialWake && !h.timing.KblockdTTWU && h.cpu.on
}

func (h *Host) kblockdDelay() sim.Time {
	return h.rnd.Uniform(h.timing.KblockdMin, h.timing.KblockdMax)
}

// kblockdQueuedAt returns when a kblockd work queued now from cpu is queued: when cpu
// reaches the queueing step, after the CPU time already charged to it (the model
// charges a path's cost from its start: the steps before the queueing take that
// long), or the point of the blk_mq_run_hw_queues call in progress. Without CPU
// costs it is now.
func (h *Host) kblockdQueuedAt(cpu int) sim.Time {
	if h.kblockdFromSet {
		if h.serialLoop() {
			return h.kblockdFrom + h.kblockdLoopWakes
		}
		return h.kblockdFrom
	}
	return h.pathAt(cpu)
}

// kblockdDue returns when a kblockd run queued now from cpu on target's worker is due
// and, under Timing.KblockdTTWU, the CPU time recv the target spends receiving the
// wake-up, to charge there when the run starts (0 for the default rule, which draws
// the kblockd latency after kblockdQueuedAt whatever the target, and for a local
// worker). Call it before charging the wake-up's own cost on cpu.
func (h *Host) kblockdDue(cpu, target int) (due, recv sim.Time) {
	if !h.timing.KblockdTTWU {
		return h.kblockdQueuedAt(cpu) + h.kblockdDelay(), 0
	}
	if target == cpu {
		return h.kblockdQueuedAt(cpu), 0 // runWork.Fire waits for cpu's charged work
	}
	send := h.pathAt(cpu)
	if h.cpu.on {
		send += h.cpu.c.Wakeup // this wake-up, after the earlier ones
		recv = h.cpu.c.IPI
	}
	if b := h.busyUntil(target); b > send {
		// resched IPI to a busy CPU: the interrupt lengthens its work, the worker
		// runs at the end of it
		return b + recv, recv
	}
	if h.cpu.on {
		recv += h.cpu.c.Wakeup // sched_ttwu_pending activates the worker there
	}
	return send + h.kblockdDelay() + recv, recv
}

// kworkerRunning reports, under Timing.KblockdTTWU, whether target's kblockd worker
// is running a work item when a run is queued now from cpu on it, and when that item
// ends: the worker then takes the new work in its worker_thread loop (keep_working)
// and insert_work wakes no worker (__need_more_worker is false while
// pool->nr_running is non-zero), so no IPI is sent and no activation is charged.
// A run queued by the worker's own item (target == cpu while kworkerStart's run is in
// progress) is due at the queueing point: runWork.Fire then waits for the rest of the
// item's charged work.
func (h *Host) kworkerRunning(cpu, target int) (end sim.Time, ok bool) {
	if h.kwInRun == target+1 && target == cpu {
		return h.kblockdQueuedAt(cpu), true
	}
	if target >= len(h.kwRunEnd) {
		return 0, false
	}
	end = h.kwRunEnd[target]
	return end, end > h.kblockdQueuedAt(cpu)
}

// kworkerStart marks cpu's kblockd worker as running a work item (kworkerRunning)
// until kworkerRan.
func (h *Host) kworkerStart(cpu int) {
	if h.timing.KblockdTTWU && h.cpu.on {
		h.kwInRun = cpu + 1
	}
}

// kworkerRan records, under Timing.KblockdTTWU, that cpu's kblockd worker runs the
// item it has just run until the CPU's charged work ends (kworkerRunning).
func (h *Host) kworkerRan(cpu int) {
	if !h.timing.KblockdTTWU || !h.cpu.on {
		return
	}
	h.kwInRun = 0
	for len(h.kwRunEnd) <= cpu {
		h.kwRunEnd = append(h.kwRunEnd, 0)
	}
	h.kwRunEnd[cpu] = h.busyUntil(cpu)
}

// wokenTaskAt returns when a task woken now to run on cpu at t (after the wake-up
// latency) runs: t, or under Timing.IRQPreempt no earlier than the end of the work
// charged to cpu by now: the interrupt that woke it and the task work that interrupt
// preempted (the wakee runs when the interrupt returns, at the CPU's next schedule
// point; a nice-0 wakee does not preempt a running item of kblockd's nice -20
// worker).
func (h *Host) wokenTaskAt(cpu int, t sim.Time) sim.Time {
	if !h.timing.IRQPreempt {
		return t
	}
	return max(t, h.busyUntil(cpu))
}

// irqWake is a task woken from an interrupt: it runs on cpu at t at the earliest,
// after the interrupt.
type irqWake struct {
	cpu int
	t   sim.Time
	ev  sim.Handler
}

// wakeTask schedules ev, a task woken now to run on cpu at t (after its wake-up
// latency): at t, or under Timing.IRQPreempt no earlier than the end of the work
// charged to cpu when the interrupt that woke it returns (irqReturn), or by now
// when no interrupt is in progress.
func (h *Host) wakeTask(cpu int, t sim.Time, ev sim.Handler) {
	if h.timing.IRQPreempt && h.cpu.irq != 0 {
		h.irqWakes = append(h.irqWakes, irqWake{cpu, t, ev})
		return
	}
	h.eng.At(h.wokenTaskAt(cpu, t), ev)
}

// irqReturn releases the tasks the interrupt that returns woke (wakeTask).
func (h *Host) irqReturn() {
	for i, w := range h.irqWakes {
		h.eng.At(h.wokenTaskAt(w.cpu, w.t), w.ev)
		h.irqWakes[i] = irqWake{}
	}
	h.irqWakes = h.irqWakes[:0]
}

// ErrAgain is the error a REQ_NOWAIT bio ends with when its submission could not get
// a tag and the caller could not be told so by SubmitBio's result (a submission made
// from inside a completion under Timing.IRQPreempt, which returns Deferred):
// BLK_STS_AGAIN through bio_endio, as blk_mq_submit_bio reports it in the kernel
// (bio_wouldblock_error). The caller owns the bio again.
var ErrAgain = errors.New("dispatch: REQ_NOWAIT bio would block (BLK_STS_AGAIN)")

// taskSubmit is a bio submitted from inside an interrupt (Timing.IRQPreempt): the
// submitting task's own work, run when the interrupt returns and the task has its
// CPU (Host.deferSubmit).
type taskSubmit struct {
	q      *Queue
	b      *Bio
	cpu    int
	nowait bool
	tw     *TagWaiter
	plug   *Plug
}

// deferSubmit reports whether a bio submitted now must wait for task context, and
// if so schedules its submission there. Under Timing.IRQPreempt a submission made
// while an interrupt is in progress (a Bio.End callback that resubmits at once) is
// task work, not interrupt work: in 6.1 a completion does not issue new I/O from the
// interrupt. blk_mq_end_request → blk_update_request → bio_endio calls the bio's
// bi_end_io, which for fio's direct I/O (block/fops.c blkdev_bio_end_io_async →
// ki_complete) only posts the event (aio_complete, or io_uring's task work) and
// wakes the task; the task submits the next I/O from its system call (io_submit,
// io_uring_enter) after it runs again. So the submission runs on cpu when the
// interrupt returns, no earlier than the end of the work charged to cpu then (the
// woken-task rule, wakeTask; no wake-up latency is added: the caller's callback has
// its own), and again no earlier than the end of work charged to cpu by the time it
// is due.
func (h *Host) deferSubmit(q *Queue, b *Bio, cpu int, nowait bool, tw *TagWaiter, plug *Plug) bool {
	if !h.timing.IRQPreempt || h.cpu.irq == 0 || !h.cpu.on {
		return false
	}
	h.wakeTask(cpu, h.eng.Now(), &taskSubmit{q: q, b: b, cpu: cpu, nowait: nowait, tw: tw, plug: plug})
	return true
}

// Fire runs the deferred submission in task context once cpu has done the work
// charged to it (an interrupt that came meanwhile preempts the task first).
func (s *taskSubmit) Fire(now sim.Time) {
	h := s.q.host
	if t := h.busyUntil(s.cpu); t > now {
		h.eng.At(t, s)
		return
	}
	if s.q.SubmitBioPlug(s.b, s.cpu, s.nowait, s.tw, s.plug) == WouldBlock {
		s.b.End.EndBio(s.b, now, ErrAgain)
	}
}

// KworkerWaiting reports, under Timing.IRQPreempt, whether a woken kblockd worker is
// runnable on cpu and waits for the work the CPU is running: a task that is about to
// start its next step there (a fio thread's next submission) yields the CPU to it
// first (kernel/sched/fair.c check_preempt_wakeup; see Timing.IRQPreempt). Always
// false with the switch off, and for CPUs out of range.
func (h *Host) KworkerWaiting(cpu int) bool {
	return cpu >= 0 && cpu < len(h.kwWait) && len(h.kwWait[cpu]) > 0
}

// kwWaitAdd records that w's worker waits for cpu (runWork.Fire found it busy).
func (w *runWork) kwWaitAdd(cpu int) {
	h := w.h.q.host
	if !h.timing.IRQPreempt {
		return
	}
	w.kwWaitDone()
	for len(h.kwWait) <= cpu {
		h.kwWait = append(h.kwWait, nil)
	}
	h.kwWait[cpu] = append(h.kwWait[cpu], w)
	w.waitOn = cpu + 1
}

// kwWaitDone forgets w's wait for its CPU (it runs, or was re-armed).
func (w *runWork) kwWaitDone() {
	if w.waitOn == 0 {
		return
	}
	h := w.h.q.host
	l := h.kwWait[w.waitOn-1]
	for i, x := range l {
		if x == w {
			h.kwWait[w.waitOn-1] = append(l[:i], l[i+1:]...)
			break
		}
	}
	w.waitOn = 0
}

// KblockdDue returns when a kblockd work item queued now from cpu on target's
// kworker runs (ns, engine time), under the host's Timing (Timing.KblockdTTWU). A
// driver's own kblockd work (kblockd_schedule_work, queued on the running CPU) passes
// target = cpu.
func (h *Host) KblockdDue(cpu, target int) sim.Time {
	t, _ := h.kblockdDue(cpu, target)
	return t
}

func (h *Host) wakeupDelay() sim.Time {
	return h.rnd.Uniform(h.timing.WakeupMin, h.timing.WakeupMax)
}

// LUNConfig describes one request queue (a disk: a SCSI LUN, a null_blk device) and its
// driver.
type LUNConfig struct {
	// Ops is the driver behind the queue (struct blk_mq_ops); required. If it also
	// implements BudgetOps the queue has a dispatch budget.
	Ops Ops
	// NrRequests is /sys/block/X/queue/nr_requests; 0 = the kernel default
	// (tagset.DefaultNrRequests). With an elevator [1, 2048]; without, [1, CanQueue]
	// (driver tags only shrink).
	NrRequests int
	// Elevator is "" (the kernel default for this tag set, see ElevatorRule; none with
	// BlkMqFNoSched or BlkMqFNoSchedByDefault), "none" or "mq-deadline" (an error with
	// BlkMqFNoSched).
	Elevator string
	// MaxSectorsKB is max_sectors_kb: the largest merged request (KiB), [4, 32767];
	// 0 = 1280 (the default since v4.3).
	MaxSectorsKB int
	// Limits are the queue's other request-size limits (max_hw_sectors,
	// max_segments, block sizes; dispatch/split.go); Limits.MaxSectors, when set,
	// replaces MaxSectorsKB. The zero value limits requests by MaxSectorsKB only.
	Limits QueueLimits
	// NewElevator, when non-nil, attaches a custom scheduler built on the queue
	// (scheduler tags are allocated as for mq-deadline) and overrides Elevator.
	NewElevator func(q *Queue) Elevator
}
