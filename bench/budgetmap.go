package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// BudgetMapJob is the fio command line of seed 003 ("scsi: core: Improve IOPS in case
// of host-wide tags") as a job file (testdata/fio/003_scsi_debug.fio); BudgetMapSpecs
// substitutes the runtime.
const BudgetMapJob = `
[global]
bs=4096
disable_clat=1
disable_slat=1
group_reporting=1
gtod_reduce=1
invalidate=1
ioengine=io_uring
ioscheduler=none
norandommap
runtime=60
rw=randread
thread
time_based=1
buffered=0
numjobs=1
iodepth=192
iodepth_batch=24

[/dev/sda]
filename=/dev/sda
`

// Budget-map scenario parameters. Source: seed 003 unless stated.
const (
	// BudgetMapCPUs is nproc, which sets submit_queues: the patch author's machine is
	// not stated. Assumption: 16 CPUs. Only one CPU does any work (one fio job, its
	// hctx, the scsi_debug completion inline), so the count does not change the result.
	BudgetMapCPUs = 16
	// BudgetMapCanQueue is host_max_queue=192 (scsi_debug: can_queue = host_max_queue,
	// and host_tagset is set when host_max_queue is given).
	BudgetMapCanQueue = 192
	// BudgetMapCmdPerLun is scsi_debug's cmd_per_lun (DEF_CMD_PER_LUN = 255 [M]),
	// capped at can_queue: queue_depth 192 = can_queue, so scsi_needs_budget_map is
	// false with host-wide tags and the proposal skips the map.
	BudgetMapCmdPerLun = 255
	// BudgetMapRuntime is the simulated run (virtual time); the rate is steady after a
	// few hundred µs.
	BudgetMapRuntime = 200 * time.Millisecond
	// BudgetMapIONs is the CPU time of one I/O on one core in this setup (ns), sourced:
	// 1/(1 M IOPS). Bart Van Assche (the author of seed 003), linux-scsi, 5 Apr 2022,
	// "Re: [PATCH 00/29] UFS patches for kernel v5.19" (Message-ID
	// ca7dff5d-ad32-fafe-d522-f455be04e2ef@acm.org): "The scsi_debug driver supports
	// more than a million IOPS on a single CPU core", with the script attached
	// (scsi_debug-iops): modprobe scsi_debug max_queue=128 submit_queues=$(nproc)
	// delay=0 fake_rw=1; fio --numjobs=1 --thread --gtod_reduce=1 --ioscheduler=none
	// --direct=1 --bs=512 --rw=read, ioengine io_uring with --hipri=1
	// --iodepth_batch=iodepth/2 (psync at iodepth 1), under numactl -m 0 -N 0. The
	// CPU is not named, nor the iodepth of the quoted figure; the kernel is v5.18-era.
	// "More than" makes 1 µs an upper bound on the path. Against seed 003's job the
	// script skips scsi_debug's data copy (fake_rw=1: no do_device_access), reads
	// 512 B, and polls its completions (hipri) where 003 reaps them by task work.
	BudgetMapIONs = 1000
)

// budgetMapPathFactor scales dispatch.DefaultCPUCosts' per-I/O path (cpuPathNs, split
// unchanged) so that path plus the costs the model charges separately per I/O — the
// driver tag and budget get+put (BenchmarkIOPath) and the budget word's two owned-line
// atomics (Transfer.Self) — make BudgetMapIONs: (1000 − 57) / 1600 = 0.589.
func budgetMapPathFactor() float64 {
	c := dispatch.DefaultCPUCosts()
	sep := c.TagGet + c.TagPut + c.BudgetGet + c.BudgetPut + 2*c.Transfer.Self
	return float64(BudgetMapIONs-sep) / float64(cpuPathNs(c))
}

// budgetMapCPUPathParam is the budget-map scenario's ParamCPUPath entry: sourced
// (BudgetMapIONs), where the other scenarios' is assumed (cpuPathParam).
func budgetMapCPUPathParam() Param {
	v := budgetMapPathFactor() * float64(cpuPathNs(dispatch.DefaultCPUCosts())) / 1e3
	return Param{Name: ParamCPUPath, Value: v, Unit: "us/IO", Basis: BasisSourced, Scalable: true,
		Ref: "1 us per I/O (Bart Van Assche, linux-scsi, 5 Apr 2022, Message-ID ca7dff5d-ad32-fafe-d522-f455be04e2ef@acm.org: " +
			"scsi_debug delay=0 'supports more than a million IOPS on a single CPU core', attached script: fio 1 job, thread, " +
			"io_uring hipri or psync, 512 B reads, fake_rw=1, ioscheduler none; CPU not named) less the tag, budget and " +
			"owned-line costs charged separately; dispatch.DefaultCPUCosts' split scaled by 0.589; an upper bound ('more than')"}
}

// BudgetMapSpecs parses BudgetMapJob with the runtime replaced.
func BudgetMapSpecs(runtime time.Duration) ([]fio.Spec, error) {
	job := strings.Replace(BudgetMapJob, "runtime=60", fmt.Sprintf("runtime=%dms", runtime.Milliseconds()), 1)
	return fio.Parse(strings.NewReader(job), "003_scsi_debug.fio")
}

// BudgetMapConfig is the modelled machine of seed 003: scsi_debug delay=0 (commands
// complete at once, in the submitting CPU's context, as scsi_debug does without a
// delay), max_queue 192, host_max_queue 192 (host-wide tags), submit_queues = CPUs, one
// LUN, scheduler none, the current kernel. skip selects the proposal
// (budget.Options.BudgetMapSkip, evaluated by budget.Host.NeedsBudgetMap); the CPU cost
// table, for both, is dispatch.DefaultCPUCosts with its per-I/O path scaled to the
// sourced BudgetMapIONs (budgetMapPathFactor).
func BudgetMapConfig(skip bool, seed uint64) stack.Config {
	return budgetMapConfig(skip, seed, nil)
}

func budgetMapConfig(skip bool, seed uint64, sc Scale) stack.Config {
	cpus := max(1, int(float64(BudgetMapCPUs)*sc.Of(paramBudgetCPUs)+0.5))
	cfg := stack.Config{
		NrCPUs: cpus,
		Host: stack.Host{CanQueue: BudgetMapCanQueue, NrHwQueues: cpus, CmdPerLun: BudgetMapCmdPerLun,
			HostTagset: true},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				p := device.ScsiDebugParams()
				p.CompletionNsec = device.ScsiDebugDelay(0, 0, 250) // delay=0
				return device.NewNull(eng, p)
			},
			Scheduler: "none",
		}},
		Options:    &dispatch.Options{BudgetMapSkip: skip},
		Seed:       seed,
		JitterSeed: sc.jitterSeed(), // 0 (default) except in benchmarks
	}
	c := scaleContention(scaleCPUPathBy(dispatch.DefaultCPUCosts(), budgetMapPathFactor()*sc.Of(ParamCPUPath)), sc)
	if k := sc.Of(paramBudgetGetPut); k != 1 {
		c.BudgetGet = sim.Time(float64(c.BudgetGet)*k + 0.5)
		c.BudgetPut = sim.Time(float64(c.BudgetPut)*k + 0.5)
	}
	if k := sc.Of(paramSubmitSyscall); k != 1 {
		c.SubmitSyscall = min(sim.Time(float64(c.SubmitSyscall)*k+0.5), c.Submit)
	}
	cfg.CPU = dispatch.CPUModel{Costs: c}
	return cfg
}

// Scalable parameters of the budget-map scenario besides the CPU-cost ones.
const (
	// paramBudgetCPUs scales nproc (CPUs, hardware queues and submit_queues).
	paramBudgetCPUs = "budget.cpus"
	// paramBudgetGetPut scales CPUCosts.BudgetGet and BudgetPut: this library's Go
	// sbitmap stands in for the kernel's, whose get and put are a
	// test_and_set_bit_lock and a set_bit on lines the one CPU owns (two locked
	// instructions, ~20 cycles each on x86) plus the hint loads and stores.
	paramBudgetGetPut = "budget.get-put"
	// paramSubmitSyscall scales CPUCosts.SubmitSyscall, the share of Submit one
	// io_uring_enter pays once whatever its SQE count (capped at Submit): it acts
	// only on calls of more than one SQE, here the queue fill's 24-SQE batches.
	paramSubmitSyscall = "cpu.submit-syscall"
)

// BudgetMapFigures are the scenario's metrics of one run.
type BudgetMapFigures struct {
	IOPS float64
	// CPUPerIO is the CPU time charged per completed I/O on all CPUs (ns).
	CPUPerIO float64
	// CPUsBusy is the CPU time charged on all CPUs over the run time: the number of
	// CPUs kept busy (≈ 1: one fio thread, which may move between CPUs, with its
	// inline completions).
	CPUsBusy float64
	Result   *stack.Result
}

// RunBudgetMap runs seed 003's job for runtime on BudgetMapConfig.
func RunBudgetMap(skip bool, runtime time.Duration, seed uint64) (*BudgetMapFigures, error) {
	return runBudgetMapScaled(skip, runtime, seed, nil)
}

func runBudgetMapScaled(skip bool, runtime time.Duration, seed uint64, sc Scale) (*BudgetMapFigures, error) {
	specs, err := BudgetMapSpecs(runtime)
	if err != nil {
		return nil, err
	}
	res, err := stack.Run(budgetMapConfig(skip, seed, sc), specs)
	if err != nil {
		return nil, err
	}
	f := &BudgetMapFigures{Result: res}
	var ios float64
	for _, j := range res.Jobs {
		r := j.Fio.Read()
		f.IOPS += r.IOPS
		ios += float64(r.TotalIOs)
	}
	var busy sim.Time
	for _, b := range res.CPUBusy {
		busy += b
	}
	if ios > 0 {
		f.CPUPerIO = float64(busy) / float64(res.Queues[0].Completed)
	}
	f.CPUsBusy = float64(busy) / float64(res.End)
	return f, nil
}

func init() {
	Register(Scenario{Name: "budget-map", Source: "003_d725e3b6786add72.txt",
		Variants: []string{"budget=map", "budget=skip"}, Run: runBudgetMap, RunScaled: runBudgetMapWith,
		Params: []Param{
			{Name: "scsi_debug.host_max_queue", Value: BudgetMapCanQueue, Unit: "", Basis: BasisSourced, Ref: "seed 003: modprobe scsi_debug delay=0 host_max_queue=192"},
			{Name: "scsi_debug.cmd_per_lun", Value: BudgetMapCmdPerLun, Unit: "", Basis: BasisSourced, Ref: "scsi_debug DEF_CMD_PER_LUN, capped at can_queue"},
			{Name: "fio.iodepth", Value: 192, Unit: "", Basis: BasisSourced, Ref: "seed 003: fio io_uring, 1 job, iodepth 192, iodepth_batch 24"},
			{Name: paramBudgetCPUs, Value: BudgetMapCPUs, Unit: "CPUs", Basis: BasisAssumed, Scalable: true, Ref: "nproc is not stated; one CPU does all the work, so the count does not change the result"},
			{Name: paramBudgetGetPut, Value: 24, Unit: "ns", Basis: BasisSourced, Scalable: true, Ref: "this library's budget map get+put, BenchmarkIOPath on one core (BENCHMARKS.md); a proxy for the kernel's two locked bit operations, so scaled in the sensitivity runs"},
			budgetMapCPUPathParam(),
			{Name: paramSubmitSyscall, Value: float64(scaleCPUPathBy(dispatch.DefaultCPUCosts(), budgetMapPathFactor()).SubmitSyscall), Unit: "ns/call", Basis: BasisAssumed, Scalable: true,
				Ref: "dispatch.DefaultCPUCosts' 200 ns (a null syscall's entry/exit, ~100 ns without KPTI, plus io_uring_enter's fixed part; plausible 100-400 ns), scaled with the sourced cpu.path"},
			contentionParams()[0], contentionParams()[1], contentionParams()[2],
		}})
}

// runBudgetMap is the claims-runner entry: metric IOPS (plus CPU-ns-per-IO and
// cpus-busy) of a BudgetMapRuntime run.
func runBudgetMap(variant string, seed uint64) (map[string]float64, error) {
	return runBudgetMapWith(variant, seed, nil)
}

func runBudgetMapWith(variant string, seed uint64, sc Scale) (map[string]float64, error) {
	var skip bool
	switch variant {
	case "budget=map":
	case "budget=skip":
		skip = true
	default:
		return nil, fmt.Errorf("bench: budget-map: unknown variant %q (want budget=map or budget=skip)", variant)
	}
	f, err := runBudgetMapScaled(skip, BudgetMapRuntime, seed, sc)
	if err != nil {
		return nil, err
	}
	return map[string]float64{"IOPS": f.IOPS, "CPU-ns-per-IO": f.CPUPerIO, "cpus-busy": f.CPUsBusy}, nil
}
