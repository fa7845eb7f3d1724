package dispatch

// plugFlushBytes is BLK_PLUG_FLUSH_SIZE: a plug whose last request is at least this
// large is flushed before another request is added.
const plugFlushBytes = 128 << 10

// Plug is a task's block plug (struct blk_plug, block/blk-core.c blk_start_plug): new
// requests are held in a list and issued together when the plug is finished, when it
// reaches BLK_MAX_REQUEST_COUNT requests or a 128 KiB request, or when the task sleeps
// in blk_mq_get_tag (a flush "from schedule", which inserts and runs asynchronously).
// io_uring plugs a submission of more than two SQEs, libaio an io_submit of more than
// two iocbs (AIO_PLUG_THRESHOLD). A Plug is owned by one task; the zero value is an
// inactive plug.
type Plug struct {
	list   rqList
	active bool
	nrIOs  int
	queues int // distinct request queues in the list (plug->multiple_queues)
	last   *Queue
	cbs    []PlugCallback // plug->cb_list
	cached rqList         // plug->cached_rq: spare requests of a batched allocation (dispatch/batchalloc.go)
}

// PlugCallback is an unplug callback on a task's plug (struct blk_plug_cb on
// plug->cb_list, added with blk_check_plugged): a driver, or a request queue of
// another kind (a legacy single-queue LUN), that holds requests of its own under the
// task's plug and issues them when the plug is flushed (flush_plug_callbacks).
type PlugCallback interface {
	// Unplug is called once when the plug is finished (fromSchedule false) or
	// flushed because its task sleeps (true), on cpu, the task's CPU.
	Unplug(cpu int, fromSchedule bool)
}

// AddCallback adds cb to the plug's callback list unless it is on it already
// (blk_check_plugged). Callbacks run in the order added, before the plug's own
// requests are issued, and leave the list as they run. It panics on an inactive plug.
func (p *Plug) AddCallback(cb PlugCallback) {
	if !p.Active() {
		panic("dispatch: Plug.AddCallback on an inactive plug")
	}
	for _, c := range p.cbs {
		if c == cb {
			return
		}
	}
	p.cbs = append(p.cbs, cb)
}

// flushCallbacks is flush_plug_callbacks: run and remove every callback.
func (p *Plug) flushCallbacks(cpu int, fromSchedule bool) {
	for len(p.cbs) > 0 {
		cb := p.cbs[0]
		p.cbs = append(p.cbs[:0], p.cbs[1:]...)
		cb.Unplug(cpu, fromSchedule)
	}
}

// Start begins plugging for a batch of nrIOs I/Os (blk_start_plug_nr_ios). It panics
// if the plug is already active.
func (p *Plug) Start(nrIOs int) {
	if p.active {
		panic("dispatch: Plug.Start of an active plug")
	}
	cbs := p.cbs[:0]
	*p = Plug{active: true, nrIOs: nrIOs, cbs: cbs}
}

// Active reports whether the plug is started.
func (p *Plug) Active() bool { return p != nil && p.active }

// Len returns the number of plugged requests.
func (p *Plug) Len() int { return p.list.n }

// Finish flushes the plug and ends it (blk_finish_plug); cpu is the task's CPU.
func (p *Plug) Finish(cpu int) {
	p.flushCallbacks(cpu, false)
	if rq := p.list.head; rq != nil {
		rq.q.host.onCPU(cpu)
	}
	p.flush(cpu, false)
	p.releaseCached(cpu)
	p.active = false
}

// FlushFromSchedule is blk_flush_plug(plug, true) as io_schedule_prepare calls it when
// the plug's task goes to sleep holding the plug (a synchronous direct write to a
// block device waits for its bio in submit_bio_wait inside blkdev_write_iter's plug):
// the callbacks run, the requests are inserted into their software queues or
// elevators and their hctxs run asynchronously (blk_mq_flush_plug_list with
// from_schedule: no direct issue), and the cached requests are freed
// (__blk_flush_plug). The plug stays active; cpu is the task's CPU. Nothing happens
// on an inactive plug.
func (p *Plug) FlushFromSchedule(cpu int) {
	if !p.Active() {
		return
	}
	if rq := p.list.head; rq != nil {
		rq.q.host.onCPU(cpu)
	}
	p.flush(cpu, true)
	p.releaseCached(cpu)
}

// add is blk_add_rq_to_plug: flush first if the plug is full or its last request is
// large, then append.
func (p *Plug) add(rq *Request, cpu int) {
	q := rq.q
	if p.list.n >= q.opts.maxPlugRequests() || p.list.tail != nil && p.list.tail.Length >= plugFlushBytes {
		p.flush(cpu, false)
	}
	if p.last != q {
		p.queues++
		p.last = q
	}
	rq.plugged = true
	p.list.pushBack(rq)
}

// merge is blk_attempt_plug_merge: the last plugged request of the same queue.
func (p *Plug) merge(q *Queue, b *Bio) bool {
	rq := p.list.tail
	if rq == nil || rq.q != q {
		return false
	}
	switch rq.canMerge(b, q.maxBytes) {
	case backMergeKind:
		rq.backMerge(b)
	case frontMergeKind:
		rq.frontMerge(b)
	default:
		return false
	}
	q.stats.Merges++
	q.disk.merge(b.Op) // blk_account_io_merge_bio (dispatch/diskstats.go)
	b.AllocatedAt = q.eng.Now()
	return true
}

// flush is blk_mq_flush_plug_list: without an elevator and from a single queue, issue
// directly until the first refusal (that request goes to hctx->dispatch); the rest are
// inserted per hctx and the hctxs run (asynchronously when flushed from schedule).
func (p *Plug) flush(cpu int, fromSchedule bool) {
	if fromSchedule {
		p.flushCallbacks(cpu, true)
	}
	if p.list.empty() {
		return
	}
	var list rqList
	list.spliceTail(&p.list)
	p.queues, p.last = 0, nil
	first := list.head.q
	for rq := list.head; rq != nil; rq = rq.next {
		rq.plugged = false
	}
	if p.queuesOf(&list) == 1 && first.elevator == nil && !fromSchedule && !first.opts.PlugFlushInsert {
		for rq := list.popFront(); rq != nil; rq = list.popFront() {
			if !first.issueDirectBypass(rq, cpu, list.empty()) {
				break
			}
		}
	}
	for rq := list.popFront(); rq != nil; rq = list.popFront() {
		h := rq.hctx // rq may be merged away and freed by the insert
		rq.q.insertRequest(rq, false)
		if list.head == nil || list.head.hctx != h {
			h.runHwQueue(fromSchedule)
		}
	}
}

func (p *Plug) queuesOf(list *rqList) int {
	for rq := list.head; rq != nil; rq = rq.next {
		if rq.q != list.head.q {
			return 2
		}
	}
	return 1
}

// issueDirectBypass is blk_mq_request_issue_directly from a plug flush: budget, driver
// tag, queue_rq; on any refusal the request goes to the tail of hctx->dispatch (run if
// it was the last) and false is returned.
func (q *Queue) issueDirectBypass(rq *Request, cpu int, last bool) bool {
	h := rq.hctx
	if token := q.getBudget(cpu); token >= 0 {
		rq.budgetToken = token
		if q.getDriverTag(rq) {
			q.stats.DirectIssues++
			if q.queueRq(rq, last, cpu) == BlkStsOK {
				h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, false)
				return true
			}
			h.dispatchBusy = updateDispatchBusy(h.dispatchBusy, true)
			q.putDriverTag(rq)
		} else {
			q.putBudget(token, cpu)
		}
		rq.budgetToken = -1
	}
	rq.markDispatchList(q.eng.Now())
	h.lockDispatch()
	h.dispatch.pushBack(rq) // blk_mq_request_bypass_insert
	if last {
		h.runHwQueue(false)
	}
	return false
}
