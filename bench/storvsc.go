package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkmq/blkmq"
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// StorvscJob is the fio job file of seed 000 (storvsc "Hardware queues share
// blk_mq_tags"): testdata/fio/000_storvsc.fio, verbatim; StorvscSpecs substitutes the
// runtime.
var StorvscJob = blkmq.Storvsc000Job

// Storvsc scenario parameters. Source: seed 000 unless stated.
const (
	// StorvscCPUs: "a 16-core VM".
	StorvscCPUs = 16
	// StorvscQueueDepth: "queue_depth set to 15".
	StorvscQueueDepth = 15
	// StorvscNrRequests: "nr_requests set to 56".
	StorvscNrRequests = 56
	// StorvscCanQueue is an assumption: storvsc computes can_queue from its VMBus ring
	// size (drivers/scsi/storvsc_drv.c: max_outstanding_req_per_channel × (sub-channels
	// + 1) × 90 %, "a few hundred" per channel, 4 channels at 16 CPUs). Any value
	// ≥ nr_requests gives the same results here: the tags are shrunk to nr_requests
	// (no elevator) or bounded by the 56 sched tags (mq-deadline), and the LUN
	// budget (15) binds before can_queue.
	StorvscCanQueue = 1024
	// StorvscKernel: the RFC was posted on 18 Feb 2022 against v5.17-rc.
	StorvscKernel = "5.17"
	// storvscVCPUsPerSubChannel is storvsc_vcpus_per_sub_channel's default (4,
	// drivers/scsi/storvsc_drv.c): 4 VMBus channels on 16 CPUs, whose target CPUs
	// receive the completions (scsi.StorvscChannelCPU).
	storvscVCPUsPerSubChannel = 4
	// storvscJobs is the job file's number of fio jobs (15 read_hogs + 1 wal).
	storvscJobs = 16
)

// StorvscSpecs parses StorvscJob with the runtime replaced (seconds).
func StorvscSpecs(runtime time.Duration) ([]fio.Spec, error) {
	job := strings.Replace(StorvscJob, "runtime=60", fmt.Sprintf("runtime=%dms", runtime.Milliseconds()), 1)
	return fio.Parse(strings.NewReader(job), "storvsc-000.fio")
}

// StorvscConfig is the modelled VM of seed 000 with one policy switch: shared is
// hctx_share_tags (host-wide tags). nr_hw_queues = CPUs as storvsc sets it; the disk is
// device.Storvsc000Params (5000 IOPS / 200 MB/s). Everything else is the same for both
// policies; the kernel's consequences of the switch (mq-deadline by default, one
// scheduler-tag pool of nr_requests for the device) follow from it inside dispatch.
// The jobs' directory= puts their files on a file system, so stack's v5.17 file-system
// rules apply (stack.FSOptions zero value: io_uring's inline submission sleeps in
// blk_mq_get_tag, iomap's per-dio plug; XFS), and the fio threads are unpinned
// (stack.Placement zero value, PlaceFair: 6.1's select_task_rq_fair at each wake-up
// and idle balance of a thread waiting for its CPU; the source does not pin its jobs).
func StorvscConfig(shared bool, nrRequests int, seed uint64) stack.Config {
	return storvscConfig(shared, nrRequests, seed, nil)
}

// storvscConfig is StorvscConfig with scaled parameters (StorvscParams names).
func storvscConfig(shared bool, nrRequests int, seed uint64, sc Scale) stack.Config {
	disk := Storvsc000Params()
	disk.BaseLatency = sim.Time(float64(disk.BaseLatency) * sc.Of("storvsc.base-latency"))
	disk.IOPSBurst = max(1, disk.IOPSBurst*sc.Of("storvsc.iops-burst"))
	cfg := stack.Config{
		NrCPUs: StorvscCPUs,
		Host: stack.Host{CanQueue: StorvscCanQueue, NrHwQueues: StorvscCPUs, CmdPerLun: 2048,
			HctxShareTags: shared, Completion: scsi.CompleteOnVMBusChannel,
			ChannelCPUs: scsi.StorvscChannelCPUs(StorvscCPUs, storvscVCPUsPerSubChannel)},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewThrottled(eng, disk)
			},
			QueueDepth: StorvscQueueDepth,
			NrRequests: nrRequests,
		}},
		Kernel:     StorvscKernel,
		Seed:       seed,
		JitterSeed: sc.jitterSeed(), // 0 (default) except in benchmarks
	}
	applyPlacementScale(&cfg, sc)
	applyFioParentScale(&cfg, sc, storvscJobs)
	applyKblockdScale(&cfg, sc)
	return cfg
}

// ParamKblockdLatency is the name of the kblockd wake-up latency (dispatch.Timing
// KblockdMin..KblockdMax, 5-30 µs): under the default rule the delay of every
// asynchronous hctx run, under Timing.KblockdTTWU the IPI delivery and idle exit of a
// worker on another CPU. Assumed.
const ParamKblockdLatency = "dispatch.kblockd-latency"

// kblockdLatencyParam is ParamKblockdLatency with its basis.
func kblockdLatencyParam() Param {
	t := dispatch.DefaultTiming()
	return Param{Name: ParamKblockdLatency, Value: float64(t.KblockdMax) / 1e3, Unit: "µs (upper bound; drawn from a sixth of it up)", Basis: BasisAssumed, Scalable: true,
		Ref: "dispatch.Timing.KblockdMin..KblockdMax 5-30 µs: a kworker wake-up on an idle CPU, not measured; under Timing.KblockdTTWU the IPI delivery and idle exit " +
			"(KVM's halt-polling documentation: a host scheduler trip is 'on the order of a few micro-seconds')"}
}

// applyKblockdScale applies a scaled ParamKblockdLatency to cfg.
func applyKblockdScale(cfg *stack.Config, sc Scale) {
	if f := sc.Of(ParamKblockdLatency); f != 1 {
		t := dispatch.DefaultTiming()
		cfg.Timing.KblockdMin = max(1, sim.Time(float64(t.KblockdMin)*f))
		cfg.Timing.KblockdMax = max(1, sim.Time(float64(t.KblockdMax)*f))
	}
}

// StorvscFigures are the scenario's metrics of one run.
type StorvscFigures struct {
	WalIOPS, WalClatUs, HogsIOPS float64
	Wal                          stack.JobResult
	Result                       *stack.Result
}

// RunStorvsc runs the seed-000 jobs for runtime on StorvscConfig.
func RunStorvsc(shared bool, nrRequests int, runtime time.Duration, seed uint64) (*StorvscFigures, error) {
	return runStorvscScaled(shared, nrRequests, runtime, seed, nil)
}

func runStorvscScaled(shared bool, nrRequests int, runtime time.Duration, seed uint64, sc Scale) (*StorvscFigures, error) {
	specs, err := StorvscSpecs(runtime)
	if err != nil {
		return nil, err
	}
	return storvscFigures(shared, nrRequests, specs, seed, sc)
}

// runStorvscPinned is runStorvscScaled with fio job i pinned to CPU i mod 16
// (cpus_allowed): the 15 hogs on CPUs 0-14, the wal on CPU 15.
func runStorvscPinned(shared bool, nrRequests int, runtime time.Duration, seed uint64, sc Scale) (*StorvscFigures, error) {
	specs, err := StorvscSpecs(runtime)
	if err != nil {
		return nil, err
	}
	for i := range specs {
		specs[i].CPUsAllowed = []int{i % StorvscCPUs}
	}
	return storvscFigures(shared, nrRequests, specs, seed, sc)
}

// runStorvscTTWU is runStorvscScaled with dispatch.Timing.KblockdTTWU: a kblockd
// run's worker woken as try_to_wake_up does (the completing CPU's own worker first,
// the others after an IPI, in hctx order), which decides the hctx that wins a budget
// token a completion frees.
func runStorvscTTWU(shared bool, nrRequests int, runtime time.Duration, seed uint64, sc Scale) (*StorvscFigures, error) {
	specs, err := StorvscSpecs(runtime)
	if err != nil {
		return nil, err
	}
	cfg := storvscConfig(shared, nrRequests, seed, sc)
	cfg.Timing.KblockdTTWU = true
	return storvscFiguresOf(cfg, specs)
}

// runStorvscTasks is runStorvscScaled with the scheduler tasks PlaceFair leaves out
// by default (stack.Placement KworkerTasks, FioParent): kblockd's kworkers and fio's
// parent process as tasks (placement in try_to_wake_up is the default since round 5).
func runStorvscTasks(shared bool, nrRequests int, runtime time.Duration, seed uint64, sc Scale) (*StorvscFigures, error) {
	specs, err := StorvscSpecs(runtime)
	if err != nil {
		return nil, err
	}
	cfg := storvscConfig(shared, nrRequests, seed, sc)
	cfg.Placement.KworkerTasks, cfg.Placement.FioParent = true, true
	return storvscFiguresOf(cfg, specs)
}

func storvscFigures(shared bool, nrRequests int, specs []fio.Spec, seed uint64, sc Scale) (*StorvscFigures, error) {
	return storvscFiguresOf(storvscConfig(shared, nrRequests, seed, sc), specs)
}

func storvscFiguresOf(cfg stack.Config, specs []fio.Spec) (*StorvscFigures, error) {
	res, err := stack.Run(cfg, specs)
	if err != nil {
		return nil, err
	}
	f := &StorvscFigures{Result: res}
	for _, j := range res.Jobs {
		switch j.Spec.Name {
		case "wal":
			f.WalIOPS = j.Fio.Write().IOPS
			f.WalClatUs = j.Fio.Write().Clat.Mean / 1e3
			f.Wal = j
		case "read_hogs":
			f.HogsIOPS += j.Fio.Read().IOPS
		}
	}
	return f, nil
}

func init() {
	Register(Scenario{Name: "storvsc", Source: "000_3f9e87d917f8ad71.txt",
		Variants: []string{"tags=per-hctx", "tags=shared", "tags=per-hctx/pinned", "tags=shared/pinned", "tags=per-hctx/tasks", "tags=shared/tasks",
			"tags=per-hctx/kblockd-ttwu", "tags=shared/kblockd-ttwu"},
		Run: runStorvsc, RunScaled: runStorvscWith, Params: StorvscParams()})
}

// ParamWakeMigrate is the name of stack's deprecated free migration rate
// (stack.PlaceRandom), still used by the smartpqi scenario.
const ParamWakeMigrate = "stack.wake-migrate"

// ParamSchedTick is the name of stack's scheduler tick (stack.DefaultSchedTick, when
// the idle-load balancer can pull a waiting fio thread), an assumption shared by every
// scenario with unpinned fio threads.
const ParamSchedTick = "stack.sched-tick"

// schedTickParam is ParamSchedTick with its basis.
func schedTickParam() Param {
	return Param{Name: ParamSchedTick, Value: float64(stack.DefaultSchedTick) / 1e6, Unit: "ms", Basis: BasisAssumed, Scalable: true,
		Ref: "1/HZ, CONFIG_HZ=250 as in Debian's and Ubuntu's x86 kernels; the sources do not give their kernel configuration. " +
			"Unpinned fio threads are placed by stack.PlaceFair (6.1 select_task_rq_fair, idle balance after the sourced 0.5 ms sysctl_sched_migration_cost)"}
}

// ParamFioParentRun is the name of the CPU time of one loop of fio's parent process
// (stack.FioParentRunBase + stack.FioParentRunPerJob per job), an assumption shared by
// every scenario with unpinned fio threads.
const ParamFioParentRun = "stack.fio-parent-run"

// fioParentRunParam is ParamFioParentRun with its basis, for a scenario of jobs jobs.
func fioParentRunParam(jobs int) Param {
	return Param{Name: ParamFioParentRun, Value: float64(stack.FioParentRunFor(jobs)) / 1e3, Unit: "µs", Basis: BasisAssumed, Scalable: true,
		Ref: "CPU time of one pass of fio's parent loop (backend.c run_threads: reap_threads, one waitpid(WNOHANG) per job, then do_usleep(10000)): " +
			"4 µs plus 1 µs per job, the order of a system call and a context switch; not measured. The 10 ms period is fio's (sourced)"}
}

// applyPlacementScale applies a scaled ParamSchedTick to cfg.
func applyPlacementScale(cfg *stack.Config, sc Scale) {
	if f := sc.Of(ParamSchedTick); f != 1 {
		cfg.Placement.Tick = max(1, sim.Time(float64(stack.DefaultSchedTick)*f))
	}
}

// applyFioParentScale applies a scaled ParamFioParentRun to cfg (a scenario of jobs
// fio jobs).
func applyFioParentScale(cfg *stack.Config, sc Scale, jobs int) {
	if f := sc.Of(ParamFioParentRun); f != 1 {
		cfg.Placement.FioParentRun = max(1, sim.Time(float64(stack.FioParentRunFor(jobs))*f))
	}
}

// StorvscParams are the parameters of the storvsc scenarios with their basis.
func StorvscParams() []Param {
	d := Storvsc000Params()
	return []Param{
		{Name: "storvsc.cpus", Value: StorvscCPUs, Unit: "CPUs", Basis: BasisSourced, Ref: "seed 000: \"a 16-core VM\"; nr_hw_queues = CPUs as storvsc sets it"},
		{Name: "storvsc.queue_depth", Value: StorvscQueueDepth, Unit: "", Basis: BasisSourced, Ref: "seed 000: \"queue_depth set to 15\""},
		{Name: "storvsc.nr_requests", Value: StorvscNrRequests, Unit: "", Basis: BasisSourced, Ref: "seed 000: \"nr_requests set to 56\""},
		{Name: "storvsc.iops-cap", Value: d.IOPS, Unit: "IOPS", Basis: BasisSourced, Ref: "seed 000: \"combined (VM + disk) max ... IOPS of 5000\"; = Azure Premium SSD P30 (1 TiB) in Azure's size table"},
		{Name: "storvsc.bandwidth-cap", Value: d.BandwidthBytesPerSec / 1e6, Unit: "MB/s", Basis: BasisSourced, Ref: "seed 000: \"max BW of 200 MB/s\" (Azure P30)"},
		{Name: "storvsc.iops-unit", Value: float64(d.IOPSUnitBytes >> 10), Unit: "KiB", Basis: BasisSourced, Ref: "Azure documentation of IOPS accounting: I/Os up to 256 KiB count as one"},
		{Name: "storvsc.base-latency", Value: float64(d.BaseLatency) / 1e6, Unit: "ms", Basis: BasisAssumed, Scalable: true,
			Ref: "Azure documents 'single-digit millisecond' latency for Premium SSD; 2 ms is not measured"},
		{Name: "storvsc.iops-burst", Value: d.IOPSBurst, Unit: "I/Os", Basis: BasisAssumed, Scalable: true,
			Ref: "token-bucket depth (20 ms of rate): a smoothing window for a disk without credit bursting"},
		{Name: "storvsc.can_queue", Value: StorvscCanQueue, Unit: "", Basis: BasisAssumed,
			Ref: "storvsc derives can_queue from its VMBus ring size; any value >= nr_requests gives the same figures (the LUN budget of 15 binds first)"},
		schedTickParam(),
		fioParentRunParam(storvscJobs),
		kblockdLatencyParam(),
		{Name: "storvsc.kernel", Value: 5.17, Unit: "", Basis: BasisSourced, Ref: "the RFC was posted in Feb 2022 against v5.17-rc"},
	}
}

// runStorvsc is the claims-runner entry: metrics wal-IOPS, wal-clat-us, hogs-IOPS of a
// 60 s run.
func runStorvsc(variant string, seed uint64) (map[string]float64, error) {
	return runStorvscWith(variant, seed, nil)
}

// runStorvscWith runs one variant with scaled parameters. The "/pinned" variants pin
// every fio job to one CPU (cpus_allowed, the jobs spread round robin over the CPUs):
// the source does not say how its jobs were placed, so these are informational. The
// "/tasks" variants add the scheduler tasks PlaceFair leaves out by default
// (runStorvscTasks), and the "/kblockd-ttwu" variants the opt-in kblockd wake-up rule
// (runStorvscTTWU), also informational.
func runStorvscWith(variant string, seed uint64, sc Scale) (map[string]float64, error) {
	base, pinned := strings.CutSuffix(variant, "/pinned")
	base, tasks := strings.CutSuffix(base, "/tasks")
	base, ttwu := strings.CutSuffix(base, "/kblockd-ttwu")
	var shared bool
	switch base {
	case "tags=per-hctx":
	case "tags=shared":
		shared = true
	default:
		return nil, fmt.Errorf("bench: storvsc: unknown variant %q (want tags=per-hctx or tags=shared, optionally /pinned, /tasks or /kblockd-ttwu)", variant)
	}
	if pinned || tasks || ttwu {
		run := runStorvscPinned
		switch {
		case tasks:
			run = runStorvscTasks
		case ttwu:
			run = runStorvscTTWU
		}
		f, err := run(shared, StorvscNrRequests, 60*time.Second, seed, sc)
		if err != nil {
			return nil, err
		}
		return map[string]float64{"wal-IOPS": f.WalIOPS, "wal-clat-us": f.WalClatUs, "hogs-IOPS": f.HogsIOPS}, nil
	}
	f, err := memoStorvsc(shared, StorvscNrRequests, 60*time.Second, seed, sc) // also a sweep point
	if err != nil {
		return nil, err
	}
	return map[string]float64{"wal-IOPS": f.WalIOPS, "wal-clat-us": f.WalClatUs, "hogs-IOPS": f.HogsIOPS}, nil
}
