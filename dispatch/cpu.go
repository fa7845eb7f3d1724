package dispatch

import (
	"fmt"
	"slices"
	"strings"

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
	// Switch is one context switch of a task that sleeps or is woken, charged on
	// the CPU it happens on (ns): one __schedule pass (pick_next_task_fair, or the
	// idle task's), context_switch (switch_mm_irqs_off, switch_to) and
	// finish_task_switch, with the woken task's return from its wait through the
	// system call's exit (exit_to_user_mode). A sleep-and-wake cycle has two: away
	// from the task when it sleeps, back to it when it is woken. 0 (the default
	// table) charges nothing: the native model keeps that time inside the wake-up
	// latencies (package stack's SubmitTiming.ReapMin/ReapMax, Timing's). Non-zero,
	// package stack charges it where a task it models sleeps and is woken (the
	// reaper, tag sleepers, io-wq workers; the reaper's waker also pays Wakeup),
	// and a kblockd run pays two (stack.EmulationOptions; NativeSwitch gives the
	// basis).
	Switch sim.Time
	// QueueRun is the fixed cost of one hctx run (__blk_mq_run_hw_queue entry,
	// blk_mq_sched_dispatch_requests with nothing to do).
	QueueRun sim.Time
	// LineLocal and LineRemote are a touch of a shared cache line by the CPU that
	// touched it last, and by another CPU (the line is transferred).
	LineLocal, LineRemote sim.Time
	// CPUsPerLLC is the number of consecutive CPUs sharing a last-level cache (one
	// socket); 0 means all CPUs share one. Completions on an interrupt CPU that does
	// not share the submitter's cache are sent to the submitting CPU (rq_affinity=1).
	// It also sets the sockets of the contention model's topology (one socket per
	// CPUsPerLLC CPUs, one thread per core).
	CPUsPerLLC int

	// Transfer is the contention model's cost (ns) of an atomic or a load on a line
	// another CPU wrote last, by distance (Self: the CPU owns it already). Zero selects
	// Self = LineLocal and every other distance = LineRemote.
	Transfer sim.TransferCosts
	// ElevatorLines is the number of cache lines of the elevator's data (mq-deadline's
	// FIFO heads and sort trees, the requests being linked) that a dd->lock critical
	// section moves from the previous holder when the lock changes CPU.
	ElevatorLines int
	// Uncontended selects the model before contention existed (issue 15): a lock or an
	// atomic is one touch of a line (LineLocal or LineRemote) that never waits, and a
	// critical section is its cost alone.
	Uncontended bool
	// BudgetMapLines (opt-in; appended by batchtag, issue 15) charges the SCSI budget
	// map's lines as lib/sbitmap.c touches them: a get's atomic on the word's free-bit
	// line, a put's on its separate deferred-cleared line, and the fold of the cleared
	// mask (two more atomics) on the get that finds the word exhausted (package scsi,
	// budgetLines). False charges every get and put as one atomic on one line per
	// word. Off by default: it moved oracle effect signs 97/192 → 88/185 and starved
	// the WAL of fam-2q-ph-none-uring-pin (140 → 0 IOPS, kernel 77) by timing alone.
	BudgetMapLines bool
	// MMSwitch is the extra cost (ns) of a context switch between two processes over
	// one that keeps the address space (switch_mm_irqs_off and what the next process
	// pays to refill its TLB), charged when a kblockd run that preempted a submitter
	// hands the CPU to another runnable task (Host.SetOtherTasks; kblockdpreempt.go).
	// 0 (the default table) charges nothing. Appended by ddsign (round 6).
	MMSwitch sim.Time
	// SubmitSyscall (appended by contend, round 7) is the part of Submit that one
	// submitting system call pays once however many I/Os it carries (ns): the
	// syscall's entry and exit, io_uring_enter's ring lookup, uring_lock and
	// io_submit_sqes' set-up and end (the task refs, the submit state and its plug,
	// the SQ head commit) and, with IORING_ENTER_GETEVENTS, the one pass of
	// io_cqring_wait that runs the deferred task work and commits the CQ tail;
	// libaio's io_submit lookup_ioctx and plug; fio's commit of the batch. Submit
	// stays the cost of a call of one I/O; each further I/O of the same call (a
	// Bio with SameCall) is charged Submit − SubmitSyscall (SubmitCharge). 0
	// charges every I/O the whole Submit, the model before the split.
	SubmitSyscall sim.Time
	// SbqWakeLines (opt-in; appended by contend, round 7) charges the lines and
	// locks of a tag bitmap's wait side as lib/sbitmap.c touches them: every put's
	// sbitmap_queue_wake_up reads ws_active (the sbitmap_queue's own line) and, with
	// waiters, decrements the woken sbq_wait_state's wait_cnt (its own line, one per
	// wait queue); a sleeper's sbitmap_prepare_to_wait increments ws_active and takes
	// the wait queue's lock (prepare_to_wait_exclusive), its sbitmap_finish_wait
	// decrements ws_active; wake_up_nr wakes each task under the wait queue's lock, so
	// the waker's Wakeup becomes that lock's hold. False charges none of them (the
	// model before round 7).
	SbqWakeLines bool
	// LazyTLBSwitch is the cost (ns) of one context switch to or from a kernel
	// thread, charged for the kblockd kworker's two switches per run (Hctx's run
	// work, kblockdpreempt.go) in place of Switch. 6.1 context_switch: a next task
	// without an mm (a kworker) takes enter_lazy_tlb and borrows prev's active_mm (no
	// switch_mm, no CR3 write), and the switch back finds the user task's mm still
	// loaded (switch_mm_irqs_off's prev == next path); the kworker never returns to
	// user space and runs no system call around its sleep (worker_thread → schedule),
	// which a user task's switch (Switch, from pipe ping-pong measurements) includes.
	// 0 (the default) charges Switch. Appended by recal (round 7).
	LazyTLBSwitch sim.Time
	// DataCopyKiB is the CPU time (ns) per KiB of a command's data that a RAM-backed
	// LLD copies with the CPU inside its queuecommand, charged by package scsi on the
	// dispatching CPU for hosts that copy (scsi.Host.SetCopiesData): scsi_debug's
	// resp_read_dt0 / resp_write_dt0 → do_device_access → sg_copy_buffer between the
	// command's scatterlist and the fake store (drivers/scsi/scsi_debug.c, 6.1).
	// 0 (the default table) charges nothing; stack.EmulationOptions.DataCopy sets
	// it for an emulated guest. Appended by tcg8 (round 8).
	DataCopyKiB sim.Time
	// DataCopyCmd is the per-command CPU time (ns) such a copying LLD's command
	// handling costs beyond QueueRq and Completion, charged with DataCopyKiB on the
	// dispatching CPU (scsi_debug: scsi_debug_queuecommand's CDB decode,
	// resp_read_dt0's checks and store lock, schedule_resp's queue slot and hrtimer,
	// and at completion sdebug_q_cmd_complete; with the SCSI mid-layer's own
	// sd_init_command / scsi_io_completion beyond the table's SCSI share). 0 (the
	// default table) charges nothing. Appended by tcg8 (round 8).
	DataCopyCmd sim.Time
}

// SubmitCharge is the submission cost (ns) of one I/O before the block layer:
// Submit for the first (or only) I/O of a system call, Submit − SubmitSyscall (at
// least 0) for a later I/O of the same call (sameCall: the second and later SQEs of
// one io_uring_enter, iocbs of one io_submit).
func (c *CPUCosts) SubmitCharge(sameCall bool) sim.Time {
	if sameCall {
		return max(c.Submit-c.SubmitSyscall, 0)
	}
	return c.Submit
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
//     One published total exists for a scsi_debug path: Bart Van Assche (linux-scsi,
//     5 Apr 2022) reports more than 1 M IOPS on a single CPU core for scsi_debug
//     delay=0 fake_rw=1 under a one-job fio io_uring reader (CPU not named), i.e. at
//     most 1 µs per I/O in all; seed 003's scenario (bench.BudgetMapIONs) scales this
//     path to it, split unchanged. The table itself keeps 1.6 µs: the other scenarios'
//     hosts (smartpqi, SRP) are other drivers on other machines.
//   - SubmitSyscall 200 ns of Submit's 400 (contend, round 7): assumed, plausible
//     range 100–400 ns. A null system call's entry and exit costs ~70–100 ns with
//     speculation mitigations off and 300–450 ns with KPTI on Skylake-era x86
//     (published getpid loops); recent server CPUs need no KPTI, so ~100 ns is
//     taken, plus ~100 ns for io_uring_enter's fixed part (file lookup, uring_lock,
//     io_submit_sqes' state start/end, one io_cqring_wait pass with its
//     io_run_local_work and CQ commit) and fio's commit. It changes nothing for a
//     call of one I/O (fio's default iodepth_batch=1, and the steady state of any
//     job that reaps one completion at a time).
//   - IPI 300 ns, Wakeup 400 ns, QueueRun 150 ns: assumptions (an IPI send and a
//     try_to_wake_up each cost a few hundred ns on x86 servers).
//   - Transfer: DefaultTransferCosts (sourced: Intel MLC cache-to-cache latencies of a
//     2-socket Xeon Skylake-SP server; BENCHMARKS.md, contention).
//   - ElevatorLines 6: derived from a published lock-bound ceiling (BENCHMARKS.md,
//     contention): 32 threads on one mq-deadline queue of a Ryzen 7950X reached 879 K
//     IOPS with 93.6 % of the time contending on dd->lock (Axboe, linux-block, Jan
//     2024, "mq-deadline scalability improvements"): 1/879 K = 1.14 µs of lock per
//     I/O over ≈ 2.75 acquisitions (bio merge, ¼ batched insert, dispatch and a share
//     of empty dispatch attempts; assumed) = 414 ns per contended acquisition = the
//     lock's transfer + Elevator (80 ns) + L data lines × 49.5 ns (the 7950X's mean
//     core-to-core transfer, AnandTech: 15–19 ns within a CCD, 79.5 ns across) ⇒
//     L ≈ 5.7.
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

		Transfer:      DefaultTransferCosts(),
		ElevatorLines: 6,
		SubmitSyscall: 200,
	}
}

// NativeSwitch is the assumed native cost of one context switch (CPUCosts.Switch),
// 1 µs, from two published measurements of two tasks ping-ponging over a pipe on one
// CPU (each one-way trip is one context switch: a write whose try_to_wake_up wakes
// the reader, the writer's read putting it to sleep, the switch, the reader's read
// returning): perf-bench(1)'s example of `perf bench sched pipe`, 5.86 µs per round
// trip of 1,000,000 (2.9 µs one way, 2009 hardware; tools/perf/Documentation/
// perf-bench.txt), and 1.07 µs one way between two threads on Linux 6.6 on an Intel
// Core i7 11th generation (2.41 µs between processes; ddumbying.vercel.app,
// "Context switch overhead"). Less the waker's Wakeup (400 ns, assumed) and the pipe
// system calls, one switch is about 0.5-2 µs; 1 µs is assumed, and the range is what
// a sweep should cover.
const NativeSwitch sim.Time = 1000

// DefaultTransferCosts are the line-transfer costs of a 2-socket Intel Xeon
// Skylake-SP server (the machine class of seeds 001 and 002's hosts), ns:
//   - Node 50: Intel MLC --c2c_latency "Local Socket L2->L2 HITM" 50.3 ns (2× Xeon
//     Platinum 8180, FD.io CSIT "Xeon Skylake HW Calibration"); 51.7 ns on 2× Xeon
//     Platinum 8269CY (Cascade Lake), same tool.
//   - Remote 109: the same runs' "Remote Socket L2->L2 HITM" with the line homed in
//     the writer's socket, 108.6 ns (111.2 ns on the 8269CY); homed in the reader's
//     socket it is 171–177 ns (not used: kernel lines are mostly homed where they are
//     written).
//   - Socket 50: one NUMA node per socket (no sub-NUMA clustering) — unused.
//   - Self 5 and SMT 5: assumptions (a locked instruction on an owned line, ~20
//     cycles; SMT siblings share L1/L2). The model uses one thread per core.
func DefaultTransferCosts() sim.TransferCosts {
	return sim.TransferCosts{Self: 5, SMT: 5, Node: 50, Socket: 50, Remote: 109}
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
	// HostCores, when positive and below the number of CPUs, shares that many host
	// cores among the CPUs (sim.HostCores): the emulation harness's vCPU threads on a
	// host with fewer cores (QEMU TCG thread=multi on the oracle's 2-core host; basis:
	// the harness string of each reference set). An idle CPU woken with work waits for
	// a free host core. 0 (default) = every CPU has its own core.
	HostCores int
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
		{"Switch", c.Switch}, {"QueueRun", c.QueueRun}, {"LineLocal", c.LineLocal}, {"LineRemote", c.LineRemote},
		{"MMSwitch", c.MMSwitch}, {"SubmitSyscall", c.SubmitSyscall}, {"LazyTLBSwitch", c.LazyTLBSwitch},
		{"DataCopyKiB", c.DataCopyKiB}, {"DataCopyCmd", c.DataCopyCmd}} {
		if f.v < 0 || f.v > sim.Millisecond {
			return fmt.Errorf("dispatch: CPU cost %s %v out of range [0, 1ms]", f.name, f.v)
		}
	}
	if m.HostCores < 0 {
		return fmt.Errorf("dispatch: HostCores %d out of range [0, nr_cpus]", m.HostCores)
	}
	if c.CPUsPerLLC < 0 {
		return fmt.Errorf("dispatch: CPUsPerLLC %d out of range [0, nr_cpus]", c.CPUsPerLLC)
	}
	t := c.Transfer
	for _, f := range []struct {
		name string
		v    sim.Time
	}{{"Transfer.Self", t.Self}, {"Transfer.SMT", t.SMT}, {"Transfer.Node", t.Node},
		{"Transfer.Socket", t.Socket}, {"Transfer.Remote", t.Remote}} {
		if f.v < 0 || f.v > sim.Millisecond {
			return fmt.Errorf("dispatch: CPU cost %s %v out of range [0, 1ms]", f.name, f.v)
		}
	}
	if c.ElevatorLines < 0 || c.ElevatorLines > 1024 {
		return fmt.Errorf("dispatch: CPU cost ElevatorLines %d out of range [0, 1024]", c.ElevatorLines)
	}
	return nil
}

// cpuState is the host's simulated CPUs, shared lines and locks.
type cpuState struct {
	on    bool
	c     CPUCosts
	cpus  []*sim.CPU
	cur   int                       // CPU running the current path
	irq   int                       // 1 + the CPU whose current path is an interrupt (Timing.IRQPreempt); 0: none
	lines map[any][]*sim.SharedLine // Uncontended model

	topo   *sim.Topology
	atoms  map[lineKey]*sim.AtomicLine
	locks  map[lineKey]*sim.SpinLock
	sched  map[*tagset.Tags]bool // tag sets known to be scheduler tags
	lnames map[lineKey]string

	// A faster index of atoms by object, then word (atomLine): per object its lines
	// by word, and the last few objects looked up. The same lines as atoms.
	byObj  map[any]*objLines
	recent [4]recentObj
	next   int // recent entry to replace next
}

// objLines is one object's atomic lines by word (nil: not created yet).
type objLines struct{ words []*sim.AtomicLine }

// recentObj is one entry of cpuState.recent.
type recentObj struct {
	obj any
	ls  *objLines
}

// maxIndexedWord bounds the words atomLine indexes by object (others use the map only).
const maxIndexedWord = 1 << 12

// lineKey names one shared line or lock: the structure it belongs to and a word.
type lineKey struct {
	obj  any
	word int
}

// Names of the contention model's lines and locks (the kernel's fields).
const (
	lockElevator = "dd->lock"
	lockCtx      = "ctx->lock"
	lockHctx     = "hctx->lock"
	lockQueue    = "queue_lock"
	atomTagWord  = "sbitmap word"
	atomBudget   = "budget map word / device_busy"
	atomHostBusy = "host_busy"
	atomNrActive = "nr_active"
)

func newCPUState(m CPUModel, nrCPUs int) cpuState {
	s := cpuState{on: !m.Off, c: m.Costs}
	if s.c == (CPUCosts{}) {
		s.c = DefaultCPUCosts()
	}
	s.cpus = make([]*sim.CPU, nrCPUs)
	for i := range s.cpus {
		s.cpus[i] = sim.NewCPU(i)
	}
	if m.HostCores > 0 && m.HostCores < nrCPUs {
		sim.NewHostCores(m.HostCores, s.cpus)
	}
	s.lines = map[any][]*sim.SharedLine{}
	tc := s.c.Transfer
	if tc == (sim.TransferCosts{}) {
		r := s.c.LineRemote
		tc = sim.TransferCosts{Self: s.c.LineLocal, SMT: r, Node: r, Socket: r, Remote: r}
	}
	per := s.c.CPUsPerLLC
	if per <= 0 || per > nrCPUs {
		per = max(nrCPUs, 1)
	}
	s.topo = &sim.Topology{Sockets: (max(nrCPUs, 1) + per - 1) / per, CoresPerSocket: per, ThreadsPerCore: 1, Costs: tc}
	s.atoms = map[lineKey]*sim.AtomicLine{}
	s.locks = map[lineKey]*sim.SpinLock{}
	s.sched = map[*tagset.Tags]bool{}
	s.lnames = map[lineKey]string{}
	s.byObj = map[any]*objLines{}
	return s
}

// cpuAt returns when the current CPU can start new work: now or the end of the work
// already charged to it.
func (h *Host) cpuAt() sim.Time {
	c := h.cpu.cpus[h.cpu.cur]
	if h.cpu.irq == h.cpu.cur+1 {
		return max(h.eng.Now(), c.IRQFreeAt())
	}
	return max(h.eng.Now(), c.FreeAt())
}

// curCPU returns the current CPU, whether its current path is an interrupt
// (Timing.IRQPreempt), and cpuAt, for a caller that charges a cost computed from that
// time with chargeCur (the CPU and its context looked up once for both).
func (h *Host) curCPU() (c *sim.CPU, irq bool, at sim.Time) {
	c, now := h.cpu.cpus[h.cpu.cur], h.eng.Now()
	if h.cpu.irq == h.cpu.cur+1 {
		return c, true, max(now, c.IRQFreeAt())
	}
	return c, false, max(now, c.FreeAt())
}

// chargeCur is charge on c and irq as curCPU returned them (CPU costs on).
func (h *Host) chargeCur(c *sim.CPU, irq bool, cost sim.Time) {
	if cost <= 0 {
		return
	}
	if irq {
		c.Interrupt(h.eng.Now(), cost)
		return
	}
	c.Exec(h.eng.Now(), cost)
}

// pathAt returns when cpu reaches the current point of the path it runs: cpuAt for
// the current CPU in interrupt context (Timing.IRQPreempt), else now or the end of the
// work already charged to cpu.
func (h *Host) pathAt(cpu int) sim.Time {
	if h.cpu.irq == cpu+1 && h.cpu.on {
		return max(h.eng.Now(), h.cpu.cpus[cpu].IRQFreeAt())
	}
	return max(h.eng.Now(), h.busyUntil(cpu))
}

// rmw charges an atomic read-modify-write by the current CPU on word of obj's line
// named name: the wait for the line when other CPUs hold it at the same time and its
// transfer from the CPU that wrote it last.
func (h *Host) rmw(name string, obj any, word int) {
	if !h.cpu.on {
		return
	}
	if h.cpu.c.Uncontended {
		h.touchFlat(obj, word)
		return
	}
	l := h.atomLine(name, obj, word)
	c, irq, at := h.curCPU()
	h.chargeCur(c, irq, l.RMW(h.eng.Now(), at, h.cpu.cur))
}

// atomLine returns the modelled cache line of word of obj, named name, creating it on
// first use (rmw and load share it).
func (h *Host) atomLine(name string, obj any, word int) *sim.AtomicLine {
	c := &h.cpu
	if word < 0 || word >= maxIndexedWord {
		return c.atomLineSlow(name, obj, word)
	}
	var ls *objLines
	for i := range c.recent {
		if r := &c.recent[i]; r.ls != nil && r.obj == obj {
			ls = r.ls
			break
		}
	}
	if ls == nil {
		if ls = c.byObj[obj]; ls == nil {
			ls = &objLines{}
			c.byObj[obj] = ls
		}
		c.recent[c.next] = recentObj{obj, ls}
		c.next = (c.next + 1) % len(c.recent)
	}
	if word < len(ls.words) {
		if l := ls.words[word]; l != nil {
			return l
		}
	} else {
		ls.words = append(ls.words, make([]*sim.AtomicLine, word+1-len(ls.words))...)
	}
	l := c.atomLineSlow(name, obj, word)
	ls.words[word] = l
	return l
}

// atomLineSlow is atomLine through the atoms map.
func (c *cpuState) atomLineSlow(name string, obj any, word int) *sim.AtomicLine {
	k := lineKey{obj, word}
	l := c.atoms[k]
	if l == nil {
		l = sim.NewAtomicLine(c.topo)
		c.atoms[k] = l
		c.lnames[k] = name
	}
	return l
}

// spinLock charges one critical section of hold ns under obj's spinlock named name
// on the current CPU, touching lines protected lines: spinning while other CPUs hold
// it (FIFO, qspinlock), the hand-off from the last holder, the protected lines when the
// lock changed CPU, and hold.
func (h *Host) spinLock(name string, obj any, hold sim.Time, lines int) {
	if !h.cpu.on {
		return
	}
	if h.cpu.c.Uncontended {
		h.touchFlat(obj, 0)
		h.charge(hold)
		return
	}
	l := h.lockFor(name, obj)
	c, irq, at := h.curCPU()
	h.chargeCur(c, irq, l.LockData(h.eng.Now(), at, h.cpu.cur, hold, lines))
}

// lockFor returns obj's spinlock, created (and named name) on first use.
func (h *Host) lockFor(name string, obj any) *sim.SpinLock {
	c := &h.cpu
	k := lineKey{obj, -1}
	l := c.locks[k]
	if l == nil {
		l = sim.NewSpinLock(c.topo, sim.Queued)
		c.locks[k] = l
		c.lnames[k] = name
	}
	return l
}

// listLock charges one critical section of hold ns under obj's spinlock named name
// whose protected list shares the lock's cache line (ctx->lock with ctx->rq_lists,
// hctx->lock with hctx->dispatch: both are one ____cacheline_aligned_in_smp group in
// struct blk_mq_ctx / blk_mq_hw_ctx), so the hand-off moves everything the section
// touches besides the requests themselves. In the Uncontended model it is hold alone:
// that model had no such touch, and it stays as it was.
func (h *Host) listLock(name string, obj any, hold sim.Time) {
	if !h.cpu.on {
		return
	}
	if h.cpu.c.Uncontended {
		h.charge(hold)
		return
	}
	h.spinLock(name, obj, hold, 0)
}

// listLockAt is listLock for an object that keeps its lock in *slot (filled from the
// locks map on first use, so Contention still sees it): a ctx or hctx, locked on every
// insertion and dispatch, is not looked up by hashing its (any, int) key each time.
func (h *Host) listLockAt(name string, obj any, slot **sim.SpinLock, hold sim.Time) {
	if !h.cpu.on {
		return
	}
	if h.cpu.c.Uncontended {
		h.charge(hold)
		return
	}
	l := *slot
	if l == nil {
		l = h.lockFor(name, obj)
		*slot = l
	}
	c, irq, at := h.curCPU()
	h.chargeCur(c, irq, l.LockData(h.eng.Now(), at, h.cpu.cur, hold, 0))
}

// ctxLock charges one critical section under the software queue's ctx->lock on the
// current CPU: an insertion (__blk_mq_insert_request, blk_mq_insert_requests: hold is
// Insert), a bio merge scan of the ctx list (blk_mq_sched_bio_merge without an
// elevator, taken only when the list is not empty), or a dispatch taking requests
// from it (flush_busy_ctx, dispatch_rq_from_ctx: a list splice, hold 0 besides the
// line). The submitting CPU inserts and the CPU running the hctx takes, so the lock
// moves when they differ.
func (q *Queue) ctxLock(c *Ctx, hold sim.Time) { q.host.listLockAt(lockCtx, c, &c.lk, hold) }

// lockDispatch charges one critical section under hctx->lock on the current CPU:
// adding to or splicing hctx->dispatch (blk_mq_request_bypass_insert, the busy
// splice of blk_mq_dispatch_rq_list, and __blk_mq_sched_dispatch_requests taking the
// list when list_empty_careful finds it non-empty). Hold is 0 besides the line: a
// list operation.
func (h *Hctx) lockDispatch() { h.q.host.listLockAt(lockHctx, h, &h.lk, 0) }

// SpinLock charges one critical section of hold ns under obj's spinlock named name on
// the current CPU, touching lines cache lines of protected data besides the lock's
// own: the contention model's queued spinlock (spinning behind other CPUs' sections,
// FIFO; the hand-off transfer; the data lines when the lock changed CPU), or hold
// alone in the Uncontended model. Package legacy calls it for q->queue_lock
// (legacy.Locker).
func (h *Host) SpinLock(name string, obj any, hold sim.Time, lines int) {
	if !h.cpu.on {
		return
	}
	if h.cpu.c.Uncontended {
		h.charge(hold)
		return
	}
	h.spinLock(name, obj, hold, lines)
}

// ContentionStat is the contention model's counters for one kind of lock or shared
// line, summed over every instance (all LUNs' dd->lock, every sbitmap word, …).
type ContentionStat struct {
	// Name is the kernel's name of the lock or field.
	Name string
	sim.ContentionStats
}

// Contention returns the contention model's counters per kind of lock or line, sorted
// by name (empty with CPU costs off or Uncontended).
func (h *Host) Contention() []ContentionStat {
	by := map[string]*ContentionStat{}
	add := func(k lineKey, st sim.ContentionStats) {
		n := h.cpu.lnames[k]
		c := by[n]
		if c == nil {
			c = &ContentionStat{Name: n}
			by[n] = c
		}
		c.Ops += st.Ops
		c.Contended += st.Contended
		c.Transfers += st.Transfers
		c.Wait += st.Wait
		c.Held += st.Held
	}
	for k, l := range h.cpu.atoms {
		add(k, l.Stats())
	}
	for k, l := range h.cpu.locks {
		add(k, l.Stats())
	}
	out := make([]ContentionStat, 0, len(by))
	for _, c := range by {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b ContentionStat) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// onCPU sets the CPU that runs the path being modelled (an entry point: a submission, a
// completion, a queue run).
func (h *Host) onCPU(cpu int) { h.cpu.cur = cpu }

// charge charges cost on the current CPU.
func (h *Host) charge(cost sim.Time) {
	if h.cpu.on && cost > 0 {
		if h.cpu.irq == h.cpu.cur+1 {
			h.cpu.cpus[h.cpu.cur].Interrupt(h.eng.Now(), cost)
			return
		}
		h.cpu.cpus[h.cpu.cur].Exec(h.eng.Now(), cost)
	}
}

// touch charges an atomic update of word of the shared structure obj from the current
// CPU: an RMW on its line (rmw), or one line touch in the Uncontended model.
func (h *Host) touch(obj any, word int) {
	if !h.cpu.on {
		return
	}
	if !h.cpu.c.Uncontended {
		name := "shared line"
		if obj == any(h) {
			name = atomHostBusy
		}
		h.rmw(name, obj, word)
		return
	}
	h.touchFlat(obj, word)
}

// touchFlat is touch in the Uncontended model: LineLocal or LineRemote, never waiting.
func (h *Host) touchFlat(obj any, word int) {
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
// every shared line and lock.
func (h *Host) LineTransfers() uint64 {
	var n uint64
	for _, ls := range h.cpu.lines {
		for _, l := range ls {
			n += l.Transfers()
		}
	}
	for _, l := range h.cpu.atoms {
		n += l.Stats().Transfers
	}
	for _, l := range h.cpu.locks {
		n += l.Stats().Transfers
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
	h.rmw(atomTagWord, bt, bit>>bt.Sbitmap().Shift())
	if get {
		h.charge(h.cpu.c.TagGet)
	} else {
		h.charge(h.cpu.c.TagPut)
		h.chargeSbqPut(bt) // CPUCosts.SbqWakeLines (dispatch/sbqwake.go)
	}
	q.chargeNrActive(tags)
}

// chargeNrActive charges the active-request counter a driver tag get or put updates
// while the tag set is shared between queues (BLK_MQ_F_TAG_QUEUE_SHARED:
// __blk_mq_inc_active_requests / __blk_mq_dec_active_requests): the request queue's
// nr_active_requests_shared_tags with host-wide tags, else hctx->nr_active (one line
// per queue and hardware queue).
func (q *Queue) chargeNrActive(tags *tagset.Tags) {
	h := q.host
	if h.cpu.c.Uncontended || h.ts == nil || !h.ts.QueueShared() || q.isSchedTags(tags) {
		return
	}
	if h.ts.Config().HostTagset {
		h.rmw(atomNrActive, q, -1)
		return
	}
	h.rmw(atomNrActive, tags, q.index())
}

// index returns the queue's position among its host's queues.
func (q *Queue) index() int {
	for i, x := range q.host.queues {
		if x == q {
			return i
		}
	}
	return -1
}

// isSchedTags reports whether tags are one of q's scheduler tag sets.
func (q *Queue) isSchedTags(tags *tagset.Tags) bool {
	s, ok := q.host.cpu.sched[tags]
	if !ok {
		for _, hc := range q.hctxs {
			if hc.th.SchedTags() == tags {
				s = true
			}
		}
		q.host.cpu.sched[tags] = s
	}
	return s
}

// BudgetRMW charges the SCSI budget's atomic read-modify-write by the current CPU on
// word of obj's line (a budget-map word, or word 0 for the device_busy counter of the
// counter era): it serialises with other CPUs' RMWs on the same line and pays the
// transfer from the CPU that wrote it last. Called by the scsi driver's get_budget /
// put_budget (scsi_mq_get_budget, scsi_mq_put_budget).
func (h *Host) BudgetRMW(obj any, word int) { h.rmw(atomBudget, obj, word) }

// BudgetLine returns the modelled line BudgetRMW(obj, word) charges, created on first
// use as BudgetRMW creates it, for a driver that keeps it and charges it with
// BudgetRMWLine (saving the line look-up on every budget get). It returns nil when
// BudgetRMW charges no line (CPU costs off, or the Uncontended model).
func (h *Host) BudgetLine(obj any, word int) *sim.AtomicLine {
	if !h.cpu.on || h.cpu.c.Uncontended {
		return nil
	}
	return h.atomLine(atomBudget, obj, word)
}

// BudgetRMWLine is BudgetRMW on a line BudgetLine returned (not nil).
func (h *Host) BudgetRMWLine(l *sim.AtomicLine) {
	c, irq, at := h.curCPU()
	h.chargeCur(c, irq, l.RMW(h.eng.Now(), at, h.cpu.cur))
}

// elevatorLock charges one elevator operation under its lock (dd->lock): a critical
// section of Elevator ns that moves ElevatorLines lines of the scheduler's data when
// the lock changes CPU, with spinning behind other CPUs' sections (FIFO).
func (q *Queue) elevatorLock() {
	q.host.spinLock(lockElevator, q.elevator, q.host.cpu.c.Elevator, q.host.cpu.c.ElevatorLines)
}

// load charges a plain load by the current CPU of word of obj's line named name: the
// transfer when another CPU wrote the line last, else the owned-line cost; loads never
// serialise (sim.AtomicLine.Load). A touch of the line in the Uncontended model.
func (h *Host) load(name string, obj any, word int) {
	if !h.cpu.on {
		return
	}
	if h.cpu.c.Uncontended {
		h.touchFlat(obj, word)
		return
	}
	l := h.atomLine(name, obj, word)
	c, irq, at := h.curCPU()
	h.chargeCur(c, irq, l.Load(h.eng.Now(), at, h.cpu.cur))
}
