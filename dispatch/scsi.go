package dispatch

import (
	"github.com/blkmq/blkmq/budget"
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// budgetOptions maps the dispatch era switches onto the budget package's.
func (o Options) budgetOptions() budget.Options {
	b := budget.Options{
		RestartEveryCompletion: o.SCSIRestart == RestartEveryCompletion,
		DeviceBusyCounter:      o.DeviceBusyCounter,
		HostBusyCheck:          o.HostBusyCheck,
		BudgetMapSkip:          o.BudgetMapSkip,
	}
	switch o.DevResource {
	case DevResourceIfBusy:
		b.DevResource = budget.DevResourceIfDeviceBusy
	case DevResourceIfOtherBudget:
		b.DevResource = budget.DevResourceIfOtherBudget
	}
	return b
}

// getBudget is scsi_mq_get_budget issued from cpu (budget.Device.GetBudget): a token
// >= 0, or -1 after counting a restart and, if the LUN is idle, delay-running its hctxs.
func (q *Queue) getBudget(cpu int) int {
	token, act := q.sdev.GetBudget(&q.budgetHints[cpu])
	q.chargeBudget(max(token, 0), true)
	if token < 0 {
		q.stats.BudgetFailures++
		q.applyAction(act, cpu)
	}
	return token
}

// putBudget is scsi_mq_put_budget (budget returned without a command sent).
func (q *Queue) putBudget(token, cpu int) {
	q.chargeBudget(token, false)
	q.sdev.PutBudget(token, &q.budgetHints[cpu])
}

// applyAction carries out a queue-run decision of the budget package.
func (q *Queue) applyAction(act budget.Action, cpu int) {
	if act.RunQueues {
		q.stats.CompletionRerun++
		q.runHwQueues(cpu, true)
	}
	if act.Delay > 0 {
		q.delayRunHwQueues(cpu)
	}
	if act.Requeue {
		q.requeueWork.schedule(cpu)
	}
}

// requeueWork is sdev->requeue_work on kblockd (scsi_requeue_run_queue): one pending
// at a time; it runs scsi_run_queue (single-LUN siblings, the host's starved list, then
// this LUN). The runs it yields are issued asynchronously (blk_mq_run_hw_queues with
// async false runs inline only the hctxs of the kworker's CPU).
type requeueWork struct {
	q       *Queue
	cpu     int
	pending bool
}

func (w *requeueWork) schedule(cpu int) {
	if w.pending {
		return
	}
	w.pending, w.cpu = true, cpu
	w.q.eng.After(w.q.host.kblockdDelay(), w)
}

// Fire runs scsi_run_queue.
func (w *requeueWork) Fire(sim.Time) {
	w.pending = false
	w.q.host.onCPU(w.cpu)
	run := w.q.host.bhost.RunQueue(w.q.sdev)
	for d, ok := run.Next(); ok; d, ok = run.Next() {
		if q := w.q.host.byDevice[d]; q != nil {
			q.runHwQueues(w.cpu, true)
		}
	}
}

// queueStatus is the blk_status_t answer of queue_rq.
type queueStatus uint8

const (
	stsOK queueStatus = iota
	stsResource
	stsDevResource
)

func statusOf(s budget.Status) queueStatus {
	switch s {
	case budget.StatusOK:
		return stsOK
	case budget.StatusDevResource:
		return stsDevResource
	}
	return stsResource
}

// queueRq is scsi_queue_rq with the budget already held: target and host readiness
// (budget.Device.Prepare), then the LLD (the device model). A refusal arms the blocked
// counter, puts the budget and answers RESOURCE or DEV_RESOURCE per
// Options.DevResource (case R16).
func (q *Queue) queueRq(rq *Request, cpu int) queueStatus {
	hint := &q.budgetHints[cpu]
	c := &q.host.cpu.c
	q.host.charge(c.Dispatch + c.HostCheck)
	if q.opts.HostBusyCheck {
		q.host.touch(q.host, 0) // the pre-v5.5 host_busy atomic
	}
	if st := q.sdev.Prepare(rq.budgetToken, hint); st != budget.StatusOK {
		q.chargeBudget(rq.budgetToken, false)
		rq.budgetToken = -1
		return statusOf(st)
	}
	cmd := &rq.cmd
	*cmd = device.Command{Op: rq.Op, Offset: rq.Offset, Length: rq.Length, Sync: rq.Sync, Done: q, Priv: rq}
	reject := budget.HostBusy
	q.host.charge(c.QueueRq)
	switch q.cfg.Device.Submit(cmd) {
	case device.Accepted:
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
		return stsOK
	case device.Busy:
		reject = budget.DeviceBusy
	}
	q.chargeBudget(rq.budgetToken, false)
	st := q.sdev.DispatchFailed(reject, rq.budgetToken, hint)
	rq.budgetToken = -1
	return statusOf(st)
}

// Complete receives a command completion from the device (scsi_done →
// scsi_finish_command → scsi_end_request): unbusy the LUN, target and host, end the
// bios, free the request (tags, SCHED_RESTART), then scsi_run_queue_async.
func (q *Queue) Complete(cmd *device.Command, now sim.Time) {
	rq := cmd.Priv.(*Request)
	h := q.host
	if !h.cpu.on {
		q.completeOn(rq, now)
		return
	}
	// The interrupt arrives on the first CPU of the hctx's mask (the vector's effective
	// affinity); with rq_affinity=1 the completion is sent to the submitting CPU unless
	// the two share a cache.
	irq, sub := rq.hctx.cpus[0], rq.ctx.cpu
	rq.compCPU = irq
	if !h.sameLLC(irq, sub) {
		h.onCPU(irq)
		h.charge(h.cpu.c.IPI)
		rq.compCPU = sub
	}
	if t := h.busyUntil(rq.compCPU); t > now {
		rq.compEv.rq = rq
		q.eng.At(t, &rq.compEv) // the CPU finishes its earlier work first
		return
	}
	q.completeOn(rq, now)
}

// completion is a completion deferred until its CPU is free.
type completion struct{ rq *Request }

// Fire runs the deferred completion.
func (c *completion) Fire(now sim.Time) { c.rq.q.completeOn(c.rq, now) }

// completeOn is the completion path proper, on rq.compCPU (or without CPU costs).
func (q *Queue) completeOn(rq *Request, now sim.Time) {
	cpu := rq.ctx.cpu
	q.host.onCPU(rq.compCPU)
	q.host.charge(q.host.cpu.c.Completion)
	q.chargeBudget(rq.budgetToken, false)
	q.sdev.Unbusy(rq.budgetToken, &q.budgetHints[cpu])
	q.sdev.FinishCommand() // scsi_finish_command: clear the blocked countdowns
	rq.budgetToken = -1
	q.endBios(rq, now)
	q.freeRequest(rq)
	q.applyAction(q.sdev.EndRequest(), cpu)
}

// endBios completes every bio of rq (blk_update_request).
func (q *Queue) endBios(rq *Request, now sim.Time) {
	q.stats.Completed++
	for b := rq.bios; b != nil; {
		next := b.next
		b.next, b.rq = nil, nil
		q.host.charge(q.host.cpu.c.EndBio)
		b.End.EndBio(b, now, nil)
		b = next
	}
	rq.bios, rq.biosTail = nil, nil
}
