package stack

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
)

// Result is the outcome of Run.
type Result struct {
	// Jobs holds one result per job instance, in the order of the specs.
	Jobs []JobResult
	// Queues holds the counters of each LUN's request queue.
	Queues []dispatch.QueueStats
	// Schedulers holds the elevator each LUN ran ("none", "mq-deadline").
	Schedulers []string
	// Hctxs holds, per LUN, the counters of each hardware queue.
	Hctxs [][]dispatch.HctxStats
	// ActiveHctxs holds, per LUN, the number of its hardware queues that are active
	// users of their tags at End (BLK_MQ_S_TAG_ACTIVE, set by blk_mq_tag_busy and
	// cleared only by blk_mq_timeout_work finding the queue idle): a LUN whose jobs
	// moved counts on every hctx it allocated from since; 0 for a legacy LUN.
	ActiveHctxs []int
	// End is the virtual time the run stopped (ns).
	End sim.Time
	// Events is the number of engine events fired.
	Events uint64
	// CPUBusy is the CPU time (ns) charged on each simulated CPU by the submission
	// and completion paths (all zero with Config.CPU.Off).
	CPUBusy []sim.Time
	// LineTransfers is the number of cache-line transfers charged (shared tag, budget,
	// host and elevator lines touched by another CPU than the last).
	LineTransfers uint64
	// Contention holds the contention model's counters per kind of lock or shared line.
	Contention []dispatch.ContentionStat
	// HasBudgetMap tells, per LUN, whether the LUN has a budget map (false in the
	// device_busy era and when the budget-map skip of seed 003 applies).
	HasBudgetMap []bool
	// Interrupted is set when Limits.Interrupt ended the run at End: the
	// unfinished jobs' windows end there (fio's runtime after SIGINT).
	Interrupted bool
	// Disks holds, per LUN, its disk statistics at End (/proc/diskstats counters,
	// dispatch.DiskStats); DiskNames the LUNs' names (stack/diskutil.go).
	Disks     []dispatch.DiskStats
	DiskNames []string
	// LastFinish is when the last job finished (ns; 0 if one did not): the end of
	// the run for fio's disk statistics when the jobs end before End.
	LastFinish sim.Time
	// Sysfs holds, per Config.SysfsWrites entry (same order), what the write did,
	// and Freezes, per LUN, its freeze counters (stack/sysfs.go); both nil for a
	// run without writes.
	Sysfs   []SysfsResult
	Freezes []dispatch.FreezeStats
	// Switches counts the context switches the emulated CPU costs were charged for.
	Switches SwitchCounts
}

// SwitchCounts are a run's charged switch events, for comparing with the guest's
// per-task schedstats (oracle facts: slices, voluntary and nonvoluntary switches).
type SwitchCounts struct {
	// KblockdPreemptRuns are kblockd runs that preempted their submitter
	// (dispatch.Host.KblockdPreemptCounts), KblockdProcessSwitches those of them
	// whose sleep handed the CPU to another fio process (CPUCosts.MMSwitch charged).
	KblockdPreemptRuns, KblockdProcessSwitches uint64
	// ProcessSwitches are the switches between two fio processes charged at a
	// wake-up, a sleep's hand-over or a tick preemption (stack/mmswitch.go mmRun).
	ProcessSwitches uint64
	// TickSwitches are the CFS tick preemptions (SubmitTiming.CheckPreemptTick),
	// TickRefillSwitches the tick's process switches SubmitTiming.TickSwitchRefill
	// charged.
	TickSwitches, TickRefillSwitches uint64
	// DrainSwitches are the switches SubmitTiming.DrainSwitch charged: a reader
	// process that drained its completions within its turn and slept.
	DrainSwitches uint64
	// SleepSwitches are the switches SubmitTiming.WakeupNoPreempt charged when the
	// running process slept with another awake on its CPU (counted in
	// ProcessSwitches too).
	SleepSwitches uint64
	// TLBRefill is the TLB refill charged after those switches beyond the
	// switches' own MMSwitch (SubmitTiming.TLBWorkingSet), ns of CPU time.
	TLBRefill sim.Time
}

// JobResult is one job instance's fio result plus where its I/Os waited.
type JobResult struct {
	Spec fio.Spec
	// Fio is the job's result in the fio package's types (fio JSON/text ready).
	Fio *fio.Result
	// CPU is the CPU the job's thread started on (placeJobs: fork placement).
	CPU int
	// LastCPU is the CPU the thread ran on at the end, and Migrations the number of
	// times the scheduler moved it to another CPU (Placement: at wake-ups by
	// select_task_rq_fair, or pulled by an idle CPU while it waited for its own).
	LastCPU, Migrations int
	// MaxSleepers is the largest number of the job's tasks (its thread, or its io-wq
	// workers) asleep in blk_mq_get_tag at the same time.
	MaxSleepers int
	// Wait splits the latency of the I/Os completed in the window.
	Wait WaitBreakdown
	// Stopped says why the job stopped before its runtime or size (rate_min
	// not met, exitall, steady state reached); "" if it did not.
	Stopped string
	// Depth is fio's I/O depth distributions over the window (iodepth_level,
	// iodepth_submit, iodepth_complete).
	Depth fio.DepthStats
	// SteadyState is the job's steadystate= state at its end (fio's JSON
	// "steadystate" object); nil without ss=.
	SteadyState *fio.SteadyStateResult
}

// WaitBreakdown is the mean time (ns) an I/O of a job spent in each stage, over the
// I/Os completed inside the measurement window.
type WaitBreakdown struct {
	// N is the number of I/Os averaged.
	N int64
	// TagWait is submission → request allocated or bio merged: io-wq queueing and
	// sleeping in blk_mq_get_tag (sched tags with an elevator, driver tags without).
	TagWait float64
	// Queued is allocation → accepted by the device: ctx list or elevator,
	// hctx->dispatch, waiting for budget or a driver tag.
	Queued float64
	// DispatchList is the part of Queued spent after the request first entered
	// hctx->dispatch (parked there after a budget, tag or device refusal).
	DispatchList float64
	// Device is accepted → completed: inside the device model.
	Device float64
	// WouldBlock counts REQ_NOWAIT submissions that got -EAGAIN (io_uring punts).
	WouldBlock int64
	// Merged counts bios merged into an existing request.
	Merged int64
	// Slept counts the averaged I/Os whose submission went to io-wq or slept in
	// blk_mq_get_tag; SleptLatency is their mean completion latency (ns) and
	// DirectLatency that of the others.
	Slept                       int64
	SleptLatency, DirectLatency float64
}

// runner is one run in progress.
type runner struct {
	cfg   Config
	eng   *sim.Engine
	host  *dispatch.Host   // host 0; its CPUs are every host's
	hosts []*dispatch.Host // every host (tag set), index as LUN.Host
	// parentCPU is where fio's parent process starts (fiothreads.go)
	parentCPU int
	// forkParentCounted: pickCPU counted fio's parent on CPU 0 (fork placement in its LLC)
	forkParentCounted bool
	// forkSeq[c] is the fork number (from 1) of the last job placed on CPU c, forkN the
	// jobs forked so far (Placement.ForkIdlestGroup)
	forkSeq []int
	forkN   int
	queues  []blockQueue // per LUN: *dispatch.Queue, or *legacyLUN on a Legacy host
	// hasBudgetMap tells, per LUN, whether its driver keeps a budget map.
	hasBudgetMap []bool
	jobs         []*job
	rnd          *sim.Rand // model jitter (Config.JitterSeed): reap and io-wq delays, worker CPUs
	sub          SubmitTiming
	// lastFinish is when the last job finished (stack/groups.go)
	lastFinish sim.Time
	runq       []*runQueue // io-wq workers waiting for each CPU (stack/iowq.go)
	// interrupted is set when Limits.Interrupt ended the run (stack/limits.go)
	interrupted bool
	cpuSched    cpuSched             // the scheduler's view of the CPUs (stack/placement.go)
	mm          mmState              // the address space loaded on each CPU (stack/mmswitch.go)
	sysfs       []SysfsResult        // outcomes of Config.SysfsWrites (stack/sysfs.go)
	sdevs       map[int]*scsi.Device // SCSI device of each LUN with device/queue_depth writes (stack/sysfs.go)
	tick        tickState            // the CFS run queues of fio threads (stack/schedtick.go)
}

// Run runs the fio jobs on the modelled machine in virtual time and returns the
// per-job results. Run is deterministic: the same Config (Seed and JitterSeed
// included) and specs give identical results. Memory does not grow with the
// simulated run length.
//
// Its errors are typed; tell them apart with errors.As, never by their text (a job
// may be named "watchdog"):
//   - *ConfigError: bad input, the run did not start: a Config field or job spec out
//     of range (the message names the field and the allowed range), a spec that
//     targets no LUN or allows no existing CPU, no specs at all, or a device
//     constructor's rejection of its parameters;
//   - *ResourceLimitError: the run's estimated memory or simulated events exceed
//     Config.Limits, before it starts or (events) while it runs;
//   - *WatchdogError: a modelled hang, or a job that stopped completing I/O, caught
//     by Config.Watchdog; the input was valid and the model failed.
//
// A run ended by Limits.Interrupt is not an error: Result.Interrupted is set.
func Run(cfg Config, specs []fio.Spec) (*Result, error) {
	if err := validateRun(&cfg, specs); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, configErrorf("specs", "no fio jobs")
	}
	r := &runner{cfg: cfg, eng: sim.NewEngine(), rnd: sim.NewRand(cfg.jitterSeed()), sub: cfg.Submit.withDefaults()}
	if err := r.assemble(); err != nil {
		return nil, err
	}
	if err := r.placeJobs(specs); err != nil {
		return nil, err
	}
	var err error
	phased := r.linkJobs()
	end := sim.Time(0)
	for _, j := range r.jobs {
		j.start()
		end = max(end, j.stopAt)
	}
	r.startFioParent()
	if len(cfg.SysfsWrites) > 0 { // stack/sysfs.go
		bound := end
		if phased {
			bound = sim.MaxTime
		}
		if err := r.checkSysfs(bound); err != nil {
			return nil, err
		}
		r.scheduleSysfs()
	}
	if phased {
		err = r.runPhased()
		end = r.phasedEnd()
	} else if end == sim.MaxTime {
		err = r.runSizeBound()
		end = r.eng.Now()
	} else {
		err = r.runTimeBound(end)
	}
	if errors.Is(err, errInterrupted) {
		r.interrupted, err = true, nil
		end = r.eng.Now()
	}
	if err != nil {
		return nil, err
	}
	return r.result(end), nil
}

// placeJobs maps each spec to a LUN and a CPU: the least loaded allowed CPU, lowest
// number first, as the Linux scheduler spreads runnable threads over idle CPUs. Each
// job's I/O goes to its file's region of the LUN (see fileKey): jobs that name the same
// file share one region, as fio's jobs share a file given by filename= (a block device
// is one file: two jobs on /dev/sda draw offsets over the same range); other files get
// consecutive 1 MiB-aligned regions, as large as their largest offset+size.
func (r *runner) placeJobs(specs []fio.Spec) error {
	load := make([]int, r.cfg.NrCPUs)
	type placed struct {
		q    blockQueue
		cpu  int
		size int64
		key  fileKey
	}
	ps := make([]placed, len(specs))
	extent := map[fileKey]int64{}
	var order []fileKey
	for i := range specs {
		s := &specs[i]
		q, err := r.lunFor(s)
		if err != nil {
			return err
		}
		cpu, err := r.pickCPU(s, load)
		if err != nil {
			return err
		}
		size := s.Size
		if size == 0 {
			size = 1 << 30
			if s.SizePercent > 0 {
				size = int64(float64(size) * s.SizePercent / 100)
			}
		}
		size -= size % s.BlockSize
		if size < s.BlockSize {
			return fmt.Errorf("stack: job %s: size %d smaller than bs %d", s.Instance(), s.Size, s.BlockSize)
		}
		k := jobFile(q, s, i)
		if _, ok := extent[k]; !ok {
			order = append(order, k)
		}
		extent[k] = max(extent[k], jobOffset(s)+size)
		ps[i] = placed{q, cpu, size, k}
	}
	r.parentCPU = 0 // fio's parent: the least loaded CPU after the jobs (fiothreads.go)
	for c := range load {
		if load[c] < load[r.parentCPU] {
			r.parentCPU = c
		}
	}
	if r.forkParentCounted {
		r.parentCPU = 0 // the parent forked the jobs from CPU 0 (pickCPU)
	}
	if r.forkIdlestGroup() {
		r.parentCPU = r.forkCPU() // the parent forked the jobs from there (pickIdlestGroupCPU)
	}
	regionStart := map[blockQueue]int64{} // next free byte of each LUN
	base := map[fileKey]int64{}
	for _, k := range order {
		base[k] = regionStart[k.q]
		regionStart[k.q] += (extent[k] + (1 << 20) - 1) &^ ((1 << 20) - 1)
	}
	for i := range specs {
		p := ps[i]
		allowed := specs[i].CPUsAllowed
		if len(allowed) == 0 {
			allowed = r.allCPUs()
		}
		j := newJob(r, specs[i], p.q, p.cpu, allowed, base[p.key]+jobOffset(&specs[i]), p.size, uint64(i))
		r.jobs = append(r.jobs, j)
	}
	return nil
}

// fileKey identifies the file a job does I/O to: its LUN and its filename= (the same
// name on the same LUN is the same file), or, for a job whose file fio names after the
// job (no filename=), the job itself.
type fileKey struct {
	q    blockQueue
	name string
	job  int // index of the spec when name is ""
}

// jobFile returns the file of spec i (fio's filename=, split on ':' for the first file).
func jobFile(q blockQueue, s *fio.Spec, i int) fileKey {
	if s.Filename == "" {
		return fileKey{q: q, job: i}
	}
	name, _, _ := strings.Cut(s.Filename, ":")
	if s.Directory != "" && !strings.HasPrefix(name, "/") {
		name = s.Directory + "/" + name
	}
	return fileKey{q: q, name: name, job: -1}
}

// pickCPU returns the least loaded CPU the spec allows and counts the job on it.
// On a machine of several last-level caches it looks first among the allowed CPUs of
// the forking CPU's LLC (CPU 0's, with fio's parent counted on CPU 0), unless
// Placement.ForkSpread.
func (r *runner) pickCPU(s *fio.Spec, load []int) (int, error) {
	allowed := s.CPUsAllowed
	if len(allowed) == 0 {
		allowed = r.allCPUs()
	}
	for _, c := range allowed {
		if c >= r.cfg.NrCPUs {
			return 0, fmt.Errorf("stack: job %s: cpus_allowed CPU %d out of range [0, %d]", s.Instance(), c, r.cfg.NrCPUs-1)
		}
	}
	if !r.cfg.Placement.ForkSpread && r.cfg.CPU.Costs.CPUsPerLLC > 0 && r.cfg.CPU.Costs.CPUsPerLLC < r.cfg.NrCPUs {
		if !r.forkParentCounted {
			r.forkParentCounted = true
			load[0]++ // fio's parent runs on CPU 0 while it forks (find_idlest_group: fully busy)
		}
		var local []int
		for _, c := range allowed {
			if r.sameLLC(c, 0) {
				local = append(local, c)
			}
		}
		if len(local) > 0 {
			allowed = local
		}
	}
	if r.forkIdlestGroup() {
		return r.pickIdlestGroupCPU(allowed, load), nil
	}
	cpu := -1
	for _, c := range allowed {
		if cpu < 0 || load[c] < load[cpu] {
			cpu = c
		}
	}
	load[cpu]++
	return cpu, nil
}

// forkIdlestGroup reports whether Placement.ForkIdlestGroup applies (one LLC, no
// ForkSpread).
func (r *runner) forkIdlestGroup() bool {
	n := r.cfg.CPU.Costs.CPUsPerLLC
	return r.cfg.Placement.ForkIdlestGroup && !r.cfg.Placement.ForkSpread && (n <= 0 || n >= r.cfg.NrCPUs)
}

// pickIdlestGroupCPU is Placement.ForkIdlestGroup's choice for the next forked job
// among allowed, given the jobs already placed on each CPU (load): fio's parent runs
// on the forking CPU (forkCPU), which find_idlest_group leaves while another allowed
// CPU is idle (every CPU but the parent's is: the earlier children sleep); among
// those, the lowest group_util — fewest children, then the one whose last child was
// forked first — and on a tie the first in the domain's group order, which starts at
// the forking CPU's group and goes up, wrapping. The forking CPU itself only when it
// is the only allowed CPU.
func (r *runner) pickIdlestGroupCPU(allowed []int, load []int) int {
	if r.forkSeq == nil {
		r.forkSeq = make([]int, r.cfg.NrCPUs)
	}
	r.forkN++
	p := r.forkCPU()
	cpu := -1
	at := wrapStart(p, allowed)
	for k := range allowed {
		c := allowed[(at+k)%len(allowed)]
		if c == p && len(allowed) > 1 {
			continue // the local group: the parent runs there (no idle CPU)
		}
		if cpu < 0 || load[c] < load[cpu] || load[c] == load[cpu] && r.forkSeq[c] < r.forkSeq[cpu] {
			cpu = c
		}
	}
	load[cpu]++
	r.forkSeq[cpu] = r.forkN
	return cpu
}

// forkCPU is the CPU fio's parent forks the jobs from under Placement.ForkIdlestGroup:
// Placement.FioParentCPU if set, else CPU 0 (assumed).
func (r *runner) forkCPU() int { return r.cfg.Placement.fioParentCPU(r.cfg.NrCPUs, 0) }

// allCPUs returns 0 … NrCPUs−1.
func (r *runner) allCPUs() []int {
	all := make([]int, r.cfg.NrCPUs)
	for c := range all {
		all[c] = c
	}
	return all
}

func (r *runner) lunFor(s *fio.Spec) (blockQueue, error) {
	if len(r.queues) == 1 && !namesOtherDevice(s.Target, r.cfg.LUNs[0].Name) {
		return r.queues[0], nil
	}
	for i, l := range r.cfg.LUNs {
		if l.Name == s.Target {
			return r.queues[i], nil
		}
	}
	return nil, fmt.Errorf("stack: job %s: target %q matches no LUN name", s.Instance(), s.Target)
}

func (r *runner) result(end sim.Time) *Result {
	res := &Result{End: end, Events: r.eng.Fired(), CPUBusy: r.host.CPUBusy(), LineTransfers: r.host.LineTransfers(), Contention: r.host.Contention(),
		Interrupted: r.interrupted}
	res.Switches.KblockdPreemptRuns, res.Switches.KblockdProcessSwitches = r.host.KblockdPreemptCounts()
	res.Switches.ProcessSwitches, res.Switches.TickSwitches, res.Switches.TLBRefill = r.mm.switches, r.schedTickSwitches(), r.mm.refilled
	res.Switches.TickRefillSwitches, res.Switches.DrainSwitches = r.mm.tickSwitches, r.mm.drainSwitches
	res.Switches.SleepSwitches = r.mm.sleepSwitches
	if r.allFinished() {
		res.LastFinish = r.lastFinish
	}
	r.sysfsResults(res)
	for i, bq := range r.queues {
		res.HasBudgetMap = append(res.HasBudgetMap, r.hasBudgetMap[len(res.HasBudgetMap)])
		q, ok := bq.(*dispatch.Queue)
		if !ok { // a legacy LUN: no hctx, and no disk statistics modelled (no disk_util entry)
			l := bq.(*legacyLUN)
			res.Queues = append(res.Queues, l.stats())
			res.Schedulers = append(res.Schedulers, l.q.Elevator().Name())
			res.Hctxs = append(res.Hctxs, nil)
			res.ActiveHctxs = append(res.ActiveHctxs, 0)
			continue
		}
		res.Queues = append(res.Queues, q.Stats())
		res.Schedulers = append(res.Schedulers, q.ElevatorName())
		var hs []dispatch.HctxStats
		active := 0
		for _, h := range q.Hctxs() {
			hs = append(hs, h.Stats())
			if h.TagState().Active() {
				active++
			}
		}
		res.ActiveHctxs = append(res.ActiveHctxs, active)
		res.Hctxs = append(res.Hctxs, hs)
		res.Disks = append(res.Disks, q.DiskStats())
		res.DiskNames = append(res.DiskNames, r.cfg.LUNs[i].Name)
	}
	if len(r.jobs) > 0 {
		res.Jobs = make([]JobResult, 0, len(r.jobs)) // one allocation: a JobResult is large, and jobs many
	}
	for _, j := range r.jobs {
		// fio's runtime is the job's elapsed time: a job whose runtime ran out
		// (a rate or thinktime sleep is capped at the timeout: rate_ddir) ran
		// to stopAt, time_based or not; one that finished its size (or was
		// stopped early) ran to its last completion
		wEnd := int64(j.stopAt)
		if j.stopAt == sim.MaxTime || j.lastDone < j.stopAt && j.finished && !j.spec.TimeBased && !j.timedOut {
			wEnd = int64(j.lastDone)
		}
		wStart := int64(j.windowStart)
		if wEnd < wStart {
			wEnd = wStart
		}
		if wEnd == math.MaxInt64 {
			wEnd = int64(end)
		}
		if r.interrupted {
			wStart, wEnd = r.interruptedWindow(j, wStart, wEnd, end)
		}
		if j.logs != nil {
			_ = j.logs.Close(wEnd) // the caller reads JobLogs.Err
		}
		res.Jobs = append(res.Jobs, JobResult{Spec: j.spec, Fio: j.coll.Finish(wStart, wEnd), CPU: j.cpu, LastCPU: j.runCPU, Migrations: j.migrations, Wait: j.wait.mean(), MaxSleepers: j.maxSleepers,
			Stopped: j.stopNote, Depth: j.depth, SteadyState: j.pace.ss.result()})
	}
	return res
}

// interruptedWindow is the window of job j in a run interrupted at end: an
// unfinished job's ends there (fio's runtime is the time it ran), a job not yet
// started has none.
func (r *runner) interruptedWindow(j *job, wStart, wEnd int64, end sim.Time) (int64, int64) {
	if !j.started {
		return int64(end), int64(end)
	}
	if !j.finished {
		wEnd = min(int64(j.stopAt), int64(end))
		if j.stopNote == "" {
			j.stopNote = fmt.Sprintf("interrupted at model time %v", end)
		}
	}
	wStart = min(wStart, int64(end))
	return wStart, max(wEnd, wStart)
}
