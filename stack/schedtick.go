package stack

import (
	"math/bits"

	"github.com/blkmq/blkmq/sim"
)

// The CFS time slice between fio threads that share a CPU (SubmitTiming.CheckPreemptTick).
//
// Kernel basis (6.1, kernel/sched/fair.c and core.c). A CPU runs one task at a time:
// the current one keeps it until it sleeps, a woken task preempts it
// (check_preempt_wakeup), or the scheduler tick finds that it has used its slice.
// scheduler_tick → task_tick_fair → entity_tick calls check_preempt_tick when more than
// one entity is runnable: the current task is rescheduled when it has run longer than
// sched_slice (its share, by weight, of __sched_period: sysctl_sched_latency for up to
// sched_nr_latency = 8 tasks, nr_running × sysctl_sched_min_granularity beyond), or,
// once it has run sysctl_sched_min_granularity, when its vruntime leads the leftmost
// waiting entity's by more than that slice. The tick comes every 1/HZ (CONFIG_HZ=250
// on Debian's amd64 kernels: 4 ms, DefaultSchedTick); the reschedule takes effect at
// the interrupt's return. pick_next_entity then runs the leftmost vruntime (no
// buddies: with fewer than sched_nr_latency tasks check_preempt_wakeup sets no last
// buddy, and NEXT_BUDDY is off). The sysctls are the normalised 6 ms, 0.75 ms and
// 1 ms scaled by get_update_sysctl_factor, 1 + ilog2(min(online CPUs, 8)). A woken
// task is placed at max(its vruntime, min_vruntime − sysctl_sched_latency/2)
// (place_entity with GENTLE_FAIR_SLEEPERS) and preempts the current one when the
// current's vruntime leads it by more than sysctl_sched_wakeup_granularity
// (wakeup_preempt_entity; nice 0, so no weight conversion). A switch to another
// task is a context_switch; to another process, switch_mm_irqs_off writes CR3
// (dispatch.CPUCosts.MMSwitch under emulation, stack/mmswitch.go).
//
// The model. Without the switch, fio threads on one CPU take turns submission by
// submission (cpuBusy: each waits for the work charged before it) and no switch
// between them is charged unless one of them sleeps. With it, each CPU has a current
// fio thread (tickRQ.curr) and the others runnable there wait (tickRQ.parked) until
// the tick preempts it, it sleeps (in io_getevents / io_uring_enter, blk_mq_get_tag,
// a pacing wait, or at its end), a woken thread preempts it, or a preempting kblockd
// run hands the CPU to the leftmost (otherTasks). Each fio thread's vruntime is the
// wall time it was current (all nice 0); the interrupts and kworker items that ran
// meanwhile count in it, as the task clock counts them without
// CONFIG_IRQ_TIME_ACCOUNTING (assumed). A tick preemption charges a context switch
// (CPUCosts.Switch; not again for a thread whose wake-up already charged it) and the
// process switch (mmRun) on the CPU. Only fio threads take part: io-wq workers,
// kworkers and fio's parent are not in the run queue (assumed: they sleep
// between short items and do not use up slices). The first tick is at time 0 of
// the run (assumed phase).

// tickRQ is one CPU's CFS run queue of fio threads.
type tickRQ struct {
	curr     *job
	pickedAt sim.Time // when curr was picked (prev_sum_exec_runtime's instant)
	minV     sim.Time // cfs_rq->min_vruntime (never decreases)
	parked   []*job   // runnable fio threads waiting for the CPU, in arrival order
}

// tickState is the run's per-CPU run queues and sysctls.
type tickState struct {
	rq                       []tickRQ
	latency, minGran, wakeup sim.Time
	tick                     sim.Time
	switches                 uint64 // tick preemptions (switches charged)
}

// schedTickOn reports whether the time slice is modelled (SubmitTiming.CheckPreemptTick).
func (r *runner) schedTickOn() bool { return r.sub.CheckPreemptTick }

// tickRQs returns the run's run queues, creating them on first use.
func (r *runner) tickRQs() *tickState {
	t := &r.tick
	if t.rq == nil {
		t.rq = make([]tickRQ, r.cfg.NrCPUs)
		n := min(max(r.cfg.NrCPUs, 1), 8)
		factor := sim.Time(bits.Len(uint(n))) // 1 + ilog2(n)
		t.latency = factor * 6 * sim.Millisecond
		t.minGran = factor * 750 * sim.Microsecond
		t.wakeup = factor * sim.Millisecond
		t.tick = r.cfg.Placement.tick()
	}
	return t
}

// SchedTickSwitches returns how many tick preemptions the run made (0 without
// SubmitTiming.CheckPreemptTick): each is one context switch between two fio threads.
func (r *runner) schedTickSwitches() uint64 { return r.tick.switches }

// vruntime of curr at now.
func (q *tickRQ) currV(now sim.Time) sim.Time {
	return q.curr.vrun + max(now-q.pickedAt, 0)
}

// leftmost returns the parked thread with the least vruntime (the first in arrival
// order among equals: __enqueue_entity puts equal keys to the right), nil if none.
func (q *tickRQ) leftmost() *job {
	var l *job
	for _, p := range q.parked {
		if l == nil || p.vrun < l.vrun {
			l = p
		}
	}
	return l
}

// updateMin is update_min_vruntime at now.
func (q *tickRQ) updateMin(now sim.Time) {
	v, ok := sim.Time(0), false
	if q.curr != nil {
		v, ok = q.currV(now), true
	}
	if l := q.leftmost(); l != nil && (!ok || l.vrun < v) {
		v, ok = l.vrun, true
	}
	if ok {
		q.minV = max(q.minV, v)
	}
}

// slice is sched_slice for nr runnable nice-0 threads.
func (t *tickState) slice(nr int) sim.Time {
	period := t.latency
	if nr > 8 { // sched_nr_latency
		period = sim.Time(nr) * t.minGran
	}
	return period / sim.Time(max(nr, 1))
}

// preemptAt is the first tick after curr was picked at which check_preempt_tick
// reschedules it, given the threads parked now; sim.MaxTime when none is.
func (t *tickState) preemptAt(q *tickRQ) sim.Time {
	l := q.leftmost()
	if q.curr == nil || l == nil {
		return sim.MaxTime
	}
	ideal := t.slice(1 + len(q.parked))
	p := q.pickedAt
	after := func(x sim.Time) sim.Time { return (x/t.tick + 1) * t.tick } // first tick > x
	at := after(p + ideal)                                                // delta_exec > ideal_runtime
	// delta_exec ≥ min_granularity and curr.vruntime − left.vruntime > ideal_runtime
	x := max(p+t.minGran-1, p+ideal+l.vrun-q.curr.vrun, p)
	return min(at, after(x))
}

// leave takes j out of the run queue it is in (it sleeps, ends, or moved to
// another CPU) at now; when it was current, the leftmost parked thread gets the CPU.
func (r *runner) leave(j *job, now sim.Time) {
	if j.rqCPU == 0 {
		return
	}
	t := r.tickRQs()
	cpu := j.rqCPU - 1
	q := &t.rq[cpu]
	j.rqCPU = 0
	if q.curr == j {
		j.vrun = q.currV(now)
		q.curr = nil
		q.updateMin(now)
		if l := q.leftmost(); l != nil {
			// schedule() picks it (the sleeper's switch away is charged on its
			// own path; the process switch here)
			r.switchTo(cpu, l, now, false)
			r.mmRun(l.q, cpu, l.mm)
		}
		return
	}
	for i, p := range q.parked {
		if p == j {
			q.parked = append(q.parked[:i], q.parked[i+1:]...)
			break
		}
	}
}

// tickResume ends j's wait for the CPU at now if it is waiting (its fillEv re-armed).
func (j *job) tickResume(now sim.Time) {
	if !j.fillWait {
		return // it is between two steps and checks at its next one
	}
	now = max(now, j.r.eng.Now()) // a lazily applied tick may lie in the past
	j.r.eng.Cancel(j.fillID)
	j.turnAt = now
	j.fillID = j.r.eng.At(now, &j.fillEv)
}

// switchTo makes next (parked) the CPU's current thread at now, the old current
// parked; charge: a tick preemption's switch is charged here (the kblockd hand-off
// and a wake-up preemption charge theirs on their own paths).
func (r *runner) switchTo(cpu int, next *job, now sim.Time, charge bool) {
	t := r.tickRQs()
	q := &t.rq[cpu]
	if old := q.curr; old != nil {
		old.vrun = q.currV(now)
		q.parked = append(q.parked, old)
	}
	for i, p := range q.parked {
		if p == next {
			q.parked = append(q.parked[:i], q.parked[i+1:]...)
			break
		}
	}
	q.curr, q.pickedAt = next, now
	next.rqCPU = cpu + 1
	q.updateMin(now)
	if charge {
		t.switches++
		if !next.switchedIn {
			next.chargeSwitch(cpu)
		}
		r.mmRun(next.q, cpu, next.mm)
	}
	next.switchedIn, next.slept = false, false
	next.tickResume(now)
}

// sliceWait is the time-slice rule at the thread's preemption point before a
// submission (cpuBusy): it reports whether the thread must wait for its CPU because
// another fio thread is current there, after parking it (waitCPU) until that
// thread's slice ends.
func (j *job) sliceWait(now sim.Time) bool {
	r := j.r
	t := r.tickRQs()
	cpu := j.runCPU
	if j.rqCPU != 0 && j.rqCPU-1 != cpu {
		r.leave(j, now) // it moved (idle balance)
	}
	q := &t.rq[cpu]
	if j.rqCPU == 0 {
		// it joins the run queue (woken, started, or moved here)
		j.rqCPU = cpu + 1
		if j.slept {
			j.vrun = max(j.vrun, q.minV-t.latency/2) // place_entity
		}
		if q.curr == nil {
			q.curr, q.pickedAt = j, now
			q.updateMin(now)
			r.mmRun(j.q, cpu, j.mm) // switch_mm_irqs_off from the task that ran last
			j.switchedIn, j.slept = false, false
			return false
		}
		q.parked = append(q.parked, j)
		if j.slept && q.currV(now)-j.vrun > t.wakeup {
			// check_preempt_wakeup: the woken thread runs now (its wake-up
			// charged the switch to it)
			r.switchTo(cpu, j, now, false)
			r.mmRun(j.q, cpu, j.mm)
			return false
		}
	}
	t.advance(cpu, now)
	if q.curr == j {
		return false
	}
	return j.park(now, t.preemptAt(q))
}

// advance applies the tick preemptions on cpu up to now: each runs the leftmost
// parked thread from its tick on.
func (t *tickState) advance(cpu int, now sim.Time) {
	q := &t.rq[cpu]
	for {
		at := t.preemptAt(q)
		if at > now {
			return
		}
		q.curr.r.switchTo(cpu, q.leftmost(), at, true)
	}
}

// park makes the parked thread wait for its CPU until at (the current thread's
// preemption tick; a sleep of that thread or a hand-off resumes it earlier).
func (j *job) park(now, at sim.Time) bool {
	if at == sim.MaxTime {
		return false // no current thread to wait for (not reached)
	}
	// a thread parked earlier waits no longer than the current one's new slice
	for _, p := range j.r.tickRQs().rq[j.runCPU].parked {
		if p != j && p.fillWait && p.turnAt > at && at >= p.r.eng.Now() {
			p.r.eng.Cancel(p.fillID)
			p.turnAt = at
			p.fillID = p.r.eng.At(at, &p.fillEv)
		}
	}
	return j.waitCPU(now, at)
}

// tickSleep takes the thread out of its CPU's run queue as it sleeps or ends at now
// (dequeue_entity; schedule() picks the next thread there).
func (j *job) tickSleep(now sim.Time) {
	if !j.r.schedTickOn() || j.rqCPU == 0 {
		return
	}
	j.r.leave(j, now)
	j.slept = true
}

// kblockdHandOff is otherTasks under the time slice: a preempting kblockd run on cpu
// has just slept, and schedule() runs the leftmost of the current fio thread (its
// vruntime now) and the parked ones (pick_next_entity). It reports whether that is
// a thread of another process (the caller charges the process switch).
func (r *runner) kblockdHandOff(cpu int, now sim.Time) bool {
	t := r.tickRQs()
	q := &t.rq[cpu]
	l := q.leftmost()
	// the current thread's vruntime where the CPU is: the model's clock stands at
	// the start of the step that queued the kblockd run, its CPU at that run's end
	if q.curr == nil || l == nil || !(l.vrun < q.currV(max(now, r.host.CPUFreeAt(cpu)))) {
		return false
	}
	prev := q.curr.mm
	r.switchTo(cpu, l, max(now, r.host.CPUFreeAt(cpu)), false)
	if m := r.mmLoaded(); m != nil {
		m[cpu] = l.mm
	}
	return l.mm != prev
}
