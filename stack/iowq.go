package stack

import (
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// worker is one bounded io-wq worker of a job's ring (io_uring/io-wq.c): it runs
// punted requests one at a time with blocking submission, on whatever CPU the
// scheduler gives it (workers are not pinned to the ring owner's CPU).
type worker struct {
	j        *job
	cpu      int
	tw       dispatch.TagWaiter
	plug     dispatch.Plug // the submitting call's own plug (iomap's per-dio plug, blkdev_write_iter's)
	busy     bool          // running or sleeping with an item (not on the idle list)
	placed   bool          // a CPU was drawn (StickyWorkers keeps it)
	sleeping bool
	recent   int      // 1 + p->recent_used_cpu (select_idle_sibling); 0 = none
	ranUntil sim.Time // its CPU's work when it last ran (stillRunning)
	// woken: the worker was woken (or created) for an item and has not run yet; its
	// side of the wake-up (CPUCosts.Switch) is charged when it does
	woken bool
	// current: the worker's last step queued a request on its CPU and it goes on
	// to its next item as the running task (unless SubmitTiming.IOWQWorkerYields)
	current bool
	step    workerStep
	// idle balance of a worker waiting for its CPU (Placement.WorkerIdleBalance)
	rqSeq     uint64   // bumped at each run-queue wait; a stale queue entry is skipped
	rqWait    bool     // waiting in a CPU's run queue
	waitSince sim.Time // when the current wait began
}

// workerBalance is the idle-balance check of a worker waiting in a run queue.
type workerBalance struct {
	w   *worker
	seq uint64
}

// Fire pulls the waiting worker to an idle CPU if the balance allows it now, or
// arms the next check.
func (b *workerBalance) Fire(now sim.Time) {
	w := b.w
	if !w.rqWait || w.rqSeq != b.seq {
		return
	}
	if c := w.balancePull(now); c >= 0 {
		w.rqWait = false
		w.rqSeq++ // its entry in the old CPU's queue is now stale
		w.cpu = c
		w.j.chargeSwitch(c) // the pulled worker is switched in on its new CPU
		w.j.r.mmRun(w.j.q, c, w.j.mm)
		w.run(now)
		return
	}
	w.armBalance(now)
}

type workerStep struct{ w *worker }

// Fire runs the worker's next step.
func (s *workerStep) Fire(now sim.Time) { s.w.run(now) }

// punt hands u to io-wq after -EAGAIN (io_queue_async_work): wake a free worker or
// create one if below the bound.
func (j *job) punt(u *ioU) {
	j.backlog.push(u)
	j.activateWorker()
}

// NativeIOQueueAsync is a basis for SubmitTiming.IOQueueAsync, 300 ns native
// (assumed; plausible range 150-600 ns): the unwinding of a REQ_NOWAIT bio that
// found no tag (bio_endio of the failed bio, unpinning its pages, the REQ_F_REISSUE
// completion) and io_uring's hand-off (io_setup_async_rw's allocation and copy,
// io_queue_iowq, io_wq_enqueue under wqe->lock) are a few short kernel functions,
// each of the order of a slab allocation or a locked list insert (50-100 ns on a
// current x86 core). Not a default: the model charges nothing unless it is set.
const NativeIOQueueAsync = 300 * sim.Nanosecond

// chargeIOQueueAsync charges the -EAGAIN hand-off of one io_uring submission to
// io-wq (SubmitTiming.IOQueueAsync) on the submitting CPU, after the failed
// attempt's submission cost.
func (j *job) chargeIOQueueAsync() {
	if c := j.r.sub.IOQueueAsync; c > 0 {
		h := j.q.Host()
		h.OnCPU(j.runCPU)
		h.Charge(c)
	}
}

// activateWorker is io_wqe_activate_free_worker / io_wqe_create_worker.
func (j *job) activateWorker() {
	var w *worker
	if n := len(j.idle); n > 0 {
		w = j.idle[n-1]
		j.idle = j.idle[:n-1]
	} else if len(j.workers) < j.maxWorkers {
		w = &worker{j: j}
		w.step.w = w
		w.tw.S = w
		w.tw.Plug = &w.plug
		j.workers = append(j.workers, w)
	} else {
		return
	}
	if w.busy = true; !j.r.sub.StickyWorkers || !w.placed {
		w.cpu = j.placeWorker(w, j.runCPU, true, !w.placed)
		w.placed = true
	}
	if j.switchCost() > 0 {
		// io_wqe_activate_free_worker → wake_up_process (or create_io_worker's
		// wake_up_new_task) on the submitting CPU; the worker's own side is charged
		// when it runs
		h := j.q.Host()
		h.Charge(h.CostTable().Wakeup)
		w.woken = true
	}
	j.r.eng.After(j.r.rnd.Uniform(j.r.sub.ReapMin, j.r.sub.ReapMax), &w.step)
}

// run processes the next work item, once the worker's CPU has finished the work
// charged to it so far (the previous item's submission cost included): like the fio
// thread's loop, a worker submits on its CPU one item after the other. It waits in
// the CPU's run queue for the CPU to be idle.
func (w *worker) run(now sim.Time) {
	j := w.j
	if w.woken {
		w.woken = false
		j.chargeSwitch(w.cpu)
		j.r.mmRun(j.q, w.cpu, j.mm) // the ring owner's address space (stack/mmswitch.go)
	}
	// the running worker's own work is all its CPU holds: it stays the running
	// task and goes on (unless SubmitTiming.IOWQWorkerYields)
	keeps := !j.r.sub.IOWQWorkerYields && w.current && w.ranUntil >= j.q.Host().CPUFreeAt(w.cpu)
	w.current = false
	if t := j.q.Host().CPUFreeAt(w.cpu); t > now && !j.backlog.empty() && !keeps {
		if w.balances() {
			if !w.rqWait {
				w.waitSince = now
			}
			if c := w.balancePull(now); c >= 0 {
				w.rqWait = false
				w.cpu = c
				j.chargeSwitch(c)
				j.r.mmRun(j.q, c, j.mm)
				w.run(now)
				return
			}
		}
		w.rqSeq++
		w.rqWait = true
		j.r.cpuRunQueue(w.cpu).enqueue(w, t)
		if w.balances() {
			w.armBalance(now)
		}
		return
	}
	w.rqWait = false
	u := j.backlog.pop()
	if u == nil {
		w.busy = false
		j.chargeSwitch(w.cpu) // io_wqe_worker waits for work: switched away from
		j.idle = append(j.idle, w)
		return
	}
	if j.callPlug(u) {
		w.plug.Start(1) // __iomap_dio_rw or blkdev_write_iter holds a plug around the submission
	}
	switch j.q.SubmitBioPlug(&u.bio, w.cpu, false, &w.tw, &w.plug) {
	case dispatch.Sleeping:
		w.sleeping = true
		w.ranUntil = j.r.taskRan(w.cpu)
		j.sleep(w.cpu)
		if !j.backlog.empty() {
			j.activateWorker() // io_wq_worker_sleeping: keep the pool busy
		}
		return
	case dispatch.Merged:
		j.wait.merged++
	}
	w.finishPlug()
	w.ranUntil = j.r.taskRan(w.cpu) // the worker ran on its CPU (PlaceFair's idle test)
	w.current = true
	j.r.eng.After(j.r.sub.WorkerStep, &w.step)
}

// runQueue is the io-wq workers waiting for one simulated CPU to go idle, first
// come first served. A worker yields its CPU to the work already charged on it
// (completions, queue runs, other tasks' submissions): it runs its next item when the
// CPU is idle. Only the queue's head watches the CPU — one event each time the
// CPU's work ends, whatever the number of waiters — instead of every waiter
// re-checking a busy CPU with an event of its own.
type runQueue struct {
	r       *runner
	cpu     int
	waiting []rqEntry
	head    int
	armed   bool
}

// rqEntry is one wait of a worker in a run queue (seq: the worker's rqSeq then).
type rqEntry struct {
	w   *worker
	seq uint64
}

// cpuRunQueue returns cpu's run queue, creating it on first use.
func (r *runner) cpuRunQueue(cpu int) *runQueue {
	if r.runq == nil {
		r.runq = make([]*runQueue, r.cfg.NrCPUs)
	}
	q := r.runq[cpu]
	if q == nil {
		q = &runQueue{r: r, cpu: cpu}
		r.runq[cpu] = q
	}
	return q
}

// enqueue adds w behind the waiting workers; the CPU is checked again at t, when its
// current work is done.
func (q *runQueue) enqueue(w *worker, t sim.Time) {
	q.waiting = append(q.waiting, rqEntry{w, w.rqSeq})
	if !q.armed {
		q.armed = true
		q.r.eng.At(t, q)
	}
}

// Fire runs waiting workers, oldest first, while the CPU is idle, and watches it
// again when it is busy.
func (q *runQueue) Fire(now sim.Time) {
	q.armed = false
	host := q.r.queues[0].Host()
	for q.head < len(q.waiting) {
		if t := host.CPUFreeAt(q.cpu); t > now {
			q.armed = true
			q.r.eng.At(t, q)
			return
		}
		e := q.waiting[q.head]
		q.waiting[q.head] = rqEntry{}
		q.head++
		if e.w.rqSeq != e.seq || !e.w.rqWait {
			continue // the idle balance pulled this worker away
		}
		e.w.run(now)
	}
	q.waiting, q.head = q.waiting[:0], 0
}

// balances reports whether the idle balance may pull the worker
// (Placement.WorkerIdleBalance under PlaceFair; not with the sensitivity switches
// that fix a worker's CPU).
func (w *worker) balances() bool {
	j := w.j
	return j.place.WorkerIdleBalance && !j.place.random() && !j.r.sub.StickyWorkers &&
		!j.r.sub.WorkersOnOwnerCPU && j.r.cfg.NrCPUs > 1
}

// eligibleAt is the first tick at which the waiting worker is no longer cache-hot
// (task_hot: it has waited the migration cost).
func (w *worker) eligibleAt() sim.Time {
	tick := w.j.place.tick()
	return (w.waitSince + w.j.place.migrationCost() + tick - 1) / tick * tick
}

// waitersOn is the number of workers (of any ring) waiting in cpu's run queue.
func (r *runner) waitersOn(cpu int) int {
	q := r.cpuRunQueue(cpu)
	n := 0
	for _, e := range q.waiting[q.head:] {
		if e.w.rqWait && e.w.rqSeq == e.seq {
			n++
		}
	}
	return n
}

// balancePull returns the idle CPU that pulls the waiting worker at now, or −1: none
// before it stops being cache-hot; then the first CPU after its own, wrapping, with
// no modelled task and no charged work.
func (w *worker) balancePull(now sim.Time) int {
	if now < w.eligibleAt() {
		return -1
	}
	r := w.j.r
	return firstAfter(w.cpu, r.sched().all, func(c int) bool {
		return r.schedIdle(c, now) && r.host.CPUFreeAt(c) <= now
	})
}

// armBalance schedules the waiting worker's next balance check: its eligibility
// tick, then every tick (nohz idle balance), or earlier, when another worker waits
// on its CPU (rd->overload), at the first instant another CPU's work ends
// (newidle_balance).
func (w *worker) armBalance(now sim.Time) {
	r := w.j.r
	tick := w.j.place.tick()
	at := max(w.eligibleAt(), (now+tick)/tick*tick)
	if r.waitersOn(w.cpu) > 1 {
		from := max(now+1, w.waitSince+w.j.place.migrationCost())
		s := r.sched()
		for _, c := range s.all {
			if c == w.cpu {
				continue
			}
			if f := max(r.host.CPUFreeAt(c), s.taskUntil[c]); f >= from && f < at {
				at = f
			}
		}
	}
	r.eng.At(at, &workerBalance{w: w, seq: w.rqSeq})
}

// finishPlug flushes and ends the worker's per-dio plug, if any (blk_finish_plug).
func (w *worker) finishPlug() {
	if w.plug.Active() {
		w.plug.Finish(w.cpu)
	}
}

// Woken: unless Placement.PlaceWhenRun, try_to_wake_up places the worker woken
// from blk_mq_get_tag on a CPU the scheduler picks (stack/placement.go).
func (w *worker) Woken(waker int) {
	if w.j.place.atWakeup() && !w.j.r.sub.StickyWorkers {
		w.cpu = w.j.placeWorker(w, waker, false, false)
	}
}

// RunCPU: the CPU a woken worker runs on, as Woken placed it (its last CPU with
// Placement.PlaceWhenRun, which places it only when it runs).
func (w *worker) RunCPU() int { return w.cpu }

// WakeCPU: a woken worker runs on a CPU the scheduler picks (when woken by default,
// or now with Placement.PlaceWhenRun).
func (w *worker) WakeCPU(sim.Time) int {
	if !w.j.place.atWakeup() && !w.j.r.sub.StickyWorkers {
		w.cpu = w.j.placeWorker(w, w.tw.WakerCPU(), false, false)
	}
	w.j.chargeSwitch(w.cpu)
	w.j.r.mmRun(w.j.q, w.cpu, w.j.mm) // the ring owner's address space (stack/mmswitch.go)
	return w.cpu
}

// Unblocked: the worker's request is queued; it takes the next item.
func (w *worker) Unblocked(_ *dispatch.Bio, now sim.Time) {
	w.sleeping = false
	w.j.sleepers--
	w.finishPlug()
	if !w.j.r.sub.IOWQWorkerYields {
		w.ranUntil = w.j.r.taskRan(w.cpu) // its retry ran on its CPU
		w.current = true
	}
	w.j.r.eng.After(w.j.r.sub.WorkerStep, &w.step)
}
