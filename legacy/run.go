package legacy

import (
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

type runEvent struct{ q *Queue }

// Fire is the delayed queue run (blk_delay_queue's kblockd work, on the CPU that
// armed it).
func (e *runEvent) Fire(sim.Time) {
	e.q.delayRun = 0
	e.q.onCPU(e.q.delayCPU)
	e.q.run()
}

// rqEvent carries a request across a latency: issue to the device, the completion
// interrupt after CompletionLatency, or (with Config.CPU) the wait for the completion
// CPU to finish earlier work.
type rqEvent struct {
	q     *Queue
	rq    *Request
	issue bool
	ready bool // the completion CPU is chosen and free: end the request
}

func (e *rqEvent) Fire(now sim.Time) {
	q, rq, issue, ready := e.q, e.rq, e.issue, e.ready
	e.rq = nil
	if issue {
		q.issueEvs = append(q.issueEvs, e)
		q.submitToDevice(rq)
		return
	}
	q.endEvs = append(q.endEvs, e)
	if q.cfg.CPU != nil && !ready {
		rq.compCPU = q.completionCPU(rq)
		if t := q.cfg.CPU.CPUFreeAt(rq.compCPU); t > now {
			e := q.newEvent(&q.endEvs, rq, false)
			e.ready = true
			q.eng.At(t, e) // the CPU finishes its earlier work first
			return
		}
	}
	q.endRequest(rq)
}

func (q *Queue) newEvent(pool *[]*rqEvent, rq *Request, issue bool) *rqEvent {
	var e *rqEvent
	if n := len(*pool); n > 0 {
		e = (*pool)[n-1]
		*pool = (*pool)[:n-1]
	} else {
		e = &rqEvent{q: q}
	}
	e.rq, e.issue, e.ready = rq, issue, false
	return e
}

// Run models blk_run_queue: call request_fn now.
func (q *Queue) Run() { q.run() }

// run models __blk_run_queue → scsi_request_fn.
func (q *Queue) run() {
	q.accountStats()
	q.queueLock(0, 0) // __blk_run_queue runs request_fn with queue_lock held
	for {
		rq := q.peek()
		if rq == nil {
			return
		}
		// scsi_dev_queue_ready: device_busy < queue_depth.
		if q.busy >= q.cfg.QueueDepth {
			return
		}
		if !q.startTag(rq) {
			q.st.TagRefusals[idx(rq.sync)]++
			if q.busy == 0 && q.delayRun == 0 {
				q.delayRun = q.eng.After(ScsiQueueDelay, &q.runEv)
				q.delayCPU = q.cur
			}
			return
		}
		// elv_next_request, blk_queue_start_tag and blk_start_request under
		// queue_lock; scsi_request_fn drops it for the host checks and queuecommand.
		c := &q.cfg.Costs
		q.queueLock(c.Dispatch+c.TagGet, c.ElevatorLines)
		q.charge(c.HostCheck + c.QueueRq)
		rq.issueCPU = q.cur
		q.busy++
		if q.cfg.IssueLatency == 0 {
			if !q.submitToDevice(rq) {
				return
			}
			continue
		}
		q.eng.After(q.cfg.IssueLatency, q.newEvent(&q.issueEvs, rq, true))
	}
}

// peek models blk_peek_request → elv_next_request: the head of the dispatch list,
// refilled from the scheduler's dispatch function when empty (the request leaves
// the hash and last_merge: it can no longer merge).
func (q *Queue) peek() *Request {
	if len(q.dispatch) == 0 {
		rq := q.elv.Dispatch(q.eng.Now())
		if rq == nil {
			return nil
		}
		q.unhash(rq)
		if q.lastMerge == rq {
			q.lastMerge = nil
		}
		rq.where = inDispatch
		q.dispatch = append(q.dispatch, rq)
	}
	return q.dispatch[0]
}

// startTag models blk_queue_start_tag (lowest free tag; async limited by the
// formula of PreA6b3f7614ca6) and, on success, blk_start_request (the request
// leaves the dispatch list). On refusal the request stays at the head of the
// dispatch list (scsi_request_fn's requeue), to be retried by the next run.
func (q *Queue) startTag(rq *Request) bool {
	tag, ok := q.tags.StartTag(!rq.sync)
	if !ok {
		return false
	}
	rq.tag = tag
	rq.where = inDevice
	rq.started = q.eng.Now()
	for _, b := range rq.bios {
		b.IssuedAt = rq.started
	}
	q.dispatch[0] = nil
	q.dispatch = q.dispatch[1:]
	q.countStart(rq, 1)
	return true
}

// countStart adds (n = 1) or removes (n = -1) a started request in the stats.
func (q *Queue) countStart(rq *Request, n int) {
	q.st.Started[idx(rq.sync)] += uint64(n)
	if rq.op == device.OpWrite {
		q.st.WriteCmds += uint64(n)
		q.st.WriteCmdBytes += int64(n) * rq.length
	} else {
		q.st.ReadCmds += uint64(n)
		q.st.ReadCmdBytes += int64(n) * rq.length
	}
}

func (q *Queue) uncountStart(rq *Request) { q.countStart(rq, -1) }

// submitToDevice is the driver's queuecommand. A device that answers busy gets
// the request back at the head of the dispatch list, its tag freed, and a delayed
// run after ScsiQueueDelay (scsi_queue_insert with SCSI_MLQUEUE_DEVICE_BUSY,
// simplified: no device_blocked countdown). It reports whether the device took it.
func (q *Queue) submitToDevice(rq *Request) (accepted bool) {
	rq.cmd = device.Command{Op: rq.op, Offset: rq.offset, Length: rq.length, Sync: rq.sync,
		Done: q, ID: rq.seq, Priv: rq}
	if q.dev.Submit(&rq.cmd) == device.Accepted {
		return true
	}
	q.accountStats()
	q.tags.EndTag(rq.tag)
	rq.tag = -1
	q.busy--
	rq.where = inDispatch
	q.dispatch = append([]*Request{rq}, q.dispatch...)
	q.st.DeviceBusy++
	q.uncountStart(rq)
	if q.delayRun == 0 {
		q.delayRun = q.eng.After(ScsiQueueDelay, &q.runEv)
		q.delayCPU = rq.issueCPU
	}
	return false
}

// Complete implements device.Completer: the request ends after CompletionLatency.
func (q *Queue) Complete(cmd *device.Command, now sim.Time) {
	rq := cmd.Priv.(*Request)
	q.eng.At(now+q.cfg.CompletionLatency, q.newEvent(&q.endEvs, rq, false))
}

// endRequest models scsi_end_request: blk_queue_end_tag, the in-flight
// decrement, bio completions (bi_end_io), freeing the request (which may wake a
// task sleeping for one), then scsi_run_queue → request_fn. With Config.CPU it runs
// on the completion CPU (completionCPU), so the request_fn run it makes is charged
// there too.
func (q *Queue) endRequest(rq *Request) {
	if q.cfg.CPU != nil {
		q.onCPU(rq.compCPU)
		q.charge(q.cfg.Costs.Completion)
		q.queueLock(q.cfg.Costs.TagPut, 0) // blk_finish_request under queue_lock
	}
	q.accountStats()
	q.tags.EndTag(rq.tag)
	rq.tag = -1
	q.busy--
	now := q.eng.Now()
	k := idx(rq.sync)
	q.st.Completed[k]++
	q.st.CompletedBytes[rq.op] += rq.length
	q.st.ServiceNs[rq.op] += now - rq.started
	q.st.CompletedCmds[rq.op]++
	for _, b := range rq.bios {
		q.charge(q.cfg.Costs.EndBio)
		b.End.EndIO(b, now)
	}
	q.freeRequest(rq)
	q.run()
}
