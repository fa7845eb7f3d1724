package legacy

import "github.com/blkmq/blkmq/device"

// Plug is a task's plug (struct blk_plug): requests collected while the task
// submits a batch, inserted into the elevator together when the plug is flushed.
// A plug serves one queue here.
type Plug struct {
	q    *Queue
	list []*Request
	cpu  int // the task's CPU at its last SubmitBio (Bio.CPU): flushes run there
}

// StartPlug models blk_start_plug for the calling task on q.
func (q *Queue) StartPlug() *Plug { return &Plug{q: q} }

// Len returns the number of requests held by the plug.
func (p *Plug) Len() int { return len(p.list) }

// Finish models blk_finish_plug: flush the plug. The plug may be reused.
func (p *Plug) Finish() { p.Flush() }

// Flush models blk_flush_plug_list: insert every plugged request into the
// elevator (ELEVATOR_INSERT_SORT_MERGE: try to merge it behind a queued request
// first), then run the queue (queue_unplugged). It is also what happens when the
// task sleeps with a plug (blk_schedule_flush_plug).
func (p *Plug) Flush() {
	if len(p.list) == 0 {
		return
	}
	q := p.q
	q.onCPU(p.cpu)
	for i, rq := range p.list {
		p.list[i] = nil
		rq.plugged = nil
		if !q.attemptInsertMerge(rq) {
			q.elvAdd(rq)
		}
	}
	p.list = p.list[:0]
	q.st.Unplugs++
	q.run()
}

// attemptMerge models blk_attempt_plug_merge: walk the plug list from the newest
// request, counting this queue's requests, and merge the bio into the first one it
// is contiguous with (if the limits allow). It returns whether the bio merged and
// the count of requests looked at.
func (p *Plug) attemptMerge(b *Bio) (bool, int) {
	n := 0
	for i := len(p.list) - 1; i >= 0; i-- {
		rq := p.list[i]
		n++
		if k := tryMerge(rq, b); k != noMerge && p.q.attemptBioMerge(rq, b, k) {
			p.q.st.PlugMerges++
			p.q.charge(p.q.cfg.Costs.Merge)
			return true, n
		}
	}
	return false, n
}

// SubmitBio models generic_make_request → blk_queue_bio for one bio of a task
// whose plug is plug (nil: no plug). In order: merge into a plugged request; merge
// into a queued request through elv_merge; otherwise allocate a request — if the
// class's pool holds nr_requests the task would sleep, so SubmitBio flushes the
// plug, leaves the bio unsubmitted and returns blocked = true (call WaitRequest
// and resubmit when woken). A new request goes to the plug (flushing it first when
// it holds BlkMaxRequestCount) or, without a plug, into the elevator followed by a
// queue run.
//
// It panics on a malformed bio or one above the queue limits (callers split bios).
func (q *Queue) SubmitBio(b *Bio, plug *Plug) (blocked bool) {
	q.checkBio(b)
	q.accountStats()
	q.onCPU(b.CPU)
	if plug != nil {
		plug.cpu = b.CPU
	}
	count := 0
	if !q.cfg.NoMerges {
		if plug != nil {
			var ok bool
			if ok, count = plug.attemptMerge(b); ok {
				return false
			}
		}
		// blk_queue_bio takes queue_lock for elv_merge, get_request and (without a
		// plug) the insertion and queue run.
		if rq, k := q.elvMerge(b); rq != nil && q.attemptBioMerge(rq, b, k) {
			q.queueLock(q.cfg.Costs.Merge, q.cfg.Costs.ElevatorLines)
			q.mergedBio(rq, k)
			return false
		}
		q.queueLock(0, q.cfg.Costs.ElevatorLines)
	}
	sync := b.Sync || b.Op == device.OpRead
	if !q.mayAllocate(sync) {
		q.st.RequestSleeps++
		if plug != nil {
			plug.Flush()
		}
		return true
	}
	rq := q.allocRequest(b)
	if plug == nil {
		q.elvAdd(rq)
		q.run()
		return false
	}
	if count >= BlkMaxRequestCount {
		plug.Flush()
	}
	rq.where, rq.plugged = inPlug, plug
	plug.list = append(plug.list, rq)
	return false
}

// elvAdd models __elv_add_request(ELEVATOR_INSERT_SORT): hash, scheduler add,
// last_merge.
func (q *Queue) elvAdd(rq *Request) {
	q.queueLock(q.cfg.Costs.Insert+q.cfg.Costs.Elevator, q.cfg.Costs.ElevatorLines)
	rq.where = inElevator
	q.hash[rq.end()] = rq
	q.elv.Add(rq, q.eng.Now())
	q.lastMerge = rq
}
