package legacy

import "github.com/blkmq/blkmq/sim"

// CPU is the machine the queue's code runs on, for charging the CPU time of its steps
// (package dispatch's *Host implements it, so a legacy queue shares the simulated
// CPUs of a blk-mq machine). The queue makes a CPU current at each entry point (a
// submission, a plug flush, a completion, a delayed run) and charges the steps that
// follow on it. All methods are called on the engine goroutine.
type CPU interface {
	// OnCPU makes cpu the CPU the following charges go to.
	OnCPU(cpu int)
	// Charge charges cost (ns) on the current CPU.
	Charge(cost sim.Time)
	// CPUFreeAt returns when cpu has finished the work charged to it (ns).
	CPUFreeAt(cpu int) sim.Time
	// SameLLC reports whether two CPUs share a last-level cache (cpus_share_cache).
	SameLLC(a, b int) bool
}

// Locker is implemented by a CPU that models spinlocks (package dispatch's *Host):
// SpinLock charges one critical section of hold ns under obj's lock named name on the
// current CPU — spinning behind other CPUs' sections (FIFO), the lock's hand-off and
// lines protected cache lines moved from the previous holder. With a CPU that is not
// a Locker, a section charges hold alone.
type Locker interface {
	SpinLock(name string, obj any, hold sim.Time, lines int)
}

// Costs are the CPU times (ns, >= 0) of the legacy path's steps, charged through
// Config.CPU. They name the same steps as the blk-mq path's cost table
// (dispatch.CPUCosts), so one table serves both paths of a scenario.
type Costs struct {
	// Merge is one bio merged into a plugged or queued request.
	Merge sim.Time
	// Insert and Elevator are a new request's insertion: __elv_add_request and the
	// scheduler's add_req_fn under queue_lock.
	Insert, Elevator sim.Time
	// Dispatch, HostCheck, TagGet and QueueRq are one request started by request_fn:
	// elv_next_request / blk_start_request, scsi_dev_queue_ready and the host checks,
	// blk_queue_start_tag, and the LLD's queuecommand.
	Dispatch, HostCheck, TagGet, QueueRq sim.Time
	// Completion and TagPut are one request's completion (the BLOCK_SOFTIRQ:
	// scsi_softirq_done … scsi_end_request, blk_queue_end_tag); EndBio each of its
	// bios' ends (bi_end_io and the submitter's completion event).
	Completion, TagPut, EndBio sim.Time
	// IPI is sending a completion to the submitting CPU when the interrupt CPU does
	// not share its cache (__blk_complete_request with QUEUE_FLAG_SAME_COMP).
	IPI sim.Time
	// ElevatorLines is the number of cache lines of the elevator's data (the
	// scheduler's sort trees and FIFOs, the merge hash, the dispatch list) that a
	// queue_lock section working on the elevator moves from the previous holder when
	// the lock changes CPU (dispatch.CPUCosts.ElevatorLines; 0 with a CPU that is not
	// a Locker).
	ElevatorLines int
}

func (c Costs) valid() bool {
	for _, v := range []sim.Time{c.Merge, c.Insert, c.Elevator, c.Dispatch, c.HostCheck, c.TagGet, c.QueueRq,
		c.Completion, c.TagPut, c.EndBio, c.IPI} {
		if v < 0 {
			return false
		}
	}
	return c.ElevatorLines >= 0
}

// IRQOnIssueCPU as Config.IRQCPU completes each command on the CPU whose request_fn
// issued it (a timer armed by queuecommand, as scsi_debug's hrtimer).
const IRQOnIssueCPU = -1

// onCPU makes cpu current (a no-op without Config.CPU).
func (q *Queue) onCPU(cpu int) {
	q.cur = cpu
	if q.cfg.CPU != nil {
		q.cfg.CPU.OnCPU(cpu)
	}
}

// charge charges cost on the current CPU (a no-op without Config.CPU).
func (q *Queue) charge(cost sim.Time) {
	if q.cfg.CPU != nil && cost > 0 {
		q.cfg.CPU.Charge(cost)
	}
}

// queueLock charges one critical section of hold ns under q->queue_lock on the
// current CPU, moving lines lines of the data it protects when the lock changes CPU
// (Locker), or hold alone (a no-op without Config.CPU).
func (q *Queue) queueLock(hold sim.Time, lines int) {
	if q.cfg.CPU == nil {
		return
	}
	if l, ok := q.cfg.CPU.(Locker); ok {
		l.SpinLock("queue_lock", q, hold, lines)
		return
	}
	q.charge(hold)
}

// completionCPU is __blk_complete_request on the interrupt CPU of rq's command: the
// BLOCK_SOFTIRQ runs there when it shares a cache with the submitting CPU (rq->cpu,
// set by blk_queue_bio with rq_affinity=1), else the IPI sends it to rq->cpu.
func (q *Queue) completionCPU(rq *Request) int {
	irq := q.cfg.IRQCPU
	if irq == IRQOnIssueCPU {
		irq = rq.issueCPU
	}
	if irq == rq.cpu || q.cfg.CPU.SameLLC(irq, rq.cpu) {
		return irq
	}
	q.onCPU(irq)
	q.charge(q.cfg.Costs.IPI)
	return rq.cpu
}
