package stack

import (
	"math/bits"
	"time"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// ioU is one fio I/O unit (struct io_u) with its bio.
type ioU struct {
	bio      dispatch.Bio
	job      *job
	submitAt sim.Time // fio's start_time: the io_u was prepared (get_io_u)
	issuedAt sim.Time // fio's issue_time: when the submitting syscall returned
	doneAt   sim.Time // the block layer completed it (fio reaps it later)
	punted   bool     // went through io-wq (or slept in blk_mq_get_tag)
	inFlight bool     // submitted, not yet completed by the block layer (watchdog)
	next     *ioU     // free list / FIFO links
}

// ioFIFO is a FIFO of io_us (io-wq work list, completion ring).
type ioFIFO struct{ head, tail *ioU }

func (f *ioFIFO) push(u *ioU) {
	u.next = nil
	if f.tail == nil {
		f.head = u
	} else {
		f.tail.next = u
	}
	f.tail = u
}

func (f *ioFIFO) pop() *ioU {
	u := f.head
	if u != nil {
		f.head = u.next
		if f.head == nil {
			f.tail = nil
		}
		u.next = nil
	}
	return u
}

func (f *ioFIFO) empty() bool { return f.head == nil }

// waitSums accumulates WaitBreakdown sums.
type waitSums struct {
	n                  int64
	tag, queued, dev   float64
	dlist              float64
	wouldBlock, merged int64
	punted             int64
	puntedLat, lat     float64
}

func (w *waitSums) mean() WaitBreakdown {
	b := WaitBreakdown{N: w.n, WouldBlock: w.wouldBlock, Merged: w.merged, Slept: w.punted}
	if w.n > 0 {
		n := float64(w.n)
		b.TagWait, b.Queued, b.Device, b.DispatchList = w.tag/n, w.queued/n, w.dev/n, w.dlist/n
	}
	if w.punted > 0 {
		b.SleptLatency = w.puntedLat / float64(w.punted)
	}
	if w.n > w.punted {
		b.DirectLatency = w.lat / float64(w.n-w.punted)
	}
	return b
}

// job is one fio job instance: its thread, I/O units and (io_uring) io-wq pool.
type job struct {
	r       *runner
	spec    fio.Spec
	q       blockQueue
	cpu     int // the CPU the thread started on (reported)
	runCPU  int // the CPU it runs on now (Placement moves it)
	allowed []int
	rnd     *sim.Rand
	coll    *fio.Collector
	logs    *fio.JobLogs // Config.Logs' entry; nil = none
	wait    waitSums

	free        *ioU
	nFree       int
	ious        []*ioU // every io_u of the job (the watchdog scans them)
	region      int64  // first byte of the job's file
	size        int64  // bytes of the file used
	seqNext     int64
	issuedBytes int64

	startAt, windowStart, stopAt sim.Time
	lastDone                     sim.Time
	finished                     bool
	stopped                      bool
	// lastLat is the last completed io_u's time from fio's start_time to its
	// completion, and awake the job's submissions since its thread last slept in
	// getevents (SubmitTiming.DrainSwitch)
	lastLat sim.Time
	awake   int
	// timedOut: the job stopped because its runtime ran out (fio's
	// runtime_exceeded), not because its size was done or it was stopped early
	timedOut bool

	// completion side
	cq          ioFIFO
	reapPending bool
	cqN         int  // completions waiting to be reaped
	inGetevents bool // the thread sleeps in io_getevents / io_uring_enter(GETEVENTS)
	// wakeDeferred: woken behind another awake fio process, its switch not yet
	// charged (SubmitTiming.WakeupNoPreempt, stack/waketurn.go)
	wakeDeferred bool
	sleptAt      sim.Time // when it last slept in getevents (WakeupNoPreempt)
	turnReady    int      // completions since its process's last turn (DryTurn)
	drain        bool     // wait_for_completions entered with the queue full
	reapEv       reapEvent
	switchedEv   switchedEvent
	resumeEv     resumeEvent
	wokeIdle     bool // woken from getevents with its CPU idle (ReapSubmitDelay)
	// returnedAt is when the last submitting syscall returned
	// (SubmitTiming.IssueAtReturn): fio reaps no completion before it
	returnedAt sim.Time

	// blocking submitters (libaio, psync): the thread sleeps in blk_mq_get_tag
	tw      dispatch.TagWaiter
	blocked bool

	// submission batch (iodepth_batch_submit) and its block plug; inSubmit holds the
	// io_us of the io_submit / io_uring_enter call in progress (issue_time is stamped
	// on all of them when it returns)
	plug      dispatch.Plug
	batchLeft int
	// aioPlugAlways: io_submit plugs every batch (before v5.1, see startSubmitPlug)
	aioPlugAlways bool
	inSubmit      []*ioU
	// noWritePlug: no blkdev_write_iter plug around a block-device write (the era's
	// dispatch.Options.NoBlkdevWriteIterPlug or SubmitTiming.NoBlkdevWriteIterPlug)
	noWritePlug bool
	// the thread waits for its CPU to finish earlier work before its next submission;
	// cpuTurn: that wait is over, the next submission runs even if work charged on
	// the CPU meanwhile (completions, queue runs) has not finished
	fillWait bool
	cpuTurn  bool
	fillEv   fillEvent
	fillID   sim.EventID // fillEv's pending firing (cancelled by tickResume and Placement.RebalanceDomains)
	// the CFS time slice (SubmitTiming.CheckPreemptTick, stack/schedtick.go): the
	// thread's vruntime, 1 + the CPU whose run queue holds it (0 = none), slept: it
	// slept since it last ran (place_entity applies), switchedIn: its wake-up
	// charged the context switch to it already
	vrun              sim.Time
	rqCPU             int
	slept, switchedIn bool
	getevEv           geteventsEvent // geteventsLater
	getevLate         bool
	getevHop          bool // ReadEventsAfterWork: the second look at the same instant
	// files on a file system (onFileSystem) and the switches that apply to them;
	// dioPlug: the plug is the submitting call's own (iomap's per-I/O plug, or
	// blkdev_write_iter's) of the submission in progress
	fs      bool
	fsOpts  FSOptions
	dioPlug bool
	place   Placement
	placeRn *sim.Rand // PlaceRandom's draws (see Placement)
	// PlaceFair: the thread waits for its CPU (runnable) since waitSince, its turn
	// comes at turnAt (stack/placement.go); reapWaker is the CPU whose completion
	// woke it to reap
	cpuWait, contended bool
	woken              bool // placed at a wake-up, not yet running (wokenAt)
	// recentCPU is 1 + p->recent_used_cpu, which select_idle_sibling reads and
	// replaces; wake_up_new_task sets it to the forking CPU, fio's parent's
	// (runner.parentCPU, assumed: fiothreads.go)
	recentCPU int
	// migrations counts the thread's moves to another CPU (JobResult.Migrations);
	// ranUntil is its CPU's work when it last ran (stillRunning)
	ranUntil          sim.Time
	pelt              taskPelt // its PELT load (Placement.PELTLoad)
	migrations        int
	waitSince, turnAt sim.Time
	reapWaker         int
	// mm names the address space of the job's tasks (stack/mmswitch.go): 2 + the
	// job's index for a forked fio job, 1 for every thread=1 job (fio's own process)
	mm int

	// tasks asleep in blk_mq_get_tag now, and the most seen
	sleepers, maxSleepers int

	// workload pacing (pacing.go): rate / rate_iops, thinktime, the I/O count
	pace pacing
	// offsets: a random_distribution generator (nil = uniform), the block of
	// its ranges and the alignment of random offsets
	gen     *offsetGen
	align   int64
	issued  int64 // I/Os issued
	nextDir int8  // direction drawn for the next I/O, -1 = none yet
	// deps are the jobs that must finish before this one starts (stonewall,
	// wait_for); waiters the jobs waiting on this one
	deps    []*job
	waiters []*job
	started bool
	// depth is fio's I/O depth distributions over the window
	depth fio.DepthStats
	// stopNote says why the job stopped early (rate_min not met, exitall,
	// steady state), "" if it did not
	stopNote string

	// io_uring io-wq
	backlog    ioFIFO
	maxWorkers int
	workers    []*worker
	idle       []*worker
}

type reapEvent struct{ j *job }

// Fire wakes the thread asleep in io_getevents / io_uring_enter: it reaps and carries
// on with its loop.
func (e *reapEvent) Fire(now sim.Time) {
	j := e.j
	j.reapPending = false
	j.wokenRuns() // placed at the wake-up (EndBio) unless PlaceWhenRun
	if !j.inGetevents {
		return
	}
	j.inGetevents = false
	if !j.place.atWakeup() {
		j.wakePlacement(j.reapWaker) // placed as it runs
	}
	j.mmWake(j.runCPU) // a switch from another fio process (stack/mmswitch.go)
	if j.r.schedTickOn() && j.sliceWait(now) {
		// runnable behind the CPU's current fio thread (stack/schedtick.go): it
		// returns from the wait and reaps when it runs (fillEv → run → getevents)
		return
	}
	if sw := j.switchCost(); sw > 0 {
		// the reaper's own side of the wake-up (__schedule, context_switch, the
		// return from read_events / io_cqring_wait to user space) runs on its CPU
		// after the work charged there before it; fio reaps when it is done
		h := j.q.Host()
		h.OnCPU(j.runCPU)
		h.Charge(sw)
		if t := h.CPUFreeAt(j.runCPU); t > now && j.wakeupPreempts() {
			// SubmitTiming.WakeupPreemptReap: it takes the CPU from the running
			// task at once and reaps; its CPU time stays charged after the CPU's
			j.cpuTurn = true
			j.reap(now)
			return
		}
		if t := h.CPUFreeAt(j.runCPU); t > now {
			j.r.eng.At(t, &j.switchedEv)
			return
		}
	}
	j.reap(now)
}

// reap is the woken reaper's return from getevents: it reaps and carries on with its
// loop.
func (j *job) reap(now sim.Time) {
	if j.getevents(now) {
		if d := j.r.sub.ReapSubmitDelay; d > 0 && j.wokeIdle {
			j.wokeIdle = false
			// the emulated guest's time outside clat before the next submission
			// (SubmitTiming.ReapSubmitDelay)
			j.r.eng.After(d, &j.resumeEv)
			return
		}
		j.run(now)
	}
}

// aloneOnCPU reports whether no other unfinished job's thread is on the job's CPU.
func (j *job) aloneOnCPU() bool {
	for _, o := range j.r.jobs {
		if o != j && !o.finished && o.runCPU == j.runCPU {
			return false
		}
	}
	return true
}

// resumeEvent carries a woken reaper's loop on after SubmitTiming.ReapSubmitDelay.
type resumeEvent struct{ j *job }

// Fire resumes the job loop.
func (e *resumeEvent) Fire(now sim.Time) { e.j.run(now) }

// switchedEvent is the reaper back in user space after its side of the wake-up
// (CPUCosts.Switch) ran on its CPU.
type switchedEvent struct{ j *job }

// Fire reaps.
func (e *switchedEvent) Fire(now sim.Time) { e.j.reap(now) }

// switchCost is the woken task's side of a wake-up charged on its CPU
// (dispatch.CPUCosts.Switch, set by Config.EmulatedWith's WakeSplit); 0 = none.
func (j *job) switchCost() sim.Time {
	if t := j.q.Host().CostTable(); t != nil {
		return t.Switch
	}
	return 0
}

// fillEvent resumes the thread's submission loop once its CPU has finished the work
// charged before the thread waited for it.
type fillEvent struct{ j *job }

// Fire resumes the job loop where it waited for the CPU: the thread has its turn, or
// an idle CPU pulls it (PlaceFair's idle balance, before its turn).
func (e *fillEvent) Fire(now sim.Time) {
	j := e.j
	if now < j.turnAt {
		c := j.balancePull(now)
		if c < 0 {
			j.scheduleFill(j.nextBalance(now))
			return
		}
		j.endCPUWait()
		j.moveTo(c)
		j.mmWake(c)
	} else {
		j.endCPUWait()
	}
	j.fillWait = false
	j.cpuTurn = true
	j.run(now)
}

// geteventsEvent is the thread's io_getevents / io_uring_enter wait once its CPU
// has done the work charged before it (geteventsLater).
type geteventsEvent struct{ j *job }

// Fire looks at the completions again: it reaps, or sleeps.
func (e *geteventsEvent) Fire(now sim.Time) {
	j := e.j
	if j.r.sub.ReadEventsAfterWork && !j.getevHop {
		// the completions the step held back were queued for this same instant
		// after this event (completeWhenFree): look once they have run
		j.getevHop = true
		j.r.eng.At(now, &j.getevEv)
		return
	}
	j.getevHop = false
	j.getevLate = true
	ok := j.getevents(now)
	j.getevLate = false
	if ok {
		j.run(now)
	}
}

// geteventsLater is, under SubmitTiming.ReadEventsAfterWork or the time slice
// (SubmitTiming.CheckPreemptTick), the thread finding no completion while its CPU
// still has work charged before the wait: the model's clock stands at the start of the thread's last step, the CPU at
// the end of that step and of the completions queued behind it, which in the kernel
// interrupt the step (hardirq) and post their events before the system call
// returns and the wait begins (read_events looks at the ring first). The wait is
// then looked at again when the CPU has done that work (once). It reports whether
// it deferred.
func (j *job) geteventsLater(now sim.Time) bool {
	if !(j.r.sub.ReadEventsAfterWork || j.r.schedTickOn()) || j.getevLate {
		return false
	}
	t := j.q.Host().CPUFreeAt(j.runCPU)
	if t <= now {
		return false
	}
	j.r.eng.At(t, &j.getevEv)
	return true
}

type startEvent struct{ j *job }

// Fire starts the job's thread.
func (e *startEvent) Fire(now sim.Time) { e.j.run(now) }

// newCollector is fio.NewCollectorBits at bits (0 = fio's default); Config.check
// has validated bits.
func newCollector(s *fio.Spec, bits int) *fio.Collector {
	if bits == 0 {
		return fio.NewCollector(s)
	}
	c, err := fio.NewCollectorBits(s, bits)
	if err != nil {
		panic(err) // out of range: refused by Config.check before any job is made
	}
	return c
}

// startDelaySeed separates a job's startdelay=LO-HI draw from its workload stream
// ("sdly").
const startDelaySeed = 0x73646c79

func newJob(r *runner, s fio.Spec, q blockQueue, cpu int, allowed []int, region, size int64, salt uint64) *job {
	j := &job{r: r, spec: s, q: q, cpu: cpu, runCPU: cpu, allowed: allowed, region: region, size: size,
		rnd: sim.NewRand(workloadSeed(r.cfg.Seed, &s) + salt + 1), coll: newCollector(&s, r.cfg.HistogramBits), nextDir: -1}
	if s.StartDelayHigh > s.StartDelay {
		// startdelay=LO-HI: fio's fixup_options draws each job's delay with
		// rand_between at microsecond steps; this stream is the job's own, apart
		// from its workload draws, so a range moves nothing else
		span := int64((s.StartDelayHigh - s.StartDelay) / time.Microsecond)
		rn := sim.NewRand((workloadSeed(r.cfg.Seed, &s) + salt + 1) ^ startDelaySeed)
		j.spec.StartDelay = s.StartDelay + time.Duration(rn.Int64N(span+1))*time.Microsecond
	}
	j.reapEv.j = j
	j.switchedEv.j = j
	j.resumeEv.j = j
	j.fillEv.j = j
	j.getevEv.j = j
	if int(salt) < len(r.cfg.Logs) {
		j.logs = r.cfg.Logs[salt]
	}
	j.fs, j.fsOpts, j.place = onFileSystem(&s), r.fsOptions(), r.placementOptions()
	j.placeRn = sim.NewRand(placementSeed + salt)
	j.recentCPU = r.parentCPU + 1
	j.mm = 2 + int(salt)
	if s.Thread {
		j.mm = 1
	}
	j.tw.S = (*jobSleeper)(j)
	j.tw.Plug = &j.plug
	j.aioPlugAlways = q.Host().Config().Options.AIOPlugAlways
	j.noWritePlug = q.Host().Config().Options.NoBlkdevWriteIterPlug || r.sub.NoBlkdevWriteIterPlug
	j.initOffsets()
	j.pace.init(&j.spec)
	j.pace.wakeEv.j = j
	us := make([]ioU, s.EffectiveIODepth) // one allocation for the job's io_us
	j.ious = make([]*ioU, 0, len(us))
	for i := range us {
		u := &us[i]
		u.job = j
		u.bio.End = j
		u.bio.Priv = u
		u.next = j.free
		j.free = u
		j.nFree++
		j.ious = append(j.ious, u)
	}
	if s.IOEngine == fio.EngineIOUring {
		entries := 1 << bits.Len(uint(max(s.EffectiveIODepth, 1)-1))
		j.maxWorkers = ioWQBoundedWorkers(entries, r.cfg.NrCPUs, j.fs, s.RW.Reads(), r.sub.IOPrepAsyncWorkHashAll)
	}
	return j
}

// ioWQBoundedWorkers is the number of io-wq workers that can run a job's punted
// requests at once. 6.1 io_init_wq_offload (io_uring/tctx.c) bounds the ring's
// workers at min(sq_entries, 4 × online CPUs) (entries: fio's iodepth rounded up to
// a power of two by io_uring_setup), and io_prep_async_work (io_uring/io_uring.c)
// hashes a write by its inode (io_wq_hash_work, def->hash_reg_file) only when the
// request's file is a regular file (REQ_F_ISREG, io_file_get_flags' S_ISREG): hashed
// work of one inode runs on one worker at a time (io_get_next_work's hash_map), so
// a write-only job on a file system has one; a write to a block device file
// (S_ISBLK, fio's filename=/dev/sda) is not hashed and runs on as many workers as
// reads do. hashAll (SubmitTiming.IOPrepAsyncWorkHashAll) restores the model before
// round 8, which serialised a write-only job's writes on a block device too.
func ioWQBoundedWorkers(entries, nrCPUs int, regularFile, reads, hashAll bool) int {
	n := min(entries, 4*nrCPUs)
	if !reads && (regularFile || hashAll) {
		n = 1
	}
	return n
}

// start schedules the job's first submissions and fixes its window. A job
// with dependencies (stonewall, wait_for) starts when they have finished
// (startAfterDeps); startdelay counts from the start of the run, as fio's
// does (run_threads compares it with the time since fio started).
func (j *job) start() {
	if len(j.deps) > 0 {
		j.stopAt = sim.MaxTime
		return
	}
	j.startNow(0)
}

// startNow starts the job at now (or at its startdelay, if later).
func (j *job) startNow(now sim.Time) {
	j.started = true
	j.startAt = max(sim.Time(j.spec.StartDelay), now)
	j.pace.epoch = j.startAt
	j.pace.ss.init(&j.spec, j.startAt)
	j.windowStart = j.startAt + sim.Time(j.spec.RampTime)
	j.stopAt = sim.MaxTime
	if j.spec.Runtime > 0 {
		j.stopAt = j.windowStart + sim.Time(j.spec.Runtime)
	}
	j.coll.SetWindow(int64(j.windowStart), int64(j.stopAt))
	if j.logs != nil {
		j.logs.SetWindow(int64(j.windowStart), int64(j.stopAt))
	}
	j.r.eng.At(j.startAt, &startEvent{j})
}

// done reports whether the job issues no more I/O.
func (j *job) done(now sim.Time) bool {
	if j.stopped {
		return true
	}
	total := j.size
	if j.spec.IOSize > 0 {
		total = j.spec.IOSize
	}
	switch {
	case now >= j.stopAt:
		j.stopped, j.timedOut = true, true
	case !j.spec.TimeBased && j.issuedBytes >= total*int64(max(j.spec.Loops, 1)):
		j.stopped = true
	case j.spec.NumberIOs > 0 && j.issued >= j.spec.NumberIOs:
		// number_ios ends the job even when time_based (fio io_u.c: io_issues
		// against number_ios in io_bytes_exceeded / should_stop)
		j.stopped = true
	}
	return j.stopped
}

// prep fills the next io_u's bio (offset per rw pattern).
func (j *job) prep(u *ioU, now sim.Time) {
	s := &j.spec
	b := &u.bio
	b.Sync = s.Direct
	dir := j.drawDir()
	j.nextDir = -1
	op := device.OpRead
	if dir == fio.DirWrite {
		op = device.OpWrite
	}
	b.Op = op
	b.Length = j.buflen(dir)
	if s.RW.Random() && (s.PercentageRandom >= 100 || j.rnd.IntN(100) < s.PercentageRandom) {
		b.Offset = j.region + j.randOffset(b.Length)
	} else {
		if j.seqNext+b.Length > j.size {
			j.seqNext = 0
		}
		b.Offset = j.region + j.seqNext
		j.seqNext += b.Length
	}
	j.issuedBytes += b.Length
	j.issued++
	j.pace.issued(dir, b.Length, j.rnd)
	u.submitAt, u.issuedAt = now, now
	u.punted, u.inFlight = false, true
	b.AllocatedAt, b.IssuedAt, b.DispatchListAt = 0, 0, 0
}

// fill is fio's submission loop: keep EffectiveIODepth I/Os in flight, submitted in
// batches of iodepth_batch_submit; a batch is plugged as startSubmitPlug says.
//
// The loop runs on the thread's CPU one I/O after the other: each bio enters
// blk_mq_submit_bio once the CPU has finished the work charged so far (the previous
// bio's submission cost, and completions or kblockd runs given to that CPU meanwhile),
// so a queue run can dispatch a request while the rest of a burst is still being
// submitted (Request C of the kernel oracle; with CPU costs off nothing is charged and
// a burst is submitted at one instant).
func (j *job) fill(now sim.Time) {
	turn := j.cpuTurn
	j.cpuTurn = false
	for !j.blocked {
		if j.cpuBusy(now, turn) {
			return
		}
		turn = false
		if j.batchLeft == 0 {
			if j.plug.Active() {
				j.plug.Finish(j.runCPU)
			}
			j.submitReturned(now)
			if j.free == nil || j.done(now) {
				return
			}
			if j.pause(now) {
				return
			}
			j.batchLeft = min(max(j.spec.IODepthBatchSubmit, 1), j.nFree)
			j.startSubmitPlug()
		}
		if j.free == nil || j.done(now) || j.pace.due(j, now) {
			// a rate or thinktime wait ends the batch: fio commits what it
			// queued before it quiesces and sleeps
			j.batchLeft = 0
			continue
		}
		u := j.free
		j.free = u.next
		j.nFree--
		u.next = nil
		j.batchLeft--
		j.prep(u, now)
		if j.inWindow(now) {
			j.depth.MarkDepth(j.spec.EffectiveIODepth-j.nFree, 1)
		}
		// the second and later I/Os of one io_uring_enter / io_submit do not pay
		// the call's own share again (dispatch.CPUCosts.SubmitSyscall)
		u.bio.SameCall = len(j.inSubmit) > 0
		j.inSubmit = append(j.inSubmit, u)
		j.submit(u, now)
	}
}

// startSubmitPlug starts the block plug of the submitting syscall for a batch of
// batchLeft I/Os: io_uring (io_submit_sqes) and libaio since v5.1 (io_submit,
// AIO_PLUG_THRESHOLD) plug only a batch of more than two; libaio before v5.1 plugs
// every io_submit, even of one iocb (dispatch.Options.AIOPlugAlways). io_uring starts
// its plug for the batch's number of SQEs (blk_start_plug_nr_ios), which sizes the
// block layer's batched request allocation; libaio's blk_start_plug asks for one.
func (j *job) startSubmitPlug() {
	if j.batchLeft > 2 || j.aioPlugAlways && j.spec.IOEngine == fio.EngineLibaio {
		n := 1
		if j.spec.IOEngine == fio.EngineIOUring {
			n = j.batchLeft
		}
		j.plug.Start(n)
	}
}

// cpuBusy defers the submission loop while the thread's CPU is busy with earlier work
// and more I/O is to be submitted: fillEv resumes it when the work charged so far is
// done. The thread then has its turn (turn): it submits its next I/O even if
// completions or queue runs were charged on the CPU while it waited, the way a deferred
// completion or kblockd run takes its turn (dispatch CPUCosts: work that finds its CPU
// busy waits for the work given before it, not for an idle CPU). Waiting for an idle
// CPU instead would starve the thread behind another CPU's completions arriving on its
// CPU's interrupt vector, for as long as they keep the CPU busy (a runnable task shares
// its CPU with softirq work: ksoftirqd takes over after MAX_SOFTIRQ_TIME, and CFS
// shares the CPU between the two).
func (j *job) cpuBusy(now sim.Time, turn bool) bool {
	if j.free == nil || j.done(now) {
		return false
	}
	if j.r.schedTickOn() && j.sliceWait(now) {
		// another fio thread is current on the CPU (stack/schedtick.go)
		return true
	}
	if h := j.q.Host(); h.KworkerWaiting(j.runCPU) {
		// dispatch.Timing.IRQPreempt: a woken kblockd worker (nice -20) waits for
		// this CPU; it preempts the thread at this preemption point, so the
		// thread's turn comes after it
		return j.waitCPU(now, max(now, h.CPUFreeAt(j.runCPU))) || j.cpuBusy(now, false)
	}
	if turn {
		return false
	}
	t := j.q.Host().CPUFreeAt(j.runCPU)
	if t <= now {
		return false
	}
	return j.waitCPU(now, t) || j.cpuBusy(now, false)
}

// submitReturned is the return of the submitting syscall (io_submit, io_uring_enter):
// fio stamps issue_time on every io_u it carried (ioengines.c td_io_queue, after the
// engine's commit; libaio fio_libaio_queued, io_uring fio_ioring_queued), so slat
// includes any sleep in blk_mq_get_tag. A synchronous engine stamps issue_time before
// the read or write (td_io_queue, FIO_SYNCIO): its slat is 0 and the sleep is clat.
//
// With SubmitTiming.IssueAtReturn the syscall returns when the thread's CPU has done
// the work charged so far (the batch's submission path), and fio reaps nothing before
// that (returnedAt).
func (j *job) submitReturned(now sim.Time) {
	at := now
	if j.r.sub.IssueAtReturn && len(j.inSubmit) > 0 {
		at = max(now, j.q.Host().CPUFreeAt(j.runCPU))
		j.returnedAt = at
	}
	if j.spec.IOEngine.Async() {
		for _, u := range j.inSubmit {
			u.issuedAt = at
		}
	}
	if len(j.inSubmit) > 0 && j.inWindow(now) {
		j.depth.MarkSubmit(len(j.inSubmit))
	}
	clear(j.inSubmit)
	j.inSubmit = j.inSubmit[:0]
}

// submit hands one io_u to the kernel the way the job's ioengine does. io_uring tries
// REQ_NOWAIT inline and punts to io-wq on -EAGAIN — but only where the bio really
// carries REQ_NOWAIT (a block device file); on a file system the inline attempt
// blocks in blk_mq_get_tag like libaio (FSOptions.BioNowait), unless the file system
// itself refuses the NOWAIT write (FSOptions.UnwrittenWriteEAGAIN).
func (j *job) submit(u *ioU, now sim.Time) {
	j.chargeDIOPages(&u.bio)
	j.r.tickSwitch(j, now) // stack/tickrefill.go
	j.r.chargeTLBRefill(j.q, j.runCPU)
	if j.spec.IOEngine == fio.EngineIOUring {
		switch {
		case j.fs && j.fsOpts.UnwrittenWriteEAGAIN && u.bio.Op == device.OpWrite:
			j.wait.wouldBlock++
			u.punted = true
			u.bio.SameCall = !j.r.sub.IOWQSubmitWorkSyscall // io_wq_submit_work: no syscall share
			j.punt(u)
			return
		case !j.fs || j.fsOpts.BioNowait:
			j.startCallPlug(u)
			defer j.finishDIOPlug()
			switch j.q.SubmitBioPlug(&u.bio, j.runCPU, true, nil, &j.plug) {
			case dispatch.WouldBlock:
				j.wait.wouldBlock++
				u.punted = true
				// io_wq_submit_work's retry pays no syscall share (SubmitTiming.IOWQSubmitWorkSyscall)
				u.bio.SameCall = !j.r.sub.IOWQSubmitWorkSyscall
				j.chargeIOQueueAsync()
				j.punt(u)
			case dispatch.Merged:
				j.wait.merged++
			}
			return
		}
	}
	// libaio / sync engines, and io_uring on a file system: submitted in the caller's
	// context, blocking; a file-system direct I/O holds iomap's plug, a write to a
	// block device blkdev_write_iter's.
	j.startCallPlug(u)
	switch j.q.SubmitBioPlug(&u.bio, j.runCPU, false, &j.tw, &j.plug) {
	case dispatch.Sleeping:
		j.blocked = true
		u.punted = true
		j.sleep(j.runCPU)
		return
	case dispatch.Merged:
		j.wait.merged++
	}
	j.syncWriteWait()
	j.finishDIOPlug()
}

// chargeDIOPages charges SubmitTiming.DIOPage for each user page of a direct-I/O
// bio beyond its first on the submitting CPU (bio_iov_iter_get_pages, the pages'
// dirtying and release); nothing for buffered I/O or when the cost is 0.
func (j *job) chargeDIOPages(b *dispatch.Bio) {
	c := j.r.sub.DIOPage
	if c <= 0 || !j.spec.Direct {
		return
	}
	const page = 4096
	if n := (b.Length + page - 1) / page; n > 1 {
		h := j.q.Host()
		h.OnCPU(j.runCPU)
		h.Charge(min(sim.Time(n-1)*c, sim.Millisecond))
	}
}

// syncWriteWait: a synchronous engine's write to a block device then sleeps in
// submit_bio_wait inside blkdev_write_iter's plug, so io_schedule flushes the plug
// from schedule (its request inserted, the hctx run by kblockd) before
// blk_finish_plug finds it empty.
func (j *job) syncWriteWait() {
	if j.dioPlug && !j.fs && !j.spec.IOEngine.Async() {
		j.plug.FlushFromSchedule(j.runCPU)
	}
}

// callPlug reports whether the kernel call that submits u's bio holds a plug of its
// own around it: iomap's around a file-system direct I/O (__iomap_dio_rw, reads and
// writes; FSOptions.NoDIOPlug), blkdev_write_iter's around a write to a block device
// file (SubmitTiming.NoBlkdevWriteIterPlug; dispatch.Options.NoBlkdevWriteIterPlug
// before v5.16).
func (j *job) callPlug(u *ioU) bool {
	if j.fs {
		return !j.fsOpts.NoDIOPlug
	}
	return u.bio.Op == device.OpWrite && !j.noWritePlug
}

// startCallPlug starts the submitting call's own plug for u (callPlug) unless the
// task holds one already: blk_start_plug does not nest, the outer plug (an io_submit
// or io_uring batch of more than two) then collects the request.
func (j *job) startCallPlug(u *ioU) {
	if j.callPlug(u) && !j.plug.Active() {
		j.plug.Start(1)
		j.dioPlug = true
	}
}

// finishDIOPlug ends the submitting call's own plug (blk_finish_plug in
// __iomap_dio_rw or blkdev_write_iter), issuing its request.
func (j *job) finishDIOPlug() {
	if j.dioPlug {
		j.dioPlug = false
		j.plug.Finish(j.runCPU)
	}
}

// jobSleeper is the job thread as a dispatch.Sleeper (libaio/psync).
type jobSleeper job

// Woken: unless Placement.PlaceWhenRun, try_to_wake_up places the thread where
// the scheduler puts it.
func (s *jobSleeper) Woken(waker int) {
	if s.place.atWakeup() {
		(*job)(s).wokenAt(waker)
	}
}

// RunCPU: the CPU the woken job thread runs on, as Woken placed it (its last CPU
// with Placement.PlaceWhenRun, which places it only when it runs).
func (s *jobSleeper) RunCPU() int { return s.runCPU }

// WakeCPU: the job thread runs where the scheduler places it (Placement): placed
// when woken (the default), or now (PlaceWhenRun).
func (s *jobSleeper) WakeCPU(sim.Time) int {
	j := (*job)(s)
	if j.place.atWakeup() {
		j.wokenRuns()
	} else {
		j.wakePlacement(s.tw.WakerCPU())
	}
	j.chargeSwitch(s.runCPU)
	j.switchedIn = j.switchCost() > 0
	j.mmWake(s.runCPU)
	return s.runCPU
}

// chargeSwitch charges one context switch of a task of the job (CPUCosts.Switch) on
// cpu, when the table has one: the switch away from it when it goes to sleep (its
// schedule() in blk_mq_get_tag's io_schedule, read_events, io_cqring_wait, an idle
// io-wq worker's wait), and the switch back to it with its return to the interrupted
// system call when it is woken. A task woken in blk_mq_get_tag
// (sbitmap_queue_wake_up's try_to_wake_up is charged on the waker by package
// dispatch) returns from io_schedule on the CPU it is placed on before it retries the
// tag; its retry starts with the cost, as every step's effect does
// (dispatch.CPUCosts).
func (j *job) chargeSwitch(cpu int) {
	if sw := j.switchCost(); sw > 0 {
		h := j.q.Host()
		h.OnCPU(cpu)
		h.Charge(sw)
	}
}

// Unblocked: the thread returns from io_submit's sleep and carries on.
func (s *jobSleeper) Unblocked(b *dispatch.Bio, now sim.Time) {
	j := (*job)(s)
	j.blocked = false
	j.sleepers--
	j.syncWriteWait()
	j.finishDIOPlug()
	// The syscall carries on with the rest of its batch and returns (fill stamps
	// issue_time); the completions that arrived meanwhile wait to be reaped.
	j.run(now)
}

// reapReady reports whether fio's io_getevents / io_uring wait would return now: at
// least iodepth_batch_complete_min completions wait (all that are in flight if fewer).
func (j *job) reapReady() bool {
	if j.cq.empty() {
		return false
	}
	need := max(j.spec.IODepthBatchCompleteMin, 1)
	inFlight := j.spec.EffectiveIODepth - j.nFree - j.cqN
	return j.cqN >= need || inFlight == 0
}

// EndBio receives a completion: the CQE / aio event is posted and the fio thread
// reaps it after a wake-up delay.
func (j *job) EndBio(b *dispatch.Bio, now sim.Time, _ error) {
	u := b.Priv.(*ioU)

	u.doneAt, u.inFlight = now, false
	if now > u.submitAt {
		j.lastLat = now - u.submitAt // SubmitTiming.DrainSwitch
	}
	j.cq.push(u)
	j.cqN++
	j.r.turnCompleted(j)
	// a thread asleep in getevents wakes once iodepth_batch_complete_min completions
	// (all that are in flight if fewer) are there
	if j.inGetevents && !j.reapPending && j.reapReady() {
		j.reapPending = true
		h := j.q.Host()
		j.reapWaker = h.CurrentCPU()
		// SubmitTiming.ReapSubmitDelay applies to a reaper alone on its CPU (no other
		// fio thread there: the guest's vCPU halts while it sleeps)
		j.wokeIdle = j.r.sub.ReapSubmitDelay > 0 && j.aloneOnCPU()
		if j.switchCost() > 0 {
			// the waker's try_to_wake_up: aio_complete's wake_up of ctx->wait, or
			// io_uring's task_work_add(TWA_SIGNAL) → set_notify_signal →
			// wake_up_state, on the completing CPU
			h.Charge(h.CostTable().Wakeup)
		}
		if j.place.atWakeup() {
			j.wokenAt(j.reapWaker) // try_to_wake_up places the thread now
		}
		j.r.eng.After(j.r.rnd.Uniform(j.r.sub.ReapMin, j.r.sub.ReapMax), &j.reapEv)
	}
}

// account records the I/O in the job's statistics when fio reaps it (now). slat is
// issue_time − start_time (submitReturned); clat runs from issue_time to the reap,
// because fio stamps a completion when getevents returns it (io_u.c
// io_u_queued_complete → init_icd, then io_completed: clat = icd time − issue_time).
// So clat includes the wake-up delay before the reap and, for a thread asleep in
// blk_mq_get_tag inside io_submit, the time its finished I/Os sat unreaped: IOPS × (slat
// + clat) = iodepth. The wait breakdown keeps block-layer times (doneAt).
func (j *job) account(u *ioU, now sim.Time) {
	b := &u.bio
	dir := fio.DirRead
	if b.Op == device.OpWrite {
		dir = fio.DirWrite
	}
	j.coll.Record(dir, int64(u.issuedAt-u.submitAt), int64(now-u.issuedAt), b.Length, int64(u.submitAt), int64(now))
	if j.logs != nil {
		j.logs.Record(fio.LogSample{Dir: dir, Slat: int64(u.issuedAt - u.submitAt), Clat: int64(now - u.issuedAt), Bytes: b.Length,
			Offset: b.Offset - j.region + jobOffset(&j.spec), CompleteNs: int64(now)})
	}
	j.lastDone = now
	j.pace.completed(j, dir, b.Length, now)
	if done := u.doneAt; done >= j.windowStart && done < j.stopAt {
		w := &j.wait
		w.n++
		w.tag += float64(b.AllocatedAt - u.submitAt)
		if b.IssuedAt >= b.AllocatedAt {
			w.queued += float64(b.IssuedAt - b.AllocatedAt)
			w.dev += float64(u.doneAt - b.IssuedAt)
			if b.DispatchListAt > 0 && b.IssuedAt >= b.DispatchListAt {
				w.dlist += float64(b.IssuedAt - b.DispatchListAt)
			}
		}
		if u.punted {
			w.punted++
			w.puntedLat += float64(done - u.submitAt)
		} else {
			w.lat += float64(done - u.submitAt)
		}
	}
}

// run is fio's job loop (backend.c do_io) from now: submit while io_us are free, then
// wait for completions (wait_for_completions) and repeat, until the thread sleeps in a
// submission (Unblocked resumes it) or in getevents (reapEvent resumes it), or the
// job has finished.
func (j *job) run(now sim.Time) {
	j.runLoop(now)
	j.ranUntil = j.ran(now) // the thread ran on its CPU (PlaceFair's idle test)
}

// runLoop is run's loop.
func (j *job) runLoop(now sim.Time) {
	for {
		j.fill(now)
		if j.blocked || j.fillWait || j.pace.sleeping {
			if j.pace.sleeping {
				j.tickSleep(now)
			}
			return
		}
		if j.done(now) && j.nFree == j.spec.EffectiveIODepth {
			j.tickSleep(now)
			if !j.finished {
				j.finished = true
				j.r.jobFinished(j, now)
			}
			return
		}
		// queue full (or the job done with I/O in flight: fio's final quiesce,
		// or a rate / thinktime wait: io_u_quiesce)
		j.drain = j.free == nil || j.pace.quiesce
		if !j.getevents(now) {
			return
		}
	}
}

// getevents is wait_for_completions: one io_getevents call per round, each taking at
// least iodepth_batch_complete_min and at most iodepth_batch_complete_max completions,
// repeated while the queue was full and more than iodepth_low I/Os remain. It returns
// false when the thread went to sleep waiting for completions.
func (j *job) getevents(now sim.Time) bool {
	for {
		if !j.reapReady() {
			if j.geteventsLater(now) {
				return false
			}
			// asleep in read_events / io_cqring_wait: its schedule() switches
			// away from it on its CPU
			j.inGetevents = true
			j.awake = 0 // SubmitTiming.DrainSwitch
			j.chargeSwitch(j.runCPU)
			j.sleptAt = now
			j.r.sleepSwitch(j) // SubmitTiming.WakeupNoPreempt
			j.tickSleep(now)
			return false
		}
		j.reapBatch(now)
		inFlight := j.spec.EffectiveIODepth - j.nFree
		if j.pace.quiesce {
			if inFlight == 0 {
				j.pace.quiesce = false
				return true
			}
			continue
		}
		if !j.drain || inFlight <= j.spec.IODepthLow {
			return true
		}
	}
}

// reapBatch is one getevents return (io_u.c io_u_queued_complete): up to
// iodepth_batch_complete_max completions, oldest first, all stamped with now, their
// io_us freed.
func (j *job) reapBatch(now sim.Time) {
	now = max(now, j.returnedAt)
	n := min(j.cqN, max(j.spec.IODepthBatchCompleteMax, 1))
	if j.inWindow(now) {
		j.depth.MarkComplete(n)
	}
	for range n {
		u := j.cq.pop()
		j.cqN--
		j.account(u, now)
		u.next = j.free
		j.free = u
		j.nFree++
	}
}

// sleep counts a task of the job going to sleep in blk_mq_get_tag on cpu: its
// io_schedule switches away from it there (chargeSwitch).
func (j *job) sleep(cpu int) {
	j.chargeSwitch(cpu)
	j.tickSleep(j.r.eng.Now())
	j.sleepers++
	j.maxSleepers = max(j.maxSleepers, j.sleepers)
}

// inWindow reports whether now is in the job's measurement window.
func (j *job) inWindow(now sim.Time) bool { return now >= j.windowStart && now < j.stopAt }
