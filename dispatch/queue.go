package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// Queue is one request queue (struct request_queue): per-CPU software queues, hardware
// queues, an optional elevator, and the driver (Ops, with its BudgetOps if any).
type Queue struct {
	host     *Host
	eng      *sim.Engine
	opts     Options
	id       int
	cfg      LUNConfig
	cpuHctx  []int
	ctxs     []*Ctx
	hctxs    []*Hctx
	mayWork  []uint64 // bit per hctx: may have pending work (workset.go)
	elevator Elevator
	nrReq    int
	maxBytes int64
	budget   BudgetOps // nil: the driver has no get_budget
	timeout  timeoutWork
	pool     []*Request // free requests

	tq          *tagset.RequestQueue // tag state of the request queue (sched tags, activity)
	nowaitAlloc tagset.TagAlloc      // scratch for REQ_NOWAIT allocations

	stats QueueStats

	// bio splitting (dispatch/split.go): the limits, the longest I/O that never
	// needs a split, and pools of parts and split states
	limits    QueueLimits
	splitFree int64
	partPool  []*Bio
	splitPool []*splitState
	partEnd   splitEnd

	disk diskAcct // disk statistics (dispatch/diskstats.go)

	frz freezeState // q_usage_counter, freezes and sysfs stores (dispatch/freeze.go)
}

// QueueStats are counters of one request queue since creation.
type QueueStats struct {
	Bios            uint64 // bios submitted (SubmitBio calls)
	Dispatched      uint64 // commands accepted by the device
	DispatchedBytes uint64 // bytes of the commands accepted by the device
	Completed       uint64 // requests completed
	BudgetFailures  uint64 // .get_budget failures (scsi_mq_get_budget)
	DriverTagFails  uint64 // driver-tag failures at dispatch
	Merges          uint64 // bios merged into an existing request
	RequeuesBusy    uint64 // requests returned to the dispatch list
	DirectIssues    uint64 // requests issued by blk_mq_try_issue_directly
	Runs            uint64 // __blk_mq_run_hw_queue invocations
	AsyncRuns       uint64 // kblockd runs queued
	DelayedRuns     uint64 // 3 ms delayed runs armed
	CompletionRerun uint64 // completions whose driver re-ran the queue's hctxs
	SplitIOs        uint64 // I/Os cut into several bios (dispatch/split.go)
	SplitParts      uint64 // bios those I/Os became
	SplitNowait     uint64 // REQ_NOWAIT I/Os refused with -EAGAIN because they needed a split
	BatchAllocs     uint64 // batched tag allocations of a plug that got tags (blk_mq_get_tags, dispatch/batchalloc.go)
	BatchTags       uint64 // tags those allocations got
	CachedUsed      uint64 // bios that took a plug's cached request (blk_mq_get_cached_request)
	CachedFreed     uint64 // cached requests freed unused when their plug was finished or flushed from schedule
}

// AddLUN adds a request queue on the tag set (blk_mq_init_queue), served by cfg.Ops;
// it calls Ops.InitHctx for each hardware queue. Errors name the bad field and its
// range, or carry the driver's InitHctx error.
func (h *Host) AddLUN(cfg LUNConfig) (*Queue, error) {
	if cfg.Ops == nil {
		return nil, fmt.Errorf("dispatch: lun %d: driver (Ops) is nil", len(h.queues))
	}
	if cfg.MaxSectorsKB == 0 {
		cfg.MaxSectorsKB = 1280
	}
	if cfg.MaxSectorsKB < 4 || cfg.MaxSectorsKB > 32767 {
		return nil, fmt.Errorf("dispatch: lun %d: max_sectors_kb %d out of range [4, 32767]", len(h.queues), cfg.MaxSectorsKB)
	}
	elvName := cfg.Elevator
	if cfg.NewElevator != nil {
		elvName = "mq-deadline" // same tag layout: sched tags of nr_requests
	}
	elv, err := h.pickElevator(elvName)
	if err != nil {
		return nil, fmt.Errorf("dispatch: lun %d: %w", len(h.queues), err)
	}
	lim := cfg.Limits.withDefaults(cfg.MaxSectorsKB)
	if err := lim.validate(); err != nil {
		return nil, fmt.Errorf("dispatch: lun %d: %w", len(h.queues), err)
	}
	q := &Queue{host: h, eng: h.eng, opts: h.opts, id: len(h.queues), cfg: cfg, maxBytes: lim.mergeBytes(), limits: lim}
	q.splitFree = min(dioBioBytes, q.maxBytes-int64(lim.PhysicalBlockSize-sectorSize))
	q.partEnd.q = q
	q.budget, _ = cfg.Ops.(BudgetOps)
	q.timeout.q = q
	if err := q.initTags(q.opts.schedNrRequests(cfg.NrRequests, elv != ""), elv != ""); err != nil {
		return nil, fmt.Errorf("dispatch: lun %d: %w", len(h.queues), err)
	}
	if q.cpuHctx, err = MapQueues(h.cfg.NrCPUs, h.cfg.NrHwQueues, h.opts.MapQueues); err != nil {
		return nil, err
	}
	q.buildHctxs()
	for _, x := range q.hctxs {
		if err := cfg.Ops.InitHctx(x); err != nil {
			return nil, fmt.Errorf("dispatch: lun %d: init_hctx %d: %w", len(h.queues), x.index, err)
		}
	}
	if elv == "mq-deadline" {
		if cfg.NewElevator != nil {
			q.elevator = cfg.NewElevator(q)
		} else {
			q.elevator = NewMQDeadline(q)
		}
	}
	h.queues = append(h.queues, q)
	return q, nil
}

// pickElevator applies elevator_get_default (ElevatorRule) for "", and the tag set's
// NO_SCHED flags.
func (h *Host) pickElevator(name string) (string, error) {
	switch name {
	case "none":
		return "", nil
	case "mq-deadline":
		if h.cfg.Flags&BlkMqFNoSched != 0 {
			return "", fmt.Errorf("elevator %q: the tag set has BLK_MQ_F_NO_SCHED; allowed: \"none\"", name)
		}
		return name, nil
	case "":
		if h.cfg.Flags&(BlkMqFNoSched|BlkMqFNoSchedByDefault) != 0 {
			return "", nil
		}
		if h.cfg.NrHwQueues == 1 || (h.cfg.HostTagset && h.opts.DefaultElevator == ElevatorSingleQueueOrSharedTags) {
			return "mq-deadline", nil
		}
		return "", nil
	}
	return "", fmt.Errorf("elevator %q not one of \"\", \"none\", \"mq-deadline\"", name)
}

// initTags attaches the queue to the host's tag set (blk_mq_init_allocated_queue):
// scheduler tags with an elevator (per hctx, or one pool per queue with host-wide
// tags), and nr_requests (0 = the kernel default); without an elevator a smaller
// nr_requests shrinks the driver tags (blk_mq_update_nr_requests), for every queue of
// the host when tags are host-wide.
func (q *Queue) initTags(nr int, elevator bool) error {
	tq, err := q.host.ts.AddQueue(tagset.QueueConfig{Elevator: elevator, NrRequests: nr})
	if err != nil {
		return err
	}
	if !elevator && tq.NrRequests() < q.host.cfg.CanQueue {
		if err := tq.UpdateNrRequests(tq.NrRequests()); err != nil {
			return err
		}
	}
	q.tq = tq
	q.nrReq = tq.NrRequests()
	return nil
}

func (q *Queue) buildHctxs() {
	h := q.host
	q.hctxs = make([]*Hctx, h.cfg.NrHwQueues)
	q.mayWork = make([]uint64, (len(q.hctxs)+63)/64)
	for i := range q.hctxs {
		x := &Hctx{q: q, index: i, th: q.tq.Hctx(i)}
		x.runWork.h = x
		x.dispatch.h = x
		x.waitHook.h = x
		x.th.OnTagWake = func(*tagset.Hctx) { x.runAsync() } // blk_mq_dispatch_wake
		q.hctxs[i] = x
	}
	q.ctxs = make([]*Ctx, h.cfg.NrCPUs)
	for cpu := range q.ctxs {
		x := q.hctxs[q.cpuHctx[cpu]]
		c := &Ctx{cpu: cpu, hctx: x, indexHw: len(x.ctxs)}
		x.ctxs = append(x.ctxs, c)
		x.cpus = append(x.cpus, cpu)
		q.ctxs[cpu] = c
	}
	for _, x := range q.hctxs {
		x.ctxMap = make([]bool, len(x.ctxs))
	}
}

// ID returns the LUN index on its host.
func (q *Queue) ID() int { return q.id }

// Hctxs returns the hardware queues.
func (q *Queue) Hctxs() []*Hctx { return q.hctxs }

// Ctx returns the software queue of cpu.
func (q *Queue) Ctx(cpu int) *Ctx { return q.ctxs[cpu] }

// HctxOf returns the hardware queue that serves cpu.
func (q *Queue) HctxOf(cpu int) *Hctx { return q.hctxs[q.cpuHctx[cpu]] }

// NrRequests returns q->nr_requests.
func (q *Queue) NrRequests() int { return q.nrReq }

// ElevatorName returns "none" or the elevator's name.
func (q *Queue) ElevatorName() string {
	if q.elevator == nil {
		return "none"
	}
	return q.elevator.Name()
}

// Elevator returns the attached elevator, nil for none.
func (q *Queue) Elevator() Elevator { return q.elevator }

// Stats returns the queue's counters.
func (q *Queue) Stats() QueueStats { return q.stats }

// HasBudget reports whether the queue's driver has a dispatch budget (BudgetOps).
func (q *Queue) HasBudget() bool { return q.budget != nil }

// allocRequestStruct takes a Request from the pool.
func (q *Queue) allocRequestStruct() *Request {
	n := len(q.pool)
	if n == 0 {
		return &Request{q: q, tag: noTag, internalTag: noTag, budgetToken: -1}
	}
	r := q.pool[n-1]
	q.pool = q.pool[:n-1]
	return r
}

// freeRequestStruct returns r to the pool.
func (q *Queue) freeRequestStruct(r *Request) {
	*r = Request{q: q, tag: noTag, internalTag: noTag, budgetToken: -1}
	q.pool = append(q.pool, r)
}

// Host returns the tag set (host) the queue belongs to.
func (q *Queue) Host() *Host { return q.host }
