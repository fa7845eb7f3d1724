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

// SmartpqiJob is the fio job file of seed 001 (testdata/fio/001_smartpqi.fio) with the
// run made time-based: SmartpqiSpecs substitutes ramp_time and runtime (the source
// writes size=100g per disk after a 15 s ramp; the rate is steady long before).
const SmartpqiJob = `
[global]
ioengine=libaio
rw=write
size=100g
bs=4k
direct=1
ramp_time=15
time_based=1
runtime=60
iodepth=4096

[/dev/sdd]
[/dev/sde]
[/dev/sdf]
[/dev/sdg]
[/dev/sdh]
[/dev/sdi]
[/dev/sdj]
[/dev/sdk]
[/dev/sdl]
[/dev/sdm]
[/dev/sdn]
[/dev/sdo]
[/dev/sdp]
[/dev/sdq]
[/dev/sdr]
`

// SmartpqiDisks lists the 15 disks of seed 001 in order (/dev/sdd … /dev/sdr) with
// their HPE model numbers.
var SmartpqiDisks = []struct{ Dev, Model string }{
	{"/dev/sdd", "EG0900FBLSK"}, {"/dev/sde", "EG0900FBLSK"}, {"/dev/sdf", "EG0900FBLSK"},
	{"/dev/sdg", "EH0300FBQDD"}, {"/dev/sdh", "EG0900FDJYR"}, {"/dev/sdi", "EG0300FCVBF"},
	{"/dev/sdj", "EG0900FBLSK"}, {"/dev/sdk", "EG0900FBLSK"}, {"/dev/sdl", "EG0900FBLSK"},
	{"/dev/sdm", "MO0200FBRWB"}, {"/dev/sdn", "MM0500FBFVQ"}, {"/dev/sdo", "MM0500GBKAK"},
	{"/dev/sdp", "EG0900FBVFQ"}, {"/dev/sdq", "VO006400JWZJT"}, {"/dev/sdr", "VO015360JWZJN"},
}

// Smartpqi scenario parameters. Source: seed 001 unless stated.
const (
	// SmartpqiCPUs: the job file's commented-out cpus_allowed=0-27 suggests 28 CPUs.
	// Assumption: a 2-socket server with 14 cores per socket, no SMT; smartpqi sets
	// nr_hw_queues = num_queue_groups = one per CPU.
	SmartpqiCPUs = 28
	// SmartpqiCPUsPerSocket: 14 (same assumption); completions are sent to the
	// submitting CPU across sockets (rq_affinity=1), and a woken task is placed on an
	// idle CPU of its target's socket (select_idle_sibling's last-level cache).
	SmartpqiCPUsPerSocket = 14
	// ParamSmartpqiCPUsPerSocket scales SmartpqiCPUsPerSocket in sensitivity runs.
	ParamSmartpqiCPUsPerSocket = "smartpqi.cpus-per-socket"
	// SmartpqiCanQueue is scsi_ml_can_queue = max_outstanding_requests −
	// PQI_RESERVED_IO_SLOTS. Assumption: 1013 (the can_queue commonly shown by Gen10
	// Smart Array controllers; recalled, not verified).
	SmartpqiCanQueue = 1013
	// SmartpqiSASQueueDepth is the LUN queue_depth of a SAS disk: the firmware's
	// current_queue_depth_limit (BMIC identify physical device). Assumption: 128; the
	// source's overload ("the host is sent more commands than it can handle", 15 disks)
	// needs the LUN depths to sum above can_queue, i.e. more than 67 per disk.
	SmartpqiSASQueueDepth = 128
	// SmartpqiSATAQueueDepth is smartpqi's PQI_PHYSICAL_DISK_DEFAULT_MAX_QUEUE_DEPTH
	// (27 = SATA NCQ 31 − 4 firmware commands), for the one ATA disk.
	SmartpqiSATAQueueDepth = 27
	// SmartpqiMaxSectorsKB: smartpqi's max_sectors = PQI_MAX_TRANSFER_SIZE (1 MiB) /
	// 512, below the 1280 KiB block-layer default.
	SmartpqiMaxSectorsKB = 1024
	// SmartpqiKernel: the measurement was posted on 3 Feb 2021 (v5.11-rc).
	SmartpqiKernel = "5.11"
	// SmartpqiAdapterCost is the controller's time per command. Assumption: 0.6 µs
	// (≈1.6 M commands/s, the order of the IOPS rating of the SmartROC 3154 controller
	// family behind the P408e-p; recalled, not verified).
	SmartpqiAdapterCost = 600 * sim.Nanosecond
	// SmartpqiRamp and SmartpqiRuntime are the simulated warm-up and window.
	SmartpqiRamp    = 300 * time.Millisecond
	SmartpqiRuntime = 300 * time.Millisecond
)

// SmartpqiVariants are the policies compared (the claims' variant names):
//   - can_queue-div: can_queue / nr_hw_queues tags per hctx (the 5.5–5.9 workaround);
//   - nr_hw_queues-1: one hardware queue with the full can_queue;
//   - host_tagset: host-wide tags of can_queue over nr_hw_queues = CPUs (the fix);
//   - unpatched: nr_hw_queues = CPUs, each hctx with the full can_queue, no host_busy
//     check since v5.5.
var SmartpqiVariants = []string{"variant=can_queue-div", "variant=nr_hw_queues-1", "variant=host_tagset", "variant=unpatched"}

// SmartpqiSpecs parses SmartpqiJob with ramp and runtime replaced.
func SmartpqiSpecs(ramp, runtime time.Duration) ([]fio.Spec, error) {
	job := strings.Replace(SmartpqiJob, "ramp_time=15", fmt.Sprintf("ramp_time=%dms", ramp.Milliseconds()), 1)
	job = strings.Replace(job, "runtime=60", fmt.Sprintf("runtime=%dms", runtime.Milliseconds()), 1)
	return fio.Parse(strings.NewReader(job), "001_smartpqi.fio")
}

// SmartpqiHost returns the host shape of a variant: nr_hw_queues, can_queue (the tag
// set depth) and host_tagset.
func SmartpqiHost(variant string) (stack.Host, error) {
	h := stack.Host{CanQueue: SmartpqiCanQueue, NrHwQueues: SmartpqiCPUs, CmdPerLun: SmartpqiCanQueue}
	switch variant {
	case "variant=can_queue-div":
		h.CanQueue = SmartpqiCanQueue / SmartpqiCPUs
	case "variant=nr_hw_queues-1":
		h.NrHwQueues = 1
	case "variant=host_tagset":
		h.HostTagset = true
	case "variant=unpatched":
	default:
		return h, fmt.Errorf("bench: smartpqi: unknown variant %q (want one of %v)", variant, SmartpqiVariants)
	}
	h.CmdPerLun = h.CanQueue // pqi_register_scsi: cmd_per_lun = can_queue
	return h, nil
}

// SmartpqiOptions are the kernel rules of the measurement (v5.11): no host_busy check
// (since v5.5), every hctx run with a single-queue scheduler (before v5.12), and the
// default elevator of v5.10–v5.12: mq-deadline only when nr_hw_queues == 1, so the
// host_tagset variant (nr_hw_queues = CPUs) runs with none — the write-performance loss
// that Ming Lei's 580dca8143d2 (v5.13, "blk-mq: set default elevator as deadline in case
// of hctx shared tagset") fixed.
func SmartpqiOptions() dispatch.Options {
	o, _ := dispatch.Kernel(SmartpqiKernel)
	return o
}

// SmartpqiRig is one run's machine: the stack configuration and the adapter the LUNs
// sit behind (created on the run's engine when the first LUN is built).
type SmartpqiRig struct {
	Config  stack.Config
	Adapter *device.Host
}

// NewSmartpqiRig builds the machine of one variant. Everything but the host shape is
// the same for every variant: devices, CPU costs (dispatch.DefaultCPUCosts with 14
// CPUs per socket), kernel rules.
func NewSmartpqiRig(variant string, seed uint64) (*SmartpqiRig, error) {
	return newSmartpqiRig(variant, seed, nil)
}

func newSmartpqiRig(variant string, seed uint64, sc Scale) (*SmartpqiRig, error) {
	h, err := SmartpqiHost(variant)
	if err != nil {
		return nil, err
	}
	rig := &SmartpqiRig{}
	adapter := func(eng *sim.Engine) (*device.Host, error) {
		if rig.Adapter == nil {
			a, err := device.NewHost(eng, device.HostParams{Name: "P408e-p", CanQueue: SmartpqiCanQueue,
				CommandCost: sim.Time(float64(SmartpqiAdapterCost) * sc.Of("smartpqi.adapter-cost"))})
			if err != nil {
				return nil, err
			}
			rig.Adapter = a
		}
		return rig.Adapter, nil
	}
	costs := scaleContention(scaleCPUPath(dispatch.DefaultCPUCosts(), sc), sc)
	costs.CPUsPerLLC = max(1, int(float64(SmartpqiCPUsPerSocket)*sc.Of(ParamSmartpqiCPUsPerSocket)+0.5))
	opts := SmartpqiOptions()
	cfg := stack.Config{NrCPUs: SmartpqiCPUs, Host: h, Options: &opts, Seed: seed,
		CPU: dispatch.CPUModel{Costs: costs}, JitterSeed: sc.jitterSeed()} // 0 (default) except in benchmarks
	applyPlacementScale(&cfg, sc)
	applyWakePlacementScale(&cfg, sc)
	sasQD := max(1, int(float64(SmartpqiSASQueueDepth)*sc.Of("smartpqi.sas-queue-depth")+0.5))
	for _, d := range SmartpqiDisks {
		model := d.Model
		qd := sasQD
		if model == "MM0500GBKAK" {
			qd = SmartpqiSATAQueueDepth
		}
		cfg.LUNs = append(cfg.LUNs, stack.LUN{Name: d.Dev, QueueDepth: min(qd, h.CanQueue),
			MaxSectorsKB: SmartpqiMaxSectorsKB,
			Device: func(eng *sim.Engine) (device.Device, error) {
				a, err := adapter(eng)
				if err != nil {
					return nil, err
				}
				dev, err := SmartpqiDevice(eng, model)
				if err != nil {
					return nil, err
				}
				return a.Attach(dev), nil
			}})
	}
	rig.Config = cfg
	return rig, nil
}

// SmartpqiFigures are the scenario's metrics of one run.
type SmartpqiFigures struct {
	// IOPS is the aggregate write IOPS of the 15 jobs.
	IOPS float64
	// PeakOverCanQueue is the adapter's peak offered commands over can_queue.
	PeakOverCanQueue float64
	// HostBusyFrac is the fraction of the commands the block layer handed the
	// adapter that it refused because it already held can_queue (SCSI host busy):
	// 0 when the block layer never sends more than the adapter can take, > 0 under
	// the source's overload ("the host is sent more commands than it can handle").
	HostBusyFrac float64
	// MeanCommandKiB is the mean size of the commands the adapter accepted.
	MeanCommandKiB float64
	// CPUUtil is the mean utilisation of the CPUs; MaxCPUUtil the busiest one's.
	CPUUtil, MaxCPUUtil float64
	// TagWaitUs, QueuedUs, DeviceUs are the mean µs an I/O spent allocating (sleeping
	// for a tag), queued (ctx/elevator/dispatch list) and in the device.
	TagWaitUs, QueuedUs, DeviceUs float64
	// MergedFrac is the fraction of bios merged into an existing request.
	MergedFrac float64
	Schedulers []string
	Result     *stack.Result
}

// RunSmartpqi runs seed 001's jobs on one variant.
func RunSmartpqi(variant string, ramp, runtime time.Duration, seed uint64) (*SmartpqiFigures, error) {
	specs, err := SmartpqiSpecs(ramp, runtime)
	if err != nil {
		return nil, err
	}
	return runSmartpqiSpecs(variant, specs, seed, nil)
}

// runSmartpqiSpecs runs the given jobs on one variant's machine.
func runSmartpqiSpecs(variant string, specs []fio.Spec, seed uint64, sc Scale) (*SmartpqiFigures, error) {
	return runSmartpqiSpecsWith(variant, specs, seed, sc, nil)
}

// runSmartpqiSpecsWith is runSmartpqiSpecs with edit applied to the assembled
// configuration (a mechanism test's switch; nil for none).
func runSmartpqiSpecsWith(variant string, specs []fio.Spec, seed uint64, sc Scale, edit func(*stack.Config)) (*SmartpqiFigures, error) {
	rig, err := newSmartpqiRig(variant, seed, sc)
	if err != nil {
		return nil, err
	}
	if edit != nil {
		edit(&rig.Config)
	}
	res, err := stack.Run(rig.Config, specs)
	if err != nil {
		return nil, err
	}
	f := &SmartpqiFigures{Result: res, Schedulers: res.Schedulers}
	var n, merged float64
	for _, j := range res.Jobs {
		f.IOPS += j.Fio.Write().IOPS
		w := j.Wait
		n += float64(w.N)
		merged += float64(w.Merged)
		f.TagWaitUs += w.TagWait * float64(w.N)
		f.QueuedUs += w.Queued * float64(w.N)
		f.DeviceUs += w.Device * float64(w.N)
	}
	if n > 0 {
		f.TagWaitUs /= n * 1e3
		f.QueuedUs /= n * 1e3
		f.DeviceUs /= n * 1e3
	}
	var cmds, bytes, bios uint64
	for _, q := range res.Queues {
		cmds += q.Dispatched
		bytes += q.DispatchedBytes
		bios += q.Bios
	}
	if cmds > 0 {
		f.MeanCommandKiB = float64(bytes) / float64(cmds) / 1024
	}
	if bios > 0 {
		f.MergedFrac = merged / n
	}
	f.PeakOverCanQueue = float64(rig.Adapter.PeakOffered()) / float64(SmartpqiCanQueue)
	if busy := float64(rig.Adapter.HostBusyCount()); busy > 0 {
		f.HostBusyFrac = busy / (busy + float64(cmds))
	}
	var busy sim.Time
	for _, b := range res.CPUBusy {
		busy += b
		f.MaxCPUUtil = max(f.MaxCPUUtil, float64(b)/float64(res.End))
	}
	f.CPUUtil = float64(busy) / float64(res.End) / float64(len(res.CPUBusy))
	return f, nil
}

func init() {
	Register(Scenario{Name: "smartpqi", Source: "001_e5d45b9687b03847.txt", Variants: SmartpqiVariants, Run: runSmartpqi,
		RunScaled: runSmartpqiWith, Params: SmartpqiParams()})
}

// SmartpqiParams are the smartpqi scenario's parameters with their basis (the disk
// models are listed by SmartpqiDevice: recalled data-sheet figures, assumptions).
func SmartpqiParams() []Param {
	return []Param{
		{Name: "smartpqi.disks", Value: float64(len(SmartpqiDisks)), Unit: "LUNs", Basis: BasisSourced, Ref: "seed 001: lsscsi listing and job file, /dev/sdd../dev/sdr"},
		{Name: "smartpqi.cpus", Value: SmartpqiCPUs, Unit: "CPUs", Basis: BasisAssumed, Ref: "the job file's commented-out cpus_allowed=0-27 suggests 28; 2 sockets x 14 cores assumed"},
		{Name: "smartpqi.can_queue", Value: SmartpqiCanQueue, Unit: "", Basis: BasisAssumed, Ref: "scsi_ml_can_queue of Gen10 Smart Array controllers as commonly shown; recalled, not verified"},
		{Name: "smartpqi.sas-queue-depth", Value: SmartpqiSASQueueDepth, Unit: "", Basis: BasisAssumed, Scalable: true,
			Ref: "firmware queue depth per SAS disk; the source's overload needs the LUN depths to sum above can_queue (> 67 each)"},
		{Name: "smartpqi.sata-queue-depth", Value: SmartpqiSATAQueueDepth, Unit: "", Basis: BasisSourced, Ref: "smartpqi PQI_PHYSICAL_DISK_DEFAULT_MAX_QUEUE_DEPTH (27)"},
		{Name: "smartpqi.max_sectors_kb", Value: SmartpqiMaxSectorsKB, Unit: "KiB", Basis: BasisSourced, Ref: "smartpqi PQI_MAX_TRANSFER_SIZE (1 MiB)"},
		{Name: "smartpqi.adapter-cost", Value: float64(SmartpqiAdapterCost) / 1e3, Unit: "us/command", Basis: BasisAssumed, Scalable: true,
			Ref: "controller time per command, the order of the SmartROC 3154 family's IOPS rating; recalled, not verified"},
		{Name: "smartpqi.disk-models", Value: 15, Unit: "disks", Basis: BasisAssumed, Ref: "seek, media rate, cache and SSD figures per model recalled from data sheets (bench.SmartpqiDevice), not verified"},
		{Name: ParamSmartpqiCPUsPerSocket, Value: SmartpqiCPUsPerSocket, Unit: "CPUs per LLC", Basis: BasisAssumed, Scalable: true,
			Ref: "2 sockets x 14 cores, no SMT (assumed with smartpqi.cpus): the last-level cache select_idle_sibling searches for an idle CPU"},
		cpuPathParam(),
		schedTickParam(),
		wakePlacementParams()[0], wakePlacementParams()[1],
		contentionParams()[0], contentionParams()[1], contentionParams()[2],
		{Name: "smartpqi.kernel", Value: 5.11, Unit: "", Basis: BasisSourced, Ref: "the measurement was posted on 3 Feb 2021 (v5.11-rc)"},
	}
}

// runSmartpqi is the claims-runner entry: IOPS (aggregate), adapter-peak-over-can_queue
// and the mechanism figures.
func runSmartpqi(variant string, seed uint64) (map[string]float64, error) {
	return runSmartpqiWith(variant, seed, nil)
}

func runSmartpqiWith(variant string, seed uint64, sc Scale) (map[string]float64, error) {
	specs, err := SmartpqiSpecs(SmartpqiRamp, SmartpqiRuntime)
	if err != nil {
		return nil, err
	}
	f, err := runSmartpqiSpecs(variant, specs, seed, sc)
	if err != nil {
		return nil, err
	}
	return map[string]float64{"IOPS": f.IOPS, "adapter-peak-over-can_queue": f.PeakOverCanQueue,
		"host-busy-frac": f.HostBusyFrac,
		"command-KiB":    f.MeanCommandKiB, "cpu-util": f.CPUUtil, "max-cpu-util": f.MaxCPUUtil}, nil
}
