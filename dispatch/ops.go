package dispatch

import (
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// Status is the blk_status_t a driver's QueueRQ answers (include/linux/blk_types.h):
// the three values blk_mq_dispatch_rq_list distinguishes.
type Status uint8

const (
	// BlkStsOK is BLK_STS_OK: the driver owns the request and will complete it.
	BlkStsOK Status = iota
	// BlkStsResource is BLK_STS_RESOURCE: the driver is out of a resource that
	// nothing guarantees to free; the core parks the request on hctx->dispatch and
	// re-runs the hctx after BLK_MQ_RESOURCE_DELAY (3 ms) unless a restart is due.
	BlkStsResource
	// BlkStsDevResource is BLK_STS_DEV_RESOURCE: a completion of this device will
	// re-run the queue, so the core arms no delayed run.
	BlkStsDevResource
)

// String returns the kernel name without the BLK_STS_ prefix.
func (s Status) String() string {
	switch s {
	case BlkStsOK:
		return "OK"
	case BlkStsResource:
		return "RESOURCE"
	case BlkStsDevResource:
		return "DEV_RESOURCE"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// TagSetFlags are the BLK_MQ_F_* flags of a blk_mq_tag_set (include/linux/blk-mq.h,
// v6.1). A driver sets them in HostConfig.Flags; the core sets TagQueueShared itself.
type TagSetFlags uint32

const (
	// BlkMqFShouldMerge is BLK_MQ_F_SHOULD_MERGE: bios may merge in the software
	// queues. Every modelled driver sets it; the model merges regardless.
	BlkMqFShouldMerge TagSetFlags = 1 << 0
	// BlkMqFTagQueueShared is BLK_MQ_F_TAG_QUEUE_SHARED: more than one request queue
	// uses the tag set (fair sharing, blk_mq_mark_tag_wait's waitqueue). Set by the
	// core when a second queue is added (blk_mq_update_tag_set_shared); a driver's
	// value is ignored.
	BlkMqFTagQueueShared TagSetFlags = 1 << 1
	// BlkMqFTagHctxShared is BLK_MQ_F_TAG_HCTX_SHARED: one blk_mq_tags for all hctxs
	// (SCSI host_tagset, null_blk shared_tag_bitmap). Same as HostConfig.HostTagset.
	BlkMqFTagHctxShared TagSetFlags = 1 << 3
	// BlkMqFBlocking is BLK_MQ_F_BLOCKING: queue_rq may sleep, so dispatch runs
	// under SRCU and a synchronous run from a submitter is punted to kblockd
	// (__blk_mq_delay_run_hw_queue). Direct issue from the submitter stays inline.
	BlkMqFBlocking TagSetFlags = 1 << 5
	// BlkMqFNoSched is BLK_MQ_F_NO_SCHED: the queue cannot have an I/O scheduler
	// (elevator_init_mq and elevator switches refuse; null_blk no_sched=1).
	BlkMqFNoSched TagSetFlags = 1 << 6
	// BlkMqFNoSchedByDefault is BLK_MQ_F_NO_SCHED_BY_DEFAULT: the default elevator
	// is none, but one may be chosen.
	BlkMqFNoSchedByDefault TagSetFlags = 1 << 7
)

// String lists the set flags by kernel name, e.g. "TAG_HCTX_SHARED|BLOCKING".
func (f TagSetFlags) String() string {
	var out []string
	for _, n := range []struct {
		f    TagSetFlags
		name string
	}{{BlkMqFShouldMerge, "SHOULD_MERGE"}, {BlkMqFTagQueueShared, "TAG_QUEUE_SHARED"},
		{BlkMqFTagHctxShared, "TAG_HCTX_SHARED"}, {BlkMqFBlocking, "BLOCKING"},
		{BlkMqFNoSched, "NO_SCHED"}, {BlkMqFNoSchedByDefault, "NO_SCHED_BY_DEFAULT"}} {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	if len(out) == 0 {
		return "0"
	}
	return strings.Join(out, "|")
}

// TimeoutAction is enum blk_eh_timer_return.
type TimeoutAction uint8

const (
	// BlkEHDone is BLK_EH_DONE: the driver has completed or will complete the request.
	BlkEHDone TimeoutAction = iota
	// BlkEHResetTimer is BLK_EH_RESET_TIMER: restart the request's timer.
	BlkEHResetTimer
)

// Ops is a low-level block driver as blk-mq sees it: the shape of struct blk_mq_ops
// (include/linux/blk-mq.h, v6.1). One value serves one request queue (the kernel's
// ops table is per tag set and reaches its device through q->queuedata; here the
// driver keeps that pointer itself). All methods run on the simulation goroutine, in
// virtual time, on the CPU that the core has made current (Host.OnCPU); cpu arguments
// name the CPU the kernel code runs on. The core never holds a lock across a call:
// in the kernel queue_rq runs inside the hctx's RCU (SRCU with BlkMqFBlocking)
// read-side section with preemption allowed only for blocking drivers.
//
// A driver may also implement BudgetOps (get/put_budget); a driver that does not has
// no dispatch budget, as blk_mq_get_dispatch_budget returns 0 when
// q->mq_ops->get_budget is NULL.
type Ops interface {
	// QueueRQ is .queue_rq: hand rq to the device. Called by
	// blk_mq_dispatch_rq_list (a run of hctx, on the CPU running it: the submitter
	// for a synchronous run, a kblockd worker on a CPU of the hctx otherwise, or with
	// a single hw queue the worker of the CPU that queued the run) or by
	// blk_mq_try_issue_directly / blk_mq_request_issue_directly (the submitting task's
	// CPU, or the plug flush's), with rq's driver tag and its budget token (if the
	// driver has budget) held. last is bd->last: no further request follows in this
	// batch (so the driver may ring its doorbell). On BlkStsOK the driver owns rq
	// until it calls Queue.CompleteRequest; the core counts rq started
	// (blk_mq_start_request: drivers call it inside queue_rq, and a refused request
	// is requeued, which undoes it). On BlkStsResource / BlkStsDevResource the driver
	// must have put rq's budget itself, as scsi_queue_rq does before returning.
	QueueRQ(hctx *Hctx, rq *Request, last bool, cpu int) Status
	// CommitRQs is .commit_rqs: called by blk_mq_dispatch_rq_list on the same CPU
	// after a batch in which at least one request was queued with last == false and
	// the batch then stopped early (the driver was told more would come).
	CommitRQs(hctx *Hctx, cpu int)
	// Complete is .complete: the completion of rq on cpu, called by the core from
	// Queue.CompleteRequest once cpu is chosen (the CPU of the interrupt or timer, or
	// the submitting CPU when rq_affinity sends it there) and free. The driver ends
	// the request with Queue.EndRequest (blk_mq_end_request) and may run queues.
	Complete(rq *Request, cpu int)
	// Timeout is .timeout: called by blk_mq_timeout_work for a started request whose
	// deadline (30 s) passed. Not called in this model yet: the timeout work models
	// only the idle accounting of fair sharing, and no modelled device loses a
	// command.
	Timeout(rq *Request) TimeoutAction
	// InitHctx is .init_hctx: called once per hardware queue by AddLUN
	// (blk_mq_init_hctx), before any I/O, with the hctx's CPUs mapped. An error
	// fails AddLUN.
	InitHctx(hctx *Hctx) error
}

// BudgetOps is the optional dispatch budget of a driver: .get_budget, .put_budget and
// the budget token kept in the request (.set_rq_budget_token / .get_rq_budget_token,
// here Request.BudgetToken). The core detects it once, in AddLUN.
type BudgetOps interface {
	// GetBudget is .get_budget, called by blk_mq_get_dispatch_budget on cpu before a
	// request is taken out of the software queues or the elevator (or before direct
	// issue): a token >= 0 that the core stores in the request, or -1 when the device
	// is out of budget (the driver arranges the re-run: SCSI counts a restart or arms
	// a delayed run).
	GetBudget(q *Queue, cpu int) int
	// PutBudget is .put_budget, called by blk_mq_put_dispatch_budget on cpu when a
	// request that holds token is not sent after all (no request to dequeue, no driver
	// tag, a leftover of a batch). Budgets of sent requests are the driver's to put.
	PutBudget(q *Queue, token, cpu int)
}

// DriverWait is what a driver reports about its own limits for hang reports
// (BioWait); fields a driver does not have stay zero.
type DriverWait struct {
	// HasBudget: the driver has a dispatch budget (BudgetOps).
	HasBudget bool
	// BudgetBusy/QueueDepth are the device's budget in use and its limit;
	// DeviceBlocked is a blocked-device countdown (SCSI device_blocked).
	BudgetBusy, QueueDepth, DeviceBlocked int
	// HostBusy/CanQueue/HostBlocked are the host's commands in flight, its limit
	// (0 = none) and its blocked countdown (SCSI host_busy, can_queue, host_blocked).
	HostBusy, CanQueue, HostBlocked int
	// DeviceInFlight is the number of commands the device model holds.
	DeviceInFlight int
}

// DriverWaiter is implemented by drivers that report DriverWait (optional).
type DriverWaiter interface {
	DriverWait() DriverWait
}

// CompleteRequest is blk_mq_complete_request issued on cpu, the CPU whose interrupt
// or timer saw rq finish (called by the driver, from its device's completion). With
// rq_affinity=1 (QUEUE_FLAG_SAME_COMP, the default) the completion is sent by IPI to
// the submitting CPU (rq's ctx) when cpu does not share its cache, unless the hctx has
// a single ctx (blk_mq_complete_request_remote completes locally then). The
// completion waits for its CPU to finish earlier work, then calls Ops.Complete; under
// Timing.IRQPreempt it interrupts that work instead: it runs once the interrupt work
// already charged to its CPU is done (interrupts do not nest), and a completion sent
// by IPI no earlier than the sending interrupt's end.
func (q *Queue) CompleteRequest(rq *Request, cpu int) {
	h := q.host
	if !h.cpu.on {
		h.onCPU(rq.ctx.cpu)
		q.cfg.Ops.Complete(rq, rq.ctx.cpu)
		return
	}
	sub := rq.ctx.cpu
	rq.compCPU = cpu
	if len(rq.hctx.ctxs) > 1 && !h.sameLLC(cpu, sub) {
		h.onCPU(cpu)
		prev := h.cpu.irq
		if h.timing.IRQPreempt {
			h.cpu.irq = cpu + 1 // the interrupt handler sends the IPI
		}
		h.charge(h.cpu.c.IPI)
		sent := h.pathAt(cpu)
		h.cpu.irq = prev
		rq.compCPU = sub
		if h.timing.IRQPreempt {
			q.completeIRQ(rq, sent)
			return
		}
	}
	q.completeWhenFree(rq, true)
}

// CompleteRequestLocal is a driver completing rq on cpu without blk_mq_complete_request
// (null_blk irqmode=0 ends the request inside queue_rq): no IPI; the completion waits
// for cpu to finish earlier work, then calls Ops.Complete (also under
// Timing.IRQPreempt: it is the submitting task's own work, not an interrupt).
func (q *Queue) CompleteRequestLocal(rq *Request, cpu int) {
	if !q.host.cpu.on {
		q.host.onCPU(rq.ctx.cpu)
		q.cfg.Ops.Complete(rq, rq.ctx.cpu)
		return
	}
	rq.compCPU = cpu
	q.completeWhenFree(rq, false)
}

// completeWhenFree runs rq's completion on rq.compCPU once that CPU has finished its
// earlier work, or in interrupt context when irq is set under Timing.IRQPreempt
// (completeIRQ).
func (q *Queue) completeWhenFree(rq *Request, irq bool) {
	h := q.host
	if irq && h.timing.IRQPreempt {
		q.completeIRQ(rq, q.eng.Now())
		return
	}
	if t := h.busyUntil(rq.compCPU); t > q.eng.Now() {
		rq.compEv.rq, rq.compEv.irq = rq, false
		q.eng.At(t, &rq.compEv) // the CPU finishes its earlier work first
		return
	}
	h.onCPU(rq.compCPU)
	q.cfg.Ops.Complete(rq, rq.compCPU)
}

// completeIRQ runs rq's completion on rq.compCPU in interrupt context
// (Timing.IRQPreempt), no earlier than at: at once when the CPU's interrupt work
// charged so far is done, else when it is (interrupts do not nest: a device's
// interrupt raised while its CPU is in another handler is held pending until that
// handler returns). The task work it interrupts finishes later by its cost
// (sim.CPU.Interrupt).
func (q *Queue) completeIRQ(rq *Request, at sim.Time) {
	h := q.host
	if t := max(at, h.cpu.cpus[rq.compCPU].IRQFreeAt()); t > q.eng.Now() {
		rq.compEv.rq, rq.compEv.irq = rq, true
		q.eng.At(t, &rq.compEv)
		return
	}
	h.onCPU(rq.compCPU)
	prev := h.cpu.irq
	h.cpu.irq = rq.compCPU + 1
	q.cfg.Ops.Complete(rq, rq.compCPU)
	h.cpu.irq = prev
	if prev == 0 {
		h.irqReturn()
	}
}

// completion is a completion deferred until its CPU is free (irq: until its interrupt
// work is done, Timing.IRQPreempt).
type completion struct {
	rq  *Request
	irq bool
}

// Fire runs the deferred completion.
func (c *completion) Fire(now sim.Time) {
	q := c.rq.q
	if c.irq {
		q.completeIRQ(c.rq, now) // later interrupt work may have been charged meanwhile
		return
	}
	q.host.onCPU(c.rq.compCPU)
	q.cfg.Ops.Complete(c.rq, c.rq.compCPU)
}

// EndRequest is blk_mq_end_request, called by the driver from Ops.Complete: end every
// bio of rq (blk_update_request), then free the request (__blk_mq_free_request: driver
// and sched tags, wake-ups, SCHED_RESTART). rq must not be used afterwards.
func (q *Queue) EndRequest(rq *Request) {
	q.endBios(rq, q.eng.Now())
	q.freeRequest(rq)
}

// endBios completes every bio of rq (blk_update_request).
func (q *Queue) endBios(rq *Request, now sim.Time) {
	q.stats.Completed++
	q.disk.done(rq, now) // blk_account_io_done (dispatch/diskstats.go)
	for b := rq.bios; b != nil; {
		next := b.next
		b.next, b.rq = nil, nil
		q.host.charge(q.host.cpu.c.EndBio)
		b.End.EndBio(b, now, nil)
		b = next
	}
	rq.bios, rq.biosTail = nil, nil
}

// getBudget is blk_mq_get_dispatch_budget issued from cpu: the driver's token, 0 for
// a driver without budget, or -1 (counted in QueueStats.BudgetFailures).
func (q *Queue) getBudget(cpu int) int {
	if q.budget == nil {
		return 0
	}
	token := q.budget.GetBudget(q, cpu)
	if token < 0 {
		q.stats.BudgetFailures++
	}
	return token
}

// putBudget is blk_mq_put_dispatch_budget (nothing without a budget).
func (q *Queue) putBudget(token, cpu int) {
	if q.budget != nil {
		q.budget.PutBudget(q, token, cpu)
	}
}

// queueRq calls the driver's QueueRQ and, on BLK_STS_OK, marks rq started
// (blk_mq_start_request: the timeout timer and the queue's counters).
func (q *Queue) queueRq(rq *Request, last bool, cpu int) Status {
	q.host.charge(q.host.cpu.c.Dispatch)
	rq.issueCPU = q.host.cpu.cur
	st := q.cfg.Ops.QueueRQ(rq.hctx, rq, last, cpu)
	if st != BlkStsOK {
		rq.budgetToken = -1 // the driver put it
		return st
	}
	rq.dispatched = true
	q.stats.Dispatched++
	q.stats.DispatchedBytes += uint64(rq.Length)
	rq.hctx.stats.Dispatched++
	now := q.eng.Now()
	for b := rq.bios; b != nil; b = b.next {
		b.IssuedAt = now
		b.DispatchListAt = rq.listTime
	}
	q.timeout.requestStarted(now)
	return BlkStsOK
}

// Driver entry points: what block drivers call in the kernel's core.

// Cmd returns the request's driver data (blk_mq_rq_to_pdu), sized for one
// device.Command; it stays valid until the request is ended.
func (r *Request) Cmd() *device.Command { return &r.cmd }

// BudgetToken returns the budget token the request holds (.get_rq_budget_token), -1
// for none.
func (r *Request) BudgetToken() int { return r.budgetToken }

// SetBudgetToken stores a budget token in the request (.set_rq_budget_token); a
// driver sets -1 once it has put the budget.
func (r *Request) SetBudgetToken(t int) { r.budgetToken = t }

// IssueCPU returns the CPU that ran the driver's QueueRQ for the request (the
// submitter for direct issue, the kblockd or submitting CPU of a queue run).
func (r *Request) IssueCPU() int { return r.issueCPU }

// Hctx returns the hardware queue of the request (rq->mq_hctx).
func (r *Request) Hctx() *Hctx { return r.hctx }

// CPU returns the CPU of the request's software queue (rq->mq_ctx->cpu): the
// submitting CPU.
func (r *Request) CPU() int { return r.ctx.cpu }

// Queue returns the request queue of the request.
func (r *Request) Queue() *Queue { return r.q }

// Queue returns the request queue of the hctx.
func (h *Hctx) Queue() *Queue { return h.q }

// Ops returns the queue's driver.
func (q *Queue) Ops() Ops { return q.cfg.Ops }

// Engine returns the engine the queue runs on.
func (q *Queue) Engine() *sim.Engine { return q.eng }

// Options returns the kernel-era switches of the queue's host.
func (q *Queue) Options() Options { return q.opts }

// RunHwQueues is blk_mq_run_hw_queues(q, async) issued from cpu (a driver's restart):
// with async false an hctx whose cpumask holds cpu runs inline, any other is punted to
// kblockd (HctxStats.Punted), as v6.1's __blk_mq_delay_run_hw_queue does.
func (q *Queue) RunHwQueues(cpu int, async bool) { q.runHwQueues(cpu, async) }

// DelayRunHwQueues is blk_mq_delay_run_hw_queues(q, BLK_MQ_RESOURCE_DELAY) issued from
// cpu: hctxs whose run is already pending are skipped.
func (q *Queue) DelayRunHwQueues(cpu int) { q.delayRunHwQueues(cpu) }

// CountCompletionRerun counts a completion that re-ran the queue's hctxs
// (QueueStats.CompletionRerun), for drivers that restart queues at completion.
func (q *Queue) CountCompletionRerun() { q.stats.CompletionRerun++ }

// OnCPU makes cpu the CPU that runs the path being modelled: a driver calls it when
// its own work item (a timer, a workqueue item) starts.
func (h *Host) OnCPU(cpu int) { h.onCPU(cpu) }

// Charge charges cost (ns) on the current CPU (nothing with CPU costs off).
func (h *Host) Charge(cost sim.Time) { h.charge(cost) }

// Touch charges an access to cache line word of the shared structure obj (any
// comparable key the driver owns) from the current CPU.
func (h *Host) Touch(obj any, word int) { h.touch(obj, word) }

// CostsOn reports whether the host charges CPU costs (CPUModel.Off false).
func (h *Host) CostsOn() bool { return h.cpu.on }

// CurrentCPU returns the CPU running the path being modelled.
func (h *Host) CurrentCPU() int { return h.cpu.cur }

// Costs returns the CPU cost table in use (zero with CPU costs off).
func (h *Host) Costs() CPUCosts {
	if !h.cpu.on {
		return CPUCosts{}
	}
	return h.cpu.c
}

// CostTable returns the CPU cost table in use without copying it (Costs copies the
// whole table on every call), or nil with CPU costs off. The table must not be
// modified.
func (h *Host) CostTable() *CPUCosts {
	if !h.cpu.on {
		return nil
	}
	return &h.cpu.c
}

// KblockdDelay draws the delay (ns) before a kblockd work item queued now runs
// (Timing.KblockdMin..KblockdMax), from the host's seeded stream.
func (h *Host) KblockdDelay() sim.Time { return h.kblockdDelay() }

// ResourceDelay returns BLK_MQ_RESOURCE_DELAY (Timing.ResourceDelay).
func (h *Host) ResourceDelay() sim.Time { return h.timing.ResourceDelay }
