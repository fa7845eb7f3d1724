package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// CPUCosts is the CPU time (ns) each step of the submission and completion paths
// charges on the simulated CPU that runs it, plus the cost of touching a shared
// structure (a tag bitmap word, a budget map word, the host counter, an elevator lock)
// locally or after another CPU touched it last (a cache-line transfer). One table
// applies to every policy compared in a scenario. DefaultCPUCosts gives the values and
// their sources.
//
// How costs act: every path runs on one CPU (sim.CPU). Costs accumulate on that CPU;
// work that starts on a busy CPU — a device completion (the interrupt and the block
// completion path), a kblockd queue run, a woken tag waiter — is deferred until the CPU
// has finished the work it was given, so a CPU-bound path is throughput-limited at
// 1 / (cost per I/O). The effects of a step (a command reaching the device) take place
// when the path starts, not at the end of its cost: an error of one path's cost (µs)
// on latency, none on throughput.
type CPUCosts struct {
	// Submit is the per-I/O cost of the submitting task before the block layer: the
	// system call share, the ioengine (io_uring SQE / libaio iocb) and fio's own work.
	Submit sim.Time
	// BioAlloc is blk_mq_submit_bio's fixed part: bio setup, plug and merge checks,
	// request initialisation (blk_mq_rq_ctx_init).
	BioAlloc sim.Time
	// Merge is one bio merged into an existing request instead (bio_attempt_*_merge).
	Merge sim.Time
	// TagGet and TagPut are one sbitmap get / put on a tag bitmap (driver or sched
	// tags), besides the word's cache line.
	TagGet, TagPut sim.Time
	// BudgetGet and BudgetPut are scsi_mq_get_budget / scsi_mq_put_budget on the LUN
	// budget map (v5.13+) or device_busy counter, besides the line. A skipped map
	// (budget map skip, seed 003) costs nothing.
	BudgetGet, BudgetPut sim.Time
	// HostCheck is scsi_queue_rq's admission part: device state, target and host
	// readiness (scsi_target_queue_ready, scsi_host_queue_ready).
	HostCheck sim.Time
	// Insert is inserting a request into a software queue or the elevator.
	Insert sim.Time
	// Elevator is one elevator operation under its lock (dd->lock): bio merge lookup,
	// insert, dispatch_request.
	Elevator sim.Time
	// Dispatch is one request through blk_mq_dispatch_rq_list / the direct-issue path
	// (prep, blk_mq_start_request).
	Dispatch sim.Time
	// QueueRq is the driver's queuecommand (the LLD building and posting the command).
	QueueRq sim.Time
	// Completion is the completion path of one request: interrupt handling, scsi_done,
	// scsi_finish_command, blk_mq_end_request, freeing the request.
	Completion sim.Time
	// EndBio is each bio's end (bio_endio, the ioengine's completion event: io_uring
	// CQE or aio event) and fio's reaping of it.
	EndBio sim.Time
	// IPI is sending the completion to another CPU (rq_affinity: the interrupt CPU
	// does not share a cache with the submitting CPU).
	IPI sim.Time
	// Wakeup is waking a sleeping task or kicking kblockd (try_to_wake_up).
	Wakeup sim.Time
	// QueueRun is the fixed cost of one hctx run (__blk_mq_run_hw_queue entry,
	// blk_mq_sched_dispatch_requests with nothing to do).
	QueueRun sim.Time
	// LineLocal and LineRemote are a touch of a shared cache line by the CPU that
	// touched it last, and by another CPU (the line is transferred).
	LineLocal, LineRemote sim.Time
	// CPUsPerLLC is the number of consecutive CPUs sharing a last-level cache (one
	// socket); 0 means all CPUs share one. Completions on an interrupt CPU that does
	// not share the submitter's cache are sent to the submitting CPU (rq_affinity=1).
	CPUsPerLLC int
}

// DefaultCPUCosts returns the cost table used when HostConfig.CPU is left zero.
// Sources per value (assumptions are marked):
//   - TagGet+TagPut 23 ns, BudgetGet+BudgetPut 24 ns: this library's real sbitmap /
//     tagset / budget code, BenchmarkIOPath (budget/bench_test.go) on one core:
//     map 70.0 ns vs skip 46.4 ns per I/O ⇒ budget get+put 23.6 ns; skip 46.4 ns is
//     the driver tag get+put plus loop overhead ⇒ ~23 ns (split evenly get/put).
//   - LineLocal 5 ns, LineRemote 80 ns: sim.DefaultLocalCost / DefaultRemoteCost
//     (core-to-core transfer of a modified line within a socket, published
//     measurements of Skylake/Ice Lake servers: 50–100 ns).
//   - The rest of the path (~1.6 µs of CPU per 4 KiB I/O in all, the level of a
//     kernel SCSI + io_uring/libaio path on one core: ~600K–1M IOPS per core, as
//     reported for scsi_debug and null_blk in block-layer patch threads) is split over
//     the steps by the usual shape of a perf profile of that path — submission
//     syscall and ioengine ≈ 25 %, block layer ≈ 25 %, SCSI + LLD ≈ 20 %, completion
//     and reaping ≈ 30 %. Assumption: the split and the total are not measured here.
//   - IPI 300 ns, Wakeup 400 ns, QueueRun 150 ns: assumptions (an IPI send and a
//     try_to_wake_up each cost a few hundred ns on x86 servers).
func DefaultCPUCosts() CPUCosts {
	return CPUCosts{
		Submit:     400,
		BioAlloc:   200,
		Merge:      60,
		TagGet:     12,
		TagPut:     11,
		BudgetGet:  12,
		BudgetPut:  12,
		HostCheck:  60,
		Insert:     40,
		Elevator:   80,
		Dispatch:   120,
		QueueRq:    180,
		Completion: 350,
		EndBio:     250,
		IPI:        300,
		Wakeup:     400,
		QueueRun:   150,
		LineLocal:  sim.DefaultLocalCost,
		LineRemote: sim.DefaultRemoteCost,
	}
}

// CPUModel selects the CPU cost model of a host (HostConfig.CPU). Validate (through
// HostConfig.Validate) returns an error naming a cost outside [0, 1 ms] or a negative
// CPUsPerLLC.
type CPUModel struct {
	// Off disables CPU costs: every step takes zero time and nothing is deferred (the
	// model before CPU costs existed).
	Off bool
	// Costs is the cost table; the zero value selects DefaultCPUCosts.
	Costs CPUCosts
}

func (m CPUModel) validate() error {
	c := m.Costs
	for _, f := range []struct {
		name string
		v    sim.Time
	}{{"Submit", c.Submit}, {"BioAlloc", c.BioAlloc}, {"Merge", c.Merge}, {"TagGet", c.TagGet},
		{"TagPut", c.TagPut}, {"BudgetGet", c.BudgetGet}, {"BudgetPut", c.BudgetPut}, {"HostCheck", c.HostCheck},
		{"Insert", c.Insert}, {"Elevator", c.Elevator}, {"Dispatch", c.Dispatch}, {"QueueRq", c.QueueRq},
		{"Completion", c.Completion}, {"EndBio", c.EndBio}, {"IPI", c.IPI}, {"Wakeup", c.Wakeup},
		{"QueueRun", c.QueueRun}, {"LineLocal", c.LineLocal}, {"LineRemote", c.LineRemote}} {
		if f.v < 0 || f.v > sim.Millisecond {
			return fmt.Errorf("dispatch: CPU cost %s %v out of range [0, 1ms]", f.name, f.v)
		}
	}
	if c.CPUsPerLLC < 0 {
		return fmt.Errorf("dispatch: CPUsPerLLC %d out of range [0, nr_cpus]", c.CPUsPerLLC)
	}
	return nil
}

// cpuState is the host's simulated CPUs and shared lines.
type cpuState struct {
	on    bool
	c     CPUCosts
	cpus  []*sim.CPU
	cur   int // CPU running the current path
	lines map[any][]*sim.SharedLine
}

func newCPUState(m CPUModel, nrCPUs int) cpuState {
	s := cpuState{on: !m.Off, c: m.Costs}
	if s.c == (CPUCosts{}) {
		s.c = DefaultCPUCosts()
	}
	s.cpus = make([]*sim.CPU, nrCPUs)
	for i := range s.cpus {
		s.cpus[i] = sim.NewCPU(i)
	}
	s.lines = map[any][]*sim.SharedLine{}
	return s
}

// onCPU sets the CPU that runs the path being modelled (an entry point: a submission, a
// completion, a queue run).
func (h *Host) onCPU(cpu int) { h.cpu.cur = cpu }

// charge charges cost on the current CPU.
func (h *Host) charge(cost sim.Time) {
	if h.cpu.on && cost > 0 {
		h.cpu.cpus[h.cpu.cur].Exec(h.eng.Now(), cost)
	}
}

// touch charges an access to word of the shared structure obj from the current CPU.
func (h *Host) touch(obj any, word int) {
	if !h.cpu.on {
		return
	}
	ls := h.cpu.lines[obj]
	if word >= len(ls) {
		n := make([]*sim.SharedLine, word+1)
		copy(n, ls)
		for i := len(ls); i <= word; i++ {
			n[i] = sim.NewSharedLine(h.cpu.c.LineLocal, h.cpu.c.LineRemote)
		}
		h.cpu.lines[obj], ls = n, n
	}
	h.charge(ls[word].Touch(h.cpu.cur))
}

// busyUntil returns when cpu finishes the work given to it, or 0 without CPU costs.
func (h *Host) busyUntil(cpu int) sim.Time {
	if !h.cpu.on {
		return 0
	}
	return h.cpu.cpus[cpu].FreeAt()
}

// sameLLC reports whether two CPUs share a last-level cache.
func (h *Host) sameLLC(a, b int) bool {
	n := h.cpu.c.CPUsPerLLC
	return n <= 0 || a/n == b/n
}

// CPUBusy returns the CPU time (ns) charged so far on each simulated CPU (all zero with
// CPU costs off). Divide by the elapsed time for utilisation.
func (h *Host) CPUBusy() []sim.Time {
	out := make([]sim.Time, len(h.cpu.cpus))
	for i, c := range h.cpu.cpus {
		out[i] = c.BusyTime()
	}
	return out
}

// CPUFreeAt returns when cpu finishes the work charged to it so far (ns); a submitter
// that runs on cpu should not start new work before then. 0 with CPU costs off.
func (h *Host) CPUFreeAt(cpu int) sim.Time { return h.busyUntil(cpu) }

// LineTransfers returns the number of cache-line transfers charged so far, summed over
// every shared line.
func (h *Host) LineTransfers() uint64 {
	var n uint64
	for _, ls := range h.cpu.lines {
		for _, l := range ls {
			n += l.Transfers()
		}
	}
	return n
}

// chargeTag charges a tag get (or put) on t: the sbitmap operation and the cache line
// of the bitmap word holding tag.
func (q *Queue) chargeTag(tags *tagset.Tags, tag int, get bool) {
	h := q.host
	if !h.cpu.on || tag < 0 || tags == nil {
		return
	}
	bt, bit := tags.Bitmap(), tag-tags.NrReserved()
	if bit < 0 {
		bt, bit = tags.Reserved(), tag
	}
	h.touch(bt, bit>>bt.Sbitmap().Shift())
	if get {
		h.charge(h.cpu.c.TagGet)
	} else {
		h.charge(h.cpu.c.TagPut)
	}
}

// elevatorLock charges one elevator operation under its lock (dd->lock): the lock's
// cache line and the operation.
func (q *Queue) elevatorLock() {
	h := q.host
	if !h.cpu.on {
		return
	}
	h.touch(q.elevator, 0)
	h.charge(h.cpu.c.Elevator)
}
