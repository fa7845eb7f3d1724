package stack

import (
	"math/bits"

	"github.com/blkmq/blkmq/sim"
)

// The tick's process switches between CPU-bound fio processes
// (SubmitTiming.TickSwitchRefill).
//
// Kernel basis (6.1, kernel/sched/fair.c and core.c): a task that never sleeps keeps
// its CPU until scheduler_tick → task_tick_fair → entity_tick → check_preempt_tick
// finds that it has run longer than sched_slice (sysctl_sched_latency shared by up
// to sched_nr_latency = 8 runnable nice-0 tasks, sysctl_sched_min_granularity each
// beyond; both scaled by 1 + ilog2(min(CPUs, 8)), so 12 ms and 1.5 ms on the
// oracle's two vCPUs); the tick (CONFIG_HZ=250: 4 ms) then sets need_resched and
// __schedule → pick_next_entity runs the leftmost waiting task. The current task
// was picked at a tick's return, so it is preempted at the first tick after its
// slice: every 8 ms with two or three runnable tasks (slices 6 and 4 ms), every
// tick with four or more. When the next task belongs to another process,
// context_switch → switch_mm_irqs_off writes CR3, which under QEMU TCG flushes the
// vCPU's whole softmmu TLB (stack/tlbrefill.go gives the basis): the next task
// refills its working set page by page. The guest shows these switches as the
// readers' nonvoluntary context switches: four CPU-bound reader processes on one
// CPU (hold-4r-nb-none-pin-r9, hosts/2026-12-03-pm) switch 0.0325 times per
// command, 249 per second, one per tick.
//
// The model without it lets fio threads that wait for their CPU take turns
// submission by submission and charges a process switch only where a thread sleeps
// and is woken (mmRun) or a preempting kblockd run hands the CPU over: readers
// that never sleep make no switch and refill nothing. With it, a submission on a
// CPU where a thread of another fio process waits for the CPU (cpuWait) charges the
// switch the tick would have made once the CPU's last charged switch is a slice
// (for the threads runnable now, counting the submitter) rounded up to the next
// tick in the past: CPUCosts.MMSwitch at once and the rest of the working set
// (SubmitTiming.TLBWorkingSet) over the commands that follow. No new cost: both
// are the existing, separately derived values. Not modelled: the vruntime clause of
// check_preempt_tick (a task more than a slice ahead of the leftmost after
// min_granularity: with equal weights and round-robin turns it does not fire
// earlier), the switch's own context-switch cost (charged for sleeps only), which
// thread runs next (the submitter's address space is taken as loaded).

// The switches of processes that drain their completions within their turn
// (SubmitTiming.DrainSwitch).
//
// Kernel basis (6.1): a fio reader process that has the CPU reaps what has
// completed and resubmits it (io_getevents with min_nr 1 → read_events; io_submit);
// once its ring is empty it sleeps in read_events (wait_event_interruptible_hrtimeout
// → schedule), a voluntary switch: __schedule → pick_next_task_fair runs the next
// waiting reader and context_switch → switch_mm_irqs_off writes CR3 (a TLB flush
// under TCG, stack/tlbrefill.go). Its ring is empty within its turn when its iodepth
// commands take less CPU time than one command's latency: the first one it
// resubmitted has not completed when it has resubmitted the last. On a fast host
// (hosts/2026-12-04, slowdown 20) four qd32 reader processes on one CPU spend about
// 32 µs of CPU per command, so a turn ends after about 1.4-1.8 ms of a 2 ms
// null_blk, before the tick's 4 ms: the guest's readers switch 0.030-0.031 times per
// command, 530-720 per second, almost all voluntary (0.001 nonvoluntary); on the
// slow hosts (about 100 µs per command, 3.2 ms a ring) the tick comes first
// (hosts/2026-12-03-pm: 250 per second, mostly nonvoluntary). The model lets the
// processes take turns command by command, so a reader kept awake that way never
// finds its ring empty and makes no such switch.
//
// The model: with a thread of another process waiting for the CPU (as for the tick
// switch), a submission charges the switch (MMSwitch at once, the working-set
// refill over the commands that follow: the same costs as a tick switch) once the
// CPU has submitted more than the submitter's iodepth commands since its last
// charged switch, in less time than the submitter's last command took from fio's
// start_time to its completion, provided the submitter has submitted more than its
// iodepth commands since it last slept in getevents (a thread the model already puts
// to sleep, such as a qd1 reader, has its turns ended by the model's own sleeps and
// wake-up switches, mmRun). No new parameter: the iodepth, the latency and the CPU
// time are the model's own. Not modelled: which process runs next, the sleep's own
// context-switch cost (the thread does not really sleep in the model), a turn that
// ends with part of the ring refilled (two qd64 processes on hosts/2026-12-04 switch
// 0.014 times per command, the model 0.004).

// tickSince returns the per-CPU time of the last process switch charged there.
func (r *runner) tickSince() []sim.Time {
	if r.mm.since == nil {
		r.mm.since = make([]sim.Time, r.cfg.NrCPUs)
	}
	return r.mm.since
}

// switchedAt records a process switch charged on cpu at now (mmRun, a kblockd
// hand-off, a tick switch): the time slice of the task that runs starts there.
func (r *runner) switchedAt(cpu int, now sim.Time) {
	if !r.sub.TickSwitchRefill || cpu < 0 || cpu >= r.cfg.NrCPUs {
		return
	}
	s := r.tickSince()
	s[cpu] = max(s[cpu], now)
	if r.mm.cmds != nil {
		r.mm.cmds[cpu] = 0
	}
}

// tickSwitch charges, before j's submission at now, the tick's switch to another
// process on j's CPU when one is due (SubmitTiming.TickSwitchRefill).
func (r *runner) tickSwitch(j *job, now sim.Time) {
	cpu := j.runCPU
	j.awake++
	if !r.sub.TickSwitchRefill || r.sub.CheckPreemptTick || cpu < 0 || cpu >= r.cfg.NrCPUs || r.oneMM() {
		return
	}
	nr, other := 1, false
	for _, k := range r.jobs {
		if k == j || k.runCPU != cpu || !k.cpuWait {
			continue
		}
		nr++
		other = other || k.mm != j.mm
	}
	if !other {
		return
	}
	h := j.q.Host()
	t := h.CostTable()
	if t == nil || t.MMSwitch <= 0 {
		return
	}
	at := max(now, h.CPUFreeAt(cpu)) // where the CPU is in its work
	since := r.tickSince()
	tick := r.cfg.Placement.tick()
	due := ((since[cpu]+cfsSlice(r.cfg.NrCPUs, nr))/tick + 1) * tick
	drained, dry := false, false
	if r.sub.DrainSwitch {
		if r.mm.cmds == nil {
			r.mm.cmds = make([]int, r.cfg.NrCPUs)
		}
		r.mm.cmds[cpu]++
		// the submitter's turn would have used up its completions: its iodepth
		// commands took less than one of its commands' latency
		drained = r.mm.cmds[cpu] > j.spec.EffectiveIODepth && j.awake > j.spec.EffectiveIODepth &&
			j.lastLat > 0 && at-since[cpu] < j.lastLat
		if !drained && r.turnDry(j, cpu) {
			drained, dry = true, true
		}
	}
	if at < due && !drained {
		return
	}
	h.OnCPU(cpu)
	h.Charge(t.MMSwitch)
	r.tlbFlushed(cpu, t.MMSwitch, true)
	if at < due {
		r.mm.drainSwitches++
		since[cpu] = at
	} else {
		r.mm.tickSwitches++
		// the switch is at the latest tick the CPU's work has reached (due itself
		// while the sharing goes on): a task that ran alone there for many slices
		// is past its slice once, so it is one switch, not one per slice it ran
		// alone
		since[cpu] = max(due, at/tick*tick)
	}
	if r.mm.cmds != nil {
		r.mm.cmds[cpu] = 0
	}
	if m := r.mmLoaded(); m != nil {
		if dry {
			m[cpu] = r.nextMM(j, cpu, m[cpu]) // stack/waketurn.go
		} else {
			m[cpu] = j.mm
		}
	}
}

// cfsSlice is sched_slice for nr runnable nice-0 tasks on a machine of nrCPUs CPUs
// (the same sysctls as tickState: 6 ms latency, 0.75 ms minimum granularity, both
// scaled by 1 + ilog2(min(nrCPUs, 8))).
func cfsSlice(nrCPUs, nr int) sim.Time {
	factor := sim.Time(bits.Len(uint(min(max(nrCPUs, 1), 8)))) // 1 + ilog2(n)
	t := tickState{latency: factor * 6 * sim.Millisecond, minGran: factor * 750 * sim.Microsecond}
	return t.slice(nr)
}
