package stack

import "github.com/blkmq/blkmq/sim"

// otherTasks reports whether a modelled task other than the running one is runnable
// on cpu at now: a fio thread or io-wq worker waiting for the CPU, or woken there and
// not yet run (dispatch.Host.SetOtherTasks: a kblockd run that preempted the submitter
// then hands the CPU to it, and the host charges that process switch). When it does,
// the address space now loaded on cpu is that task's, which the model does not name:
// the next wake-up's switch on cpu is not charged again (mmWake).
//
// A run whose fio tasks all share one address space (one job, or thread=1 jobs and
// their io-wq workers) has no other process to switch to: false.
func (r *runner) otherTasks(cpu int, now sim.Time) bool {
	if r.schedTickOn() {
		return r.kblockdHandOff(cpu, now) // stack/schedtick.go
	}
	s := r.sched()
	if s.waiting[cpu]+s.woken[cpu] == 0 || r.oneMM() {
		return false
	}
	if m := r.mmLoaded(); m != nil {
		m[cpu] = 0
	}
	r.switchedAt(cpu, max(now, r.host.CPUFreeAt(cpu)))
	return true
}

// oneMM reports whether every job's tasks share one address space.
func (r *runner) oneMM() bool {
	if r.mm.one == 0 {
		r.mm.one = 1
		for _, j := range r.jobs {
			if j.mm != r.jobs[0].mm {
				r.mm.one = 2
				break
			}
		}
	}
	return r.mm.one == 1
}

// mmState is the user address space loaded on each simulated CPU, for the process-switch
// cost (dispatch.CPUCosts.MMSwitch) at wake-ups (SubmitTiming.MMSwitchAtWake).
//
// Kernel basis (6.1): context_switch → switch_mm_irqs_off writes CR3 only when the
// next task's mm differs from the one loaded (cpu_tlbstate.loaded_mm). A kernel thread
// (a kblockd kworker, ksoftirqd) has no mm and borrows the previous one (lazy TLB,
// enter_lazy_tlb: no CR3 write), so a fio process that runs again after a kworker
// costs nothing; nor does a switch between two threads of one process (fio's
// thread=1 jobs; an io_uring ring owner and its io-wq workers, which create_io_thread
// makes with CLONE_VM). Under QEMU TCG the CR3 write flushes the vCPU's whole softmmu
// TLB (DefaultMMSwitch gives the basis of the cost).
type mmState struct {
	loaded []int // the address space loaded on each CPU (job.mm); 0 = none known
	// refill is, per CPU, the TLB refill still to be charged before the working set
	// is back (SubmitTiming.TLBWorkingSet, stack/tlbrefill.go); nil until a switch
	refill []tlbRefill
	one    int8 // oneMM's answer: 0 not known yet, 1 one address space, 2 several
	// switches counts the process switches mmRun charged, refilled the TLB refill
	// chargeTLBRefill charged (SwitchCounts)
	switches uint64
	refilled sim.Time
	// since is, per CPU, when the last process switch was charged there, and
	// tickSwitches counts the tick's switches charged (stack/tickrefill.go)
	since        []sim.Time
	tickSwitches uint64
	// cmds is, per CPU, the submissions since that switch, and drainSwitches the
	// switches DrainSwitch charged (stack/tickrefill.go)
	cmds          []int
	drainSwitches uint64
	// ready is, per CPU, the completions the loaded process would still have
	// ready in a turn of its own (SubmitTiming.DryTurn, stack/waketurn.go)
	ready []int
	// sleepSwitches counts the switches sleepSwitch charged (stack/waketurn.go)
	sleepSwitches uint64
}

// mmLoaded returns the per-CPU loaded address spaces, nil when wake-up switches are not
// charged (no MMSwitch cost, or EmulationOptions.MMSwitchKblockdOnly).
func (r *runner) mmLoaded() []int {
	if !r.sub.MMSwitchAtWake || r.cfg.CPU.Off {
		return nil
	}
	if r.mm.loaded == nil {
		r.mm.loaded = make([]int, r.cfg.NrCPUs)
	}
	return r.mm.loaded
}

// mmRun is a task of address space mm (job.mm) starting to run on cpu after a wake-up
// (its return from read_events / io_cqring_wait, from blk_mq_get_tag's io_schedule,
// an io-wq worker woken for an item) or after a migration: when the CPU last ran a
// task of another fio process, the switch to this one writes CR3 and costs
// CPUCosts.MMSwitch, charged on cpu before the task's own work.
//
// Only these points are counted, not every turn the model gives a runnable thread on
// a shared CPU (it interleaves two runnable threads submission by submission, where
// CFS lets the running one go on until it sleeps or is preempted): two processes
// that alternate on a CPU each sleep between their runs, so each run begins with a
// wake-up. Not counted (assumed small): a tick preemption between two threads that
// never sleep, fio's parent process (Placement.FioParent), a pacing sleep's wake-up.
func (r *runner) mmRun(q blockQueue, cpu, mm int) {
	r.mmRunJob(q, cpu, mm, nil)
}

// mmRunJob is mmRun for job j (nil: not a fio job thread's wake-up).
func (r *runner) mmRunJob(q blockQueue, cpu, mm int, j *job) {
	m := r.mmLoaded()
	if m == nil || cpu < 0 || cpu >= len(m) {
		return
	}
	h := q.Host()
	t := h.CostTable()
	if t == nil || t.MMSwitch <= 0 {
		return
	}
	if prev := m[cpu]; prev != 0 && prev != mm {
		if r.sub.WakeupNoPreempt && j != nil && j.partReap() && r.eng.Now()-j.sleptAt <= wakeupGran(r.cfg.NrCPUs) && r.mmAwake(cpu, prev) {
			j.wakeDeferred = true
			return // it waits for the running process to sleep (stack/waketurn.go)
		}
		h.OnCPU(cpu)
		h.Charge(t.MMSwitch)
		r.mm.switches++
		r.tlbFlushed(cpu, t.MMSwitch, false)
		r.switchedAt(cpu, max(r.eng.Now(), h.CPUFreeAt(cpu))) // the rest of the working set (stack/tlbrefill.go)
	}
	m[cpu] = mm
}

// mmWake is mmRun for the job's thread on cpu. Under the time slice
// (SubmitTiming.CheckPreemptTick) the switch is charged when the thread becomes the
// CPU's current one (stack/schedtick.go), not at its wake-up.
func (j *job) mmWake(cpu int) {
	if !j.r.schedTickOn() {
		j.r.mmRunJob(j.q, cpu, j.mm, j)
	}
}
