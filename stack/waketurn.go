package stack

import (
	"math/bits"

	"github.com/blkmq/blkmq/sim"
)

// The turns of fio reader processes that share a CPU and sleep in getevents
// (SubmitTiming.WakeupNoPreempt).
//
// Kernel basis (6.1, kernel/sched/fair.c): a reader whose completions wake it
// (aio_complete → wake_up in read_events' wait) is enqueued by enqueue_entity →
// place_entity, which for a waking task keeps its own vruntime unless it is more
// than half a sched_latency behind min_vruntime (GENTLE_FAIR_SLEEPERS); then
// check_preempt_wakeup preempts the running task only when wakeup_preempt_entity
// finds the woken one more than the wakeup granularity behind it
// (sysctl_sched_wakeup_granularity, 1 ms scaled by 1 + ilog2(min(CPUs, 8)): 2 ms on
// the oracle's two vCPUs). Readers that take turns of one ring each (about 1-2 ms
// of CPU on the fast hosts) stay within that of one another, so the woken reader
// waits: the running one keeps the CPU until its ring is empty and it sleeps in
// read_events (a voluntary switch), and __schedule → pick_next_entity then runs the
// leftmost waiting reader; context_switch → switch_mm_irqs_off writes CR3. The
// guest shows it: the readers of hosts/2026-12-04 switch about once per ring
// (0.031-0.040 per command at iodepth 32 with 2, 3 and 4 processes), nearly all
// voluntary.
//
// The model: a wake-up of a reader that slept no longer than the wakeup
// granularity (wakeupGran), on a CPU whose loaded address space belongs to another
// fio process with a thread still awake there (not asleep in getevents or
// blk_mq_get_tag), charges no switch (mmRun) and leaves that address space loaded:
// the woken reader is deferred. When the thread of the loaded process then sleeps in
// getevents with a deferred reader of another process on its CPU, the switch to that
// one is charged there, as a turn-ending switch: MMSwitch at once and the refill of
// TLBRefillGrows over the commands that follow (tlbFlushed with turn), and its
// address space is loaded. A deferred reader that sleeps first (the model
// interleaves it with the loaded process, so it ran) is charged its switch at that
// sleep with round 9's per-command refill, and the loaded process stays loaded.
// Only readers woken with part of their ring in flight are deferred (partReap): a
// qd1 reader, or one that reaps its whole ring per wake-up
// (iodepth_batch_complete_min = iodepth), runs one whole turn per wake-up in the
// model as in the kernel, and its switch stays charged at its wake-up, before its
// commands (the count is already the guest's: hold-wake-nb-12x1-pin, one per
// command). With the wake-up switches deferred, the CPU's submissions since its
// last switch are no longer reset by every wake-up, so DrainSwitch's ring-ending
// switch can fire (stack/tickrefill.go). No new cost or parameter. Not modelled:
// the awake threads still interleave submission by submission (the refill left is
// drawn by whichever submits), vruntime itself (the lag is taken as the time the
// woken reader slept while another ran), which deferred reader runs next (the first
// after the sleeper in job order).

// mmAwake reports whether a thread of address space mm is awake on cpu: not asleep
// in getevents or blk_mq_get_tag and not finished.
func (r *runner) mmAwake(cpu, mm int) bool {
	for _, k := range r.jobs {
		if k.mm == mm && k.runCPU == cpu && !k.finished && !k.inGetevents && !k.blocked {
			return true
		}
	}
	return false
}

// sleepSwitch charges, when j's thread has just gone to sleep in getevents, the
// switch to another fio process awake on its CPU (SubmitTiming.WakeupNoPreempt).
func (r *runner) sleepSwitch(j *job) {
	if !r.sub.WakeupNoPreempt {
		return
	}
	m := r.mmLoaded()
	cpu := j.runCPU
	if m == nil || cpu < 0 || cpu >= len(m) {
		return
	}
	if j.wakeDeferred {
		// it ran (the model interleaves it with the loaded process) without the
		// switch to it: in the kernel it ran once the loaded one slept, a switch
		// in; the loaded process stays loaded here, as it goes on in the model
		j.wakeDeferred = false
		if m[cpu] != 0 && m[cpu] != j.mm {
			r.chargeSleepSwitch(j, cpu, false)
		}
		return
	}
	if m[cpu] != j.mm {
		return
	}
	if r.mmAwake(cpu, j.mm) {
		return // another thread of its process goes on
	}
	var next *job
	n := len(r.jobs)
	at := 0
	for i, k := range r.jobs {
		if k == j {
			at = i
			break
		}
	}
	for d := 1; d < n; d++ {
		k := r.jobs[(at+d)%n]
		if k.wakeDeferred && k.mm != j.mm && k.runCPU == cpu && !k.finished && !k.inGetevents && !k.blocked {
			next = k
			break
		}
	}
	if next == nil {
		return
	}
	if r.chargeSleepSwitch(j, cpu, true) {
		next.wakeDeferred = false
		m[cpu] = next.mm
	}
}

// chargeSleepSwitch charges on cpu a process switch at j's sleep as a turn-ending
// switch (MMSwitch, then the grown refill); false when the table has no MMSwitch.
func (r *runner) chargeSleepSwitch(j *job, cpu int, turn bool) bool {
	h := j.q.Host()
	t := h.CostTable()
	if t == nil || t.MMSwitch <= 0 {
		return false
	}
	h.OnCPU(cpu)
	h.Charge(t.MMSwitch)
	r.mm.switches++
	r.mm.sleepSwitches++
	r.tlbFlushed(cpu, t.MMSwitch, turn)
	r.switchedAt(cpu, max(r.eng.Now(), h.CPUFreeAt(cpu)))
	return true
}

// partReap reports whether the job's thread is woken with part of its ring still in
// flight (iodepth above iodepth_batch_complete_min, at least 1): a reader woken only
// with its whole ring completed (qd1, or a batch reap of the whole ring) runs one
// whole turn per wake-up in the model as in the kernel, so its wake-up's switch
// stays charged at the wake-up, before its commands (mmRun).
func (j *job) partReap() bool {
	return j.spec.EffectiveIODepth > max(j.spec.IODepthBatchCompleteMin, 1)
}

// wakeupGran is sysctl_sched_wakeup_granularity on a machine of nrCPUs CPUs: 1 ms
// scaled by 1 + ilog2(min(nrCPUs, 8)) (sched_init_granularity, as cfsSlice's
// sysctls). A reader woken after sleeping longer than it while another task ran
// has a vruntime that far behind the running one's (place_entity keeps its own, or
// min_vruntime less half a latency) and preempts it (wakeup_preempt_entity).
func wakeupGran(nrCPUs int) sim.Time {
	return sim.Time(bits.Len(uint(min(max(nrCPUs, 1), 8)))) * sim.Millisecond
}

// wakeupPreempts reports whether the reaper woken now preempts the task running on
// its CPU (SubmitTiming.WakeupPreemptReap). Kernel basis (6.1,
// kernel/sched/fair.c): try_to_wake_up in the completion's interrupt
// (aio_complete's wake_up, io_uring's task_work_add) calls check_preempt_wakeup,
// which sets TIF_NEED_RESCHED when wakeup_preempt_entity finds the wakee's vruntime
// more than the wakeup granularity (wakeupGran) behind the running task's; the
// return from the interrupt to user mode, or the running task's next system-call
// return, then switches to it. A thread that sleeps most of the time (a WAL at
// iodepth 2 beside readers that keep their CPU busy) gains vruntime lag at every
// sleep, up to place_entity's GENTLE_FAIR_SLEEPERS credit of half a sched_latency
// (3 × wakeupGran), so it preempts at nearly every wake-up. The guest shows it: the
// readers' nonvoluntary switches rise from 560-1400 to 1830-4190 when the libaio
// WAL shares their CPU, one or two per WAL write (round 12, uring12). The rule
// takes that limit (no vruntime is kept): every woken reaper with part of its
// ring still in flight (partReap) preempts. A reader woken with its whole ring
// done (qd1) does not: the model's CPUs do not push the preempted work back, so a
// preempting reaper runs beside its CPU's charged work, and CPU-bound qd1 readers
// sharing a CPU would then all run faster than the CPU allows. No new parameter.
func (j *job) wakeupPreempts() bool {
	return j.r.sub.WakeupPreemptReap && j.partReap()
}

// The turn that ends when the running reader has nothing to reap
// (SubmitTiming.DryTurn).
//
// Kernel basis (6.1): the reader that has the CPU reaps what completed and
// resubmits it; when io_getevents finds fewer than min_nr events (fs/aio.c
// read_events → wait_event_interruptible_hrtimeout) it sleeps and __schedule →
// pick_next_entity runs the waiting reader with the smallest vruntime, the one that
// has waited longest under round-robin turns; that reader then reaps everything
// that completed since its own last turn. DrainSwitch ends a turn only after more
// than iodepth submissions, but a turn is shorter when a command's latency exceeds
// the readers' cycle (hosts/2026-12-04 hold-drain12-2r: about 26 commands a turn at
// iodepth 32, each reader's ring not yet back when it has resubmitted what was
// ready). The model interleaves the readers command by command, so a reader's own
// completion queue never runs dry; instead each job counts the completions posted
// since its process's last turn (turnReady), the turn of the process loaded on the
// CPU starts with all of them and gains its completions during the turn, and every
// submission on the CPU in the turn spends one (the kernel's turn is all that
// process's). When none is left the turn ends: the switch is charged as a drain
// switch, and the process that gathered the most completions is loaded (nextMM).
// No new cost or parameter. Not modelled: the completions of a turn that ended
// by the tick or a wake-up are not carried over; the credit counts completions,
// not iodepth_batch_complete_min batches (only readers with part of their ring in
// flight, partReap, take part).

// turnCompleted counts a completion of j toward its process's next reaps in a
// turn of its own (SubmitTiming.DryTurn).
func (r *runner) turnCompleted(j *job) {
	if r.sub.DryTurn {
		j.turnReady++
	}
}

// turnDry reports, at a submission on cpu (the cmds[cpu]-th since the CPU's last
// switch), whether the process loaded there would have no completion left ready
// had the turn's submissions all been its own (the kernel runs it alone through its
// turn, reaping what completed since it last went dry): its reader sleeps in
// read_events then, a voluntary switch to the next waiting process (fs/aio.c
// read_events; kernel/sched/core.c __schedule).
func (r *runner) turnDry(j *job, cpu int) bool {
	m := r.mmLoaded()
	if !r.sub.DryTurn || m == nil || cpu < 0 || cpu >= len(m) || m[cpu] == 0 || !j.partReap() {
		return false
	}
	if r.mm.ready == nil {
		r.mm.ready = make([]int, r.cfg.NrCPUs)
	}
	if r.mm.cmds[cpu] == 1 {
		r.mm.ready[cpu] = 0 // the turn's start
	}
	for _, k := range r.jobs {
		if k.mm == m[cpu] {
			r.mm.ready[cpu] += k.turnReady
			k.turnReady = 0
		}
	}
	r.mm.ready[cpu]--
	return r.mm.ready[cpu] <= 0 && r.mm.cmds[cpu] > 1
}

// nextMM is the address space a dry turn's switch on cpu loads: among the threads of
// other processes than the one loaded (dry) on cpu, the submitter j or one waiting
// for the CPU, the one whose process gathered the most completions since its last
// turn, i.e. the one that waited longest (pick_next_entity's leftmost under
// round-robin turns); dry's own when none.
func (r *runner) nextMM(j *job, cpu, dry int) int {
	best, most := dry, -1
	for _, k := range r.jobs {
		if k.mm == dry || k.runCPU != cpu || !(k.cpuWait || k == j) || k.finished {
			continue
		}
		n := 0
		for _, o := range r.jobs {
			if o.mm == k.mm {
				n += o.turnReady
			}
		}
		if n > most {
			best, most = k.mm, n
		}
	}
	return best
}
