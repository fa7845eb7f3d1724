package stack

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// Emulated returns the configuration of a guest whose CPU runs factor times slower
// than the native CPU the model's costs describe: EmulatedWith with the default
// EmulationOptions.
func (c Config) Emulated(factor float64) (Config, error) {
	return c.EmulatedWith(factor, EmulationOptions{})
}

// EmulationOptions are the choices of EmulatedWith.
type EmulationOptions struct {
	// WakeSplit charges the guest-instruction part of a task's sleep and wake-up as
	// CPU time instead of leaving it inside the wake-up latencies: its two context
	// switches (dispatch.CPUCosts.Switch: schedule, context_switch, the return to
	// user space) on the CPU each happens on, scaled like every guest instruction,
	// so they can saturate a vCPU, and for the reaper and io-wq workers the waker's
	// try_to_wake_up (CPUCosts.Wakeup) on the waking CPU. Off (the default), the
	// wake-ups cost no CPU time beyond the waker's Wakeup already charged for tag
	// waiters and kblockd, and the guest code of a wake-up stays in the calibrated
	// per-command overhead.
	WakeSplit bool
	// Switch is the native cost (ns) of one context switch, scaled by the factor;
	// 0 = dispatch.NativeSwitch. Used with WakeSplit only, [0, 1 ms], and scaled
	// by the factor at most 1 ms (a CPU cost's limit).
	Switch sim.Time
	// IssueAtReturn stamps fio's issue_time of an io_submit / io_uring_enter batch
	// when the submitting CPU has done the batch's work — the system call's return,
	// where fio stamps it (fio_libaio_queued, fio_ioring_queued after the commit) —
	// instead of at the submission's start (SubmitTiming.IssueAtReturn). Under
	// emulation the submission path takes tens of microseconds, which belong to slat
	// and to the gap between two commands of one io_u, not to clat; natively it is
	// about a microsecond and the native model keeps the earlier stamp.
	IssueAtReturn bool
	// ReadEventsAfterWork sets SubmitTiming.ReadEventsAfterWork: a reaper that finds
	// no completion looks again when its CPU has done the submission's work charged
	// before its wait (the kernel's io_getevents runs after io_submit returns, and
	// read_events looks at the ring before it sleeps), so completions that came due
	// during that work are reaped without a sleep-and-wake cycle.
	ReadEventsAfterWork bool
	// DIOPage is the native-equivalent cost (ns) per user page beyond the first of a
	// direct-I/O bio (SubmitTiming.DIOPage: bio_iov_iter_get_pages' page pinning,
	// bio_set_pages_dirty, the pages' release at completion), scaled by the factor,
	// [0, 1 ms]; 0 = none (opt-in: DefaultDIOPage gives the derived value and its
	// basis).
	DIOPage sim.Time
	// MMSwitch is the native-equivalent extra cost (ns) of a switch between two
	// processes over a switch that keeps the address space
	// (dispatch.CPUCosts.MMSwitch), scaled by the factor: charged when a kblockd run
	// that preempted a submitting fio thread hands the CPU to another runnable fio
	// process (dispatch.Host.SetOtherTasks), and when a wake-up runs a fio process on
	// a CPU whose last user task was another process (stack/mmswitch.go; not with
	// MMSwitchKblockdOnly). Used with WakeSplit only, [0, 1 ms], and
	// scaled by the factor at most 1 ms; 0 = DefaultMMSwitch, lowered to the largest
	// cost allowed at slowdowns above 232 (1 ms / 4.3 µs).
	MMSwitch sim.Time
	// NoMMSwitch charges no MMSwitch (the model before round 6).
	NoMMSwitch bool
	// TLBWorkingSet is the native-equivalent cost (ns) of refilling QEMU's softmmu
	// TLB for a process's whole working set after a CR3 write
	// (SubmitTiming.TLBWorkingSet, stack/tlbrefill.go), scaled by the factor,
	// [0, 1 ms]. When set, MMSwitch is the refill of one command's pages: a process
	// switch at a wake-up or a time-slice preemption (stack/mmswitch.go mmRun) still
	// charges it at once, and each later command the CPU submits charges it again
	// until the refills since the switch reach TLBWorkingSet. 0 = off, the constant
	// per-switch MMSwitch (the rule before round 9). oracle.DefaultWake sets
	// DefaultTLBWorkingSet (its basis). Used with WakeSplit only (MMSwitch is 0
	// otherwise); no effect with NoMMSwitch.
	TLBWorkingSet sim.Time
	// TLBHostRefill, when above 0, replaces TLBWorkingSet × factor by a host-time
	// cost (ns of emulated CPU, not scaled by the factor, [0, 1 ms]): the hypothesis
	// that QEMU's softmmu refill after a CR3 write (tlb_fill → x86_cpu_tlb_fill →
	// get_physical_address → tlb_set_page_full, the emulator's own C code) takes a
	// host time that does not grow with the slowdown of translated guest code.
	// Needs TLBWorkingSet above 0 (which turns the refill on); MMSwitch keeps its
	// scaling. Opt-in; DefaultTLBHostRefill gives the value and its basis, and the
	// round-12 measurement that keeps it off.
	TLBHostRefill sim.Time
	// TickSwitchRefill charges the process switches that CFS's scheduler tick
	// makes between fio processes that share a CPU without sleeping
	// (SubmitTiming.TickSwitchRefill, stack/tickrefill.go): MMSwitch and the
	// TLBWorkingSet refill after each, at check_preempt_tick's rate (one per
	// sched_slice rounded up to the next tick). Opt-in; needs TLBWorkingSet and
	// WakeSplit, and is left out with CheckPreemptTick (which makes those
	// switches itself). No new cost: it counts a switch the default model omits.
	TickSwitchRefill bool
	// DrainSwitch adds to TickSwitchRefill the voluntary switches of fio processes
	// that share a CPU and drain their own completions within their turn
	// (SubmitTiming.DrainSwitch, stack/tickrefill.go): charged like a tick switch
	// (MMSwitch and the refill) once the CPU has submitted the submitting job's
	// iodepth commands since its last switch in less time than that job's last
	// command took from submission to completion. oracle.DefaultWake turns it on;
	// needs TickSwitchRefill. No new cost.
	DrainSwitch bool
	// TLBRefillGrows charges the refill after a CR3 write by the commands of the
	// turn: the switch's first command MMSwitch, each later one the share of the
	// working set that brings a turn of TLBRefillSaturation commands (round 9's
	// calibration turn) to TLBWorkingSet (SubmitTiming.TLBRefillGrows,
	// stack/tlbrefill.go), after the tick's and drain switches (TickSwitchRefill,
	// DrainSwitch). No new cost. oracle.DefaultWake turns it on; needs TLBWorkingSet.
	TLBRefillGrows bool
	// WakeupNoPreempt charges the process switch between fio reader processes on a
	// CPU when the running one sleeps rather than when another is woken
	// (SubmitTiming.WakeupNoPreempt, stack/waketurn.go). No new cost. Opt-in;
	// needs TickSwitchRefill.
	WakeupNoPreempt bool
	// DryTurn ends the turn of a fio reader process that would have no completion
	// ready (SubmitTiming.DryTurn, stack/waketurn.go). No new cost or parameter.
	// Opt-in; needs WakeupNoPreempt and DrainSwitch.
	DryTurn bool
	// CheckPreemptTick turns on the CFS time slice between fio threads that share a
	// CPU (SubmitTiming.CheckPreemptTick, stack/schedtick.go), whose tick preemptions
	// charge the scaled Switch and MMSwitch.
	CheckPreemptTick bool
	// MMSwitchKblockdOnly charges MMSwitch only where a preempting kblockd run hands
	// the CPU to another task (round 6's first rule), not at the switches between two
	// fio processes that wake-ups make (SubmitTiming.MMSwitchAtWake, stack/mmswitch.go).
	MMSwitchKblockdOnly bool
	// LazyTLBSwitch is the native cost (ns) of one context switch to or from the
	// kblockd kworker (dispatch.CPUCosts.LazyTLBSwitch: a kernel thread borrows the
	// loaded mm through enter_lazy_tlb and never returns to user space), scaled by
	// the factor; 0 = NativeLazyTLBSwitch. Used with WakeSplit only, [0, 1 ms].
	LazyTLBSwitch sim.Time
	// NoLazyTLB charges the kworker's switches like a user task's (Switch), the
	// model before round 7.
	NoLazyTLB bool
	// DataCopy is the native-equivalent cost (ns) per KiB of the data copy a
	// RAM-backed SCSI LLD does in queuecommand (dispatch.CPUCosts.DataCopyKiB, on
	// hosts with Host.CopiesData: scsi_debug's do_device_access → sg_copy_buffer),
	// scaled by the factor, [0, 1 ms]; 0 = none (opt-in: DefaultDataCopy is the
	// derived value, stack/datacopy.go).
	DataCopy sim.Time
	// DataCopyCmd is the native-equivalent per-command cost (ns) of such an LLD's
	// command handling beyond the cost table's SCSI path
	// (dispatch.CPUCosts.DataCopyCmd), scaled by the factor, [0, 1 ms]; 0 = none
	// (opt-in: DefaultDataCopyCmd).
	DataCopyCmd sim.Time
}

// NativeLazyTLBSwitch is an assumed native cost of one switch to or from a kernel
// thread, 0.5 µs: half of dispatch.NativeSwitch, whose pipe ping-pong measurements
// include the system calls around each sleep and the return to user space with the
// FPU state's restore, none of which a kworker's switch has (6.1 context_switch's
// !next->mm branch, enter_lazy_tlb; worker_thread sleeps in schedule). Plausible
// range 0.25-1 µs (1 µs: a kworker's switch costs a user thread's).
const NativeLazyTLBSwitch = 500 * sim.Nanosecond

// DefaultMMSwitch is EmulationOptions.MMSwitch's default, 4.3 µs native-equivalent
// (288 µs of emulated CPU at the oracle's round-7 slowdown 67.0), calibrated on one cell
// only, fam-2q-ph-dl-aio-pin (two libaio readers pinned to CPU 0 with mq-deadline,
// kernel 960 and 946 IOPS), at the slowdown oracle.FioCPUSlowdown calibrates and with
// the kworker's switches at NativeLazyTLBSwitch (round 7): its readers get 1081 IOPS
// at 3.4 µs, 956 at 4.3 µs and 932 at 4.5 µs. (Round 6 derived 6 µs on the same cell
// at the marginal slowdown 50.1 with the kworker's switches charged as a user
// task's.) Basis of the mechanism (not of the value): with two fio processes runnable
// on a CPU, each preempting kblockd run hands the CPU to the other one
// (pick_next_entity's leftmost vruntime), and under QEMU TCG a process switch writes
// CR3, which flushes the vCPU's whole softmmu TLB (target/i386 cpu_x86_update_cr3 →
// tlb_flush), so the next process refills it page by page; the guest shows it as
// fio's user time per command doubling with two readers on one CPU under mq-deadline
// (46 → 93 µs in fam-2q-ph-dl-aio-pin, 40 → 90 in fam-nb-shared-dl) but not with one
// (38 → 36, calib-cpu-nb-qd32 → calib-cpu-nb-dl-qd32). Natively (PCID, no flush) the
// cost is small; the native table keeps 0. The same cost is charged wherever the
// model puts another fio process on a CPU at a wake-up (a reaper, a tag sleeper, an
// io-wq worker, a thread pulled by idle balance; switch_mm_irqs_off writes CR3 only
// when the next mm differs, and kernel threads borrow the loaded one), unless
// EmulationOptions.MMSwitchKblockdOnly. Hold-out hold-2r-nb-dl-pin (null_blk) shows
// the value over-charges a lighter driver path: 968 IOPS against the kernel's
// 1259-1267.
const DefaultMMSwitch = 4300 * sim.Nanosecond

// mmSwitch is the native-equivalent process-switch cost o selects.
func (o EmulationOptions) mmSwitch() sim.Time {
	switch {
	case o.NoMMSwitch:
		return 0
	case o.MMSwitch == 0:
		return DefaultMMSwitch
	}
	return o.MMSwitch
}

// EmulatedWith returns the configuration of a guest whose CPU runs factor times
// slower than the native CPU the model's costs describe (an instruction-set emulator
// such as QEMU TCG): every CPU cost of the submission and completion paths
// (dispatch.CPUCosts.Emulated: the guest's instructions scaled, the host's
// line-transfer traffic kept) and the io-wq worker's own time between two work items
// (SubmitTiming.WorkerStep, io_worker_handle_work's loop: CPU work the model keeps
// as a delay) multiplied by factor.
//
// The reap, wake-up and kblockd latencies (SubmitTiming.ReapMin/ReapMax,
// dispatch.Timing) are kept (assumed): their TCG counterpart is mostly a host
// thread's wake-up (a halted vCPU thread waits on a host condition variable, QEMU
// accel/tcg mttcg_cpu_thread_fn → qemu_wait_io_event), not translated guest code.
// Scaling them whole (5–30 µs × 74: 1.3 ms per reap on average) is refuted by the
// queue-depth-1 calibration cases, where the guest's whole latency beyond the
// model's is 0.22–0.25 ms per command. The guest code inside a sleep and wake-up —
// the task's schedule() into the sleep, the waker's try_to_wake_up (select_task_rq,
// ttwu_queue, enqueue_task_fair, check_preempt_curr), and the __schedule,
// context_switch, finish_task_switch and return to user that run the task again — is
// CPU time of the CPUs that run it: with o.WakeSplit it is charged there, scaled
// (EmulationOptions), for every task the model puts to sleep:
//   - the reaper asleep in io_getevents (read_events, woken by aio_complete's
//     wake_up) or in io_uring_enter's GETEVENTS wait (io_cqring_wait, woken when the
//     completion's task_work_add(TWA_SIGNAL) calls set_notify_signal →
//     wake_up_state): a Switch on its CPU as it sleeps, the waker's Wakeup on the
//     completing CPU, then a Switch on the reaper's CPU, and fio reaps (stamping
//     clat) when that CPU has done it;
//   - a task asleep in blk_mq_get_tag (io_schedule; woken by sbitmap_queue_wake_up,
//     the waker's Wakeup charged by package dispatch): a Switch as it sleeps and one
//     on the CPU it runs on when woken;
//   - an io-wq worker going idle (a Switch) and woken for a punted request
//     (io_wqe_activate_free_worker → wake_up_process): the waker's Wakeup on the
//     submitting CPU, a Switch on the worker's CPU before it takes the item;
//   - the kblockd kworker running an hctx (blk_mq_run_work_fn, woken by
//     kblockd_mod_delayed_work_on; the waker's Wakeup charged by package dispatch):
//     two switches on its CPU, to it and back (package dispatch charges them), each
//     a kernel thread's (EmulationOptions.LazyTLBSwitch, NativeLazyTLBSwitch by
//     default; a user task's Switch with NoLazyTLB);
//   - when such a run preempted a submitting fio thread (an unplugged submission's
//     async run, dispatch.Options.NoKblockdWakeupPreempt) and another fio thread or
//     io-wq worker is runnable on that CPU, the worker's sleep hands the CPU to that
//     task: a switch between two processes, EmulationOptions.MMSwitch more
//     (DefaultMMSwitch gives the basis; NoMMSwitch leaves it out).
//
// With o.ReadEventsAfterWork a reaper that finds its ring empty looks again when its
// CPU has done the submission it just charged (SubmitTiming.ReadEventsAfterWork), so
// it sleeps only when no completion came meanwhile, as io_getevents after io_submit's
// return would find.
//
// Without WakeSplit that code stays inside the calibrated per-command overhead.
// CPU costs off (CPU.Off) leave the costs alone. It models no kernel function; it is
// the instrument correction for comparing with an emulated kernel, and returns an
// error for a factor outside [1, dispatch.MaxEmulationSlowdown], a Switch outside
// [0, 1 ms] or, with WakeSplit, a Switch whose scaled cost passes 1 ms (a
// *ConfigError for EmulationOptions.Switch naming the largest allowed).
func (c Config) EmulatedWith(factor float64, o EmulationOptions) (Config, error) {
	if math.IsNaN(factor) || factor < 1 || factor > dispatch.MaxEmulationSlowdown {
		// checked here too, not only by CPUCosts.Emulated: with CPU.Off the factor
		// still scales the io-wq step and fio's parent
		return c, configErrorf("factor", "emulation: slowdown %v out of range [1, %d]", factor, dispatch.MaxEmulationSlowdown)
	}
	if o.Switch < 0 || o.Switch > sim.Millisecond {
		return c, configErrorf("EmulationOptions.Switch", "emulation: switch cost %v out of range [0, 1ms]", o.Switch)
	}
	if o.LazyTLBSwitch < 0 || o.LazyTLBSwitch > sim.Millisecond {
		return c, configErrorf("EmulationOptions.LazyTLBSwitch", "emulation: kernel-thread switch cost %v out of range [0, 1ms]", o.LazyTLBSwitch)
	}
	if o.DataCopy < 0 || o.DataCopy > sim.Millisecond {
		return c, configErrorf("EmulationOptions.DataCopy", "emulation: data-copy cost %v per KiB out of range [0, 1ms]", o.DataCopy)
	}
	if o.DataCopyCmd < 0 || o.DataCopyCmd > sim.Millisecond {
		return c, configErrorf("EmulationOptions.DataCopyCmd", "emulation: data-copy command cost %v out of range [0, 1ms]", o.DataCopyCmd)
	}
	if o.DIOPage < 0 || o.DIOPage > sim.Millisecond {
		return c, configErrorf("EmulationOptions.DIOPage", "emulation: direct-I/O page cost %v out of range [0, 1ms]", o.DIOPage)
	}
	if o.TLBWorkingSet < 0 || o.TLBWorkingSet > sim.Millisecond {
		return c, configErrorf("EmulationOptions.TLBWorkingSet", "emulation: TLB working-set refill cost %v out of range [0, 1ms]", o.TLBWorkingSet)
	}
	if o.TLBHostRefill < 0 || o.TLBHostRefill > sim.Millisecond {
		return c, configErrorf("EmulationOptions.TLBHostRefill", "emulation: TLB host refill cost %v out of range [0, 1ms]", o.TLBHostRefill)
	}
	if o.MMSwitch < 0 || o.MMSwitch > sim.Millisecond {
		return c, configErrorf("EmulationOptions.MMSwitch", "emulation: process-switch cost %v out of range [0, 1ms]", o.MMSwitch)
	}
	if o.WakeSplit && !c.CPU.Off && factor > 1 {
		// the scaled cost is one CPU cost: dispatch.CPUModel's limit holds for it
		sw := o.Switch
		if sw == 0 {
			sw = dispatch.NativeSwitch
		}
		if scaled := sim.Time(math.Round(float64(sw) * factor)); scaled > sim.Millisecond {
			return c, configErrorf("EmulationOptions.Switch", "emulation: switch cost %v × slowdown %g = %v is above the 1ms limit of a CPU cost; allowed at this slowdown: [0, %v]",
				sw, factor, scaled, sim.Time(math.Floor(float64(sim.Millisecond)/factor)))
		}
		if mm := o.mmSwitch(); mm > 0 && o.MMSwitch != 0 {
			if scaled := sim.Time(math.Round(float64(mm) * factor)); scaled > sim.Millisecond {
				return c, configErrorf("EmulationOptions.MMSwitch", "emulation: process-switch cost %v × slowdown %g = %v is above the 1ms limit of a CPU cost; allowed at this slowdown: [0, %v] (or NoMMSwitch)",
					mm, factor, scaled, sim.Time(math.Floor(float64(sim.Millisecond)/factor)))
			}
		}
	}
	if !c.CPU.Off {
		costs := c.CPU.Costs
		if costs == (dispatch.CPUCosts{}) {
			costs = dispatch.DefaultCPUCosts()
		}
		if o.WakeSplit {
			costs.Switch = o.Switch
			if costs.Switch == 0 {
				costs.Switch = dispatch.NativeSwitch
			}
			costs.MMSwitch = o.mmSwitch()
			costs.LazyTLBSwitch = o.LazyTLBSwitch
			if costs.LazyTLBSwitch == 0 {
				costs.LazyTLBSwitch = NativeLazyTLBSwitch
			}
			if o.NoLazyTLB {
				costs.LazyTLBSwitch = 0 // dispatch charges Switch
			}
			if o.MMSwitch == 0 && factor > 0 {
				// the default, lowered where its scaled cost would pass a CPU cost's 1 ms
				costs.MMSwitch = min(costs.MMSwitch, sim.Time(math.Floor(float64(sim.Millisecond)/factor)))
			}
		}
		costs.DataCopyKiB, costs.DataCopyCmd = o.DataCopy, o.DataCopyCmd
		for _, t := range []*sim.Time{&costs.DataCopyKiB, &costs.DataCopyCmd} {
			if float64(*t)*factor > float64(sim.Millisecond) {
				*t = sim.Time(math.Floor(float64(sim.Millisecond) / factor)) // a CPU cost's limit
			}
		}
		costs, err := costs.Emulated(factor)
		if err != nil {
			return c, err
		}
		c.CPU.Costs = costs
	}
	t := c.Submit.withDefaults()
	c.Submit.ReapMin, c.Submit.ReapMax = t.ReapMin, t.ReapMax
	c.Submit.WorkerStep = sim.Time(math.Round(float64(t.WorkerStep) * factor))
	// the -EAGAIN hand-off to io-wq is guest code too (SubmitTiming.IOQueueAsync)
	c.Submit.IOQueueAsync = min(sim.Time(math.Round(float64(c.Submit.IOQueueAsync)*factor)), sim.Millisecond)
	c.Submit.IssueAtReturn = c.Submit.IssueAtReturn || o.IssueAtReturn
	c.Submit.ReadEventsAfterWork = c.Submit.ReadEventsAfterWork || o.ReadEventsAfterWork
	if o.DIOPage > 0 && !c.CPU.Off {
		c.Submit.DIOPage = min(sim.Time(math.Round(float64(o.DIOPage)*factor)), sim.Millisecond)
	}
	c.Submit.MMSwitchAtWake = c.Submit.MMSwitchAtWake || o.WakeSplit && !o.MMSwitchKblockdOnly && c.CPU.Costs.MMSwitch > 0
	if o.TLBWorkingSet > 0 && c.CPU.Costs.MMSwitch > 0 && !c.CPU.Off {
		c.Submit.TLBWorkingSet = min(sim.Time(math.Round(float64(o.TLBWorkingSet)*factor)), sim.Millisecond)
		if o.TLBHostRefill > 0 {
			c.Submit.TLBWorkingSet = o.TLBHostRefill
		}
	}
	c.Submit.CheckPreemptTick = c.Submit.CheckPreemptTick || o.CheckPreemptTick
	c.Submit.TickSwitchRefill = c.Submit.TickSwitchRefill || o.TickSwitchRefill && c.Submit.TLBWorkingSet > 0
	c.Submit.DrainSwitch = c.Submit.DrainSwitch || o.DrainSwitch && c.Submit.TickSwitchRefill
	c.Submit.TLBRefillGrows = c.Submit.TLBRefillGrows || o.TLBRefillGrows && c.Submit.TLBWorkingSet > 0
	c.Submit.WakeupNoPreempt = c.Submit.WakeupNoPreempt || o.WakeupNoPreempt && c.Submit.TickSwitchRefill
	c.Submit.DryTurn = c.Submit.DryTurn || o.DryTurn && c.Submit.WakeupNoPreempt && c.Submit.DrainSwitch
	// fio's parent process is emulated code too (stack/fiothreads.go)
	c.Placement.FioParentSlowdown = factor
	return c, nil
}

// GuestSetup is the I/O a machine does on its disks before the fio run starts, as
// far as it leaves state the run sees: every LUN is read once from ScanCPU, as
// add_disk's partition scan (disk_scan_partitions) reads a new disk, Before
// nanoseconds before the run's start (dispatch.Queue.SetupRequest). A null_blk or
// NVMe disk is read as it is added (null_add_dev → add_disk in the task that loads
// the module), so on a tag set shared by several disks (null_blk shared_tags) the
// first disk's read finds the set not yet shared (blk_mq_tag_busy is a no-op; the set
// becomes shared with its second queue, blk_mq_add_queue_tag_set) and every later
// disk's read makes the hctx serving ScanCPU an active user. SCSI LUNs are read
// after the host scan has added them all (sd_probe runs asynchronously), so on a host
// with several LUNs every LUN's hctx becomes active. An active hctx takes a fair
// share of the tags (hctx_may_queue) until its queue's timeout work finds none of
// the queue's requests in flight. The oracle's guest pins modprobe to CPU 0
// (oracle/scripts/guest-init.sh); sd_probe's worker is not pinned, ScanCPU stands
// for it too (assumed). Legacy LUNs are not read.
type GuestSetup struct {
	// ScanCPU is the CPU the scan reads from, [0, NrCPUs).
	ScanCPU int
	// Before is the time from the scan to the run's start (ns), [0, 1000 s].
	Before sim.Time
	// Uptime is the machine's clock at the run's start (ns, [0, 10^6 s]): the
	// timeout timer the scan arms expires on a whole second of it
	// (round_jiffies_up in blk_add_timer). 0 = unknown: not rounded.
	Uptime sim.Time
}

// maxSetupBefore bounds GuestSetup.Before.
const maxSetupBefore = 1000 * sim.Second

// maxSetupUptime bounds GuestSetup.Uptime.
const maxSetupUptime = 1000000 * sim.Second

// scan applies the setup read of one LUN just added.
func (g *GuestSetup) scan(q *dispatch.Queue, nrCPUs int) error {
	if g == nil {
		return nil
	}
	if g.ScanCPU < 0 || g.ScanCPU >= nrCPUs {
		return fmt.Errorf("stack: setup: scan_cpu %d out of range [0, %d)", g.ScanCPU, nrCPUs)
	}
	if g.Before < 0 || g.Before > maxSetupBefore {
		return fmt.Errorf("stack: setup: before %v out of range [0, %v]", g.Before, maxSetupBefore)
	}
	if g.Uptime < 0 || g.Uptime > maxSetupUptime {
		return fmt.Errorf("stack: setup: uptime %v out of range [0, %v]", g.Uptime, maxSetupUptime)
	}
	clock0 := g.Uptime
	if clock0 == 0 {
		clock0 = -1
	}
	return q.SetupRequest(g.ScanCPU, q.Engine().Now()-g.Before, clock0)
}
