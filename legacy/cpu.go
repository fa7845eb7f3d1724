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
}

func (c Costs) valid() bool {
	for _, v := range []sim.Time{c.Merge, c.Insert, c.Elevator, c.Dispatch, c.HostCheck, c.TagGet, c.QueueRq,
		c.Completion, c.TagPut, c.EndBio, c.IPI} {
		if v < 0 {
			return false
		}
	}
	return true
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
