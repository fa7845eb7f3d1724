package bench

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/blkmq/blkmq"
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// SCSI-MQ scenario of seed 002 (Ming Lei, "blk-mq-sched: improve SCSI-MQ performance",
// v4.15): an SRP LUN, fio libaio 4 KiB direct, iodepth 64, 64 jobs, on "16 cores, dual
// sockets". Source: seed 002 unless stated.
const (
	// SCSIMQCPUs: "16 cores, dual sockets".
	SCSIMQCPUs = 16
	// SCSIMQCPUsPerLLC: two sockets of 8 cores (one last-level cache each).
	SCSIMQCPUsPerLLC = 8
	// SCSIMQNrHwQueues is ib_srp's channel count, one hctx per channel (v4.14
	// drivers/infiniband/ulp/srp/ib_srp.c srp_create_target: ch_count = max(nr_nodes,
	// min(min(4 × nr_nodes, nr_comp_vectors), nr_cpus)) without the ch_count module
	// parameter) = 8 on two NUMA nodes. Assumption: the HCA has ≥ 8 completion vectors.
	SCSIMQNrHwQueues = 8
	// SCSIMQMaxRequestKB is the largest request the LUN accepts, in KiB: ib_srp's
	// sg_tablesize defaults to SRP_DEF_SG_TABLESIZE = 12 (cmd_sg_entries, and
	// indirect_sg_entries defaults to it; srp_init_module), i.e. max_segments 12. fio's
	// 4 KiB buffers are separate, physically non-contiguous pages (assumption: no huge
	// pages under a 256 KiB buffer), one segment each, so a request holds at most 12
	// bios = 48 KiB. The model has no segment count; this byte limit stands for it.
	SCSIMQMaxRequestKB = 48
	// SCSIMQCanQueue is ib_srp's default queue_size 64 minus the response and task
	// management slots (SRP_DEFAULT_QUEUE_SIZE − SRP_RSP_SQ_SIZE − SRP_TSK_MGMT_SQ_SIZE
	// = 62): can_queue, and so the tag-set queue_depth per hctx.
	SCSIMQCanQueue = 62
	// SCSIMQCmdPerLun is ib_srp's cmd_per_lun (SRP_DEFAULT_CMD_SQ_SIZE = 62): the LUN
	// queue_depth, i.e. the budget the 64 × 64 outstanding I/Os compete for.
	SCSIMQCmdPerLun = 62
	// SCSIMQRuntime is the simulated fio runtime per cell (the published runs' length
	// is not given; the model's steady state is reached within a few ms).
	SCSIMQRuntime = 200 * time.Millisecond
)

// SCSIMQRWs are the four fio workloads of the tables, in table order.
var SCSIMQRWs = []string{"read", "randread", "write", "randwrite"}

// SCSIMQScheds are the table columns: "<scheduler>-<kernel>".
var SCSIMQScheds = []string{"deadline-legacy", "none-v4.13", "none-patched", "mq-deadline-v4.13", "mq-deadline-patched"}

// SCSIMQJob returns the fio job file testdata/fio/002_srp_<rw>.fio (embedded in the
// binary: blkmq.JobFiles) with its runtime replaced by SCSIMQRuntime.
func SCSIMQJob(rw string) ([]fio.Spec, error) {
	name := "002_srp_" + rw + ".fio"
	b, err := blkmq.JobFiles.ReadFile(path.Join("testdata", "fio", name))
	if err != nil {
		return nil, fmt.Errorf("bench: scsi-mq: %w", err)
	}
	job := regexp.MustCompile(`(?m)^runtime=.*$`).ReplaceAllString(string(b),
		fmt.Sprintf("runtime=%dms", SCSIMQRuntime.Milliseconds()))
	return fio.Parse(strings.NewReader(job), name)
}

// SCSIMQOptions returns the dispatch switches of a column's kernel: "v4.13"
// (dispatch.KernelPre415) or "legacy" (the same v4.13 kernel booted with
// scsi_mod.use_blk_mq=0) or "patched" (dispatch.Kernel("4.15"), the release that merged
// the series).
func SCSIMQOptions(era string) (dispatch.Options, error) {
	switch era {
	case "v4.13", "legacy":
		return dispatch.KernelPre415("4.13")
	case "patched":
		return dispatch.Kernel("4.15")
	}
	return dispatch.Options{}, fmt.Errorf("bench: scsi-mq: era %q not one of v4.13, legacy, patched", era)
}

// SCSIMQConfig is the modelled machine: 16 CPUs on two sockets, one SRP host
// (SCSIMQNrHwQueues channels = hctxs, can_queue 62 each), one LUN of queue_depth 62
// and 48 KiB largest request on SRP002Params, the kernel path of the column
// (elevator "none" or "mq-deadline", era "v4.13" or "patched"; or elevator "deadline"
// on era "legacy": the host with scsi_mod.use_blk_mq=0, stack.Host.Legacy, whose one
// request queue is fed by ib_srp's single channel in that mode, so one hctx-less
// queue with can_queue 62 and one completion vector). nr_requests is the kernel
// default of the era. The CPU cost table is dispatch.DefaultCPUCosts with two
// sockets. It returns an error for an unknown era.
//
// SRP002Params is derived from this source's own tables (controller time from
// the random-I/O figures, link bandwidth from the legacy sequential read): the random
// cells and the legacy read cell calibrate it and are not evidence; the sequential
// cells of the blk-mq columns and the patched/v4.13 ratios are.
func SCSIMQConfig(sched, era string, seed uint64) (stack.Config, error) {
	return scsiMQConfig(sched, era, seed, nil)
}

func scsiMQConfig(sched, era string, seed uint64, sc Scale) (stack.Config, error) {
	opts, err := SCSIMQOptions(era)
	if err != nil {
		return stack.Config{}, err
	}
	costs := scaleContention(scaleCPUPath(dispatch.DefaultCPUCosts(), sc), sc)
	costs.CPUsPerLLC = SCSIMQCPUsPerLLC
	host := stack.Host{CanQueue: SCSIMQCanQueue, NrHwQueues: SCSIMQNrHwQueues, CmdPerLun: SCSIMQCmdPerLun}
	if era == "legacy" {
		// srp_queuecommand sends every command of a non-mq host on ch[0]
		// (blk_mq_unique_tag_to_hwq of a legacy request is 0)
		host.NrHwQueues, host.Legacy = 1, true
	}
	return stack.Config{
		NrCPUs: SCSIMQCPUs,
		Host:   host,
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewSSD(eng, srp002Scaled(sc))
			},
			QueueDepth:   SCSIMQCmdPerLun,
			Scheduler:    sched,
			MaxSectorsKB: SCSIMQMaxRequestKB,
		}},
		Kernel:     "4.15",
		Options:    &opts,
		CPU:        dispatch.CPUModel{Costs: costs},
		Seed:       seed,
		JitterSeed: sc.jitterSeed(), // 0 (default) except in benchmarks
	}, nil
}

// SCSIMQFigures are one cell's measurements.
type SCSIMQFigures struct {
	// IOPS is the 64 jobs' total (group_reporting), reads plus writes.
	IOPS float64
	// MeanRequestBytes is the mean size of the commands the device received
	// (bytes dispatched / commands dispatched): the merge effect.
	MeanRequestBytes float64
	Result           *stack.Result
}

// RunSCSIMQ runs one cell: sched "none" or "mq-deadline" with era "v4.13" or
// "patched", or sched "deadline" with era "legacy"; rw one of SCSIMQRWs. It returns an error for unknown values, a missing
// job file, or a model failure.
func RunSCSIMQ(sched, era, rw string, seed uint64) (*SCSIMQFigures, error) {
	return runSCSIMQCell(sched, era, rw, seed, nil)
}

func runSCSIMQCell(sched, era, rw string, seed uint64, sc Scale) (*SCSIMQFigures, error) {
	specs, err := SCSIMQJob(rw)
	if err != nil {
		return nil, err
	}
	cfg, err := scsiMQConfig(sched, era, seed, sc)
	if err != nil {
		return nil, err
	}
	res, err := stack.Run(cfg, specs)
	if err != nil {
		return nil, err
	}
	f := &SCSIMQFigures{Result: res}
	for _, j := range res.Jobs {
		iops, _ := j.Fio.Total()
		f.IOPS += iops
	}
	if qs := res.Queues[0]; qs.Dispatched > 0 {
		f.MeanRequestBytes = float64(qs.DispatchedBytes) / float64(qs.Dispatched)
	}
	return f, nil
}

// scsiMQBlkMQScheds maps each column to (elevator, era); the legacy column runs the
// same jobs, CPUs and device through stack's legacy request path (stack.Host.Legacy).
var scsiMQBlkMQScheds = map[string][2]string{
	"deadline-legacy":     {"deadline", "legacy"},
	"none-v4.13":          {"none", "v4.13"},
	"none-patched":        {"none", "patched"},
	"mq-deadline-v4.13":   {"mq-deadline", "v4.13"},
	"mq-deadline-patched": {"mq-deadline", "patched"},
}

// scsiMQVariants lists "sched=<col>/rw=<rw>" for the given columns, in table order.
func scsiMQVariants(cols []string) []string {
	var out []string
	for _, c := range cols {
		for _, rw := range SCSIMQRWs {
			out = append(out, "sched="+c+"/rw="+rw)
		}
	}
	return out
}

// parseSCSIMQVariant splits "sched=<col>/rw=<rw>".
func parseSCSIMQVariant(v string) (col, rw string, err error) {
	a, b, ok := strings.Cut(v, "/")
	col, ok1 := strings.CutPrefix(a, "sched=")
	rw, ok2 := strings.CutPrefix(b, "rw=")
	if !ok || !ok1 || !ok2 || !slices.Contains(SCSIMQScheds, col) || !slices.Contains(SCSIMQRWs, rw) {
		return "", "", fmt.Errorf("bench: scsi-mq: variant %q: want sched=<%s>/rw=<%s>", v,
			strings.Join(SCSIMQScheds, "|"), strings.Join(SCSIMQRWs, "|"))
	}
	return col, rw, nil
}

// runSCSIMQ is the claims-runner entry: metric "IOPS" (and "mean-request-bytes", the
// mean command size the device saw).
func runSCSIMQ(variant string, seed uint64) (map[string]float64, error) {
	return runSCSIMQWith(variant, seed, nil)
}

func runSCSIMQWith(variant string, seed uint64, sc Scale) (map[string]float64, error) {
	col, rw, err := parseSCSIMQVariant(variant)
	if err != nil {
		return nil, err
	}
	f, err := scsiMQCell(col, rw, seed, sc)
	if err != nil {
		return nil, err
	}
	return map[string]float64{"IOPS": f.IOPS, "mean-request-bytes": f.MeanRequestBytes}, nil
}

func init() {
	Register(Scenario{Name: "scsi-mq", Source: "002_ff2e374edb86df80.txt",
		Variants: scsiMQVariants(SCSIMQScheds), Run: runSCSIMQ, RunScaled: runSCSIMQWith, Params: SCSIMQParams()})
}

// srp002Scaled is SRP002Params with the sensitivity factors applied.
func srp002Scaled(sc Scale) device.SSDParams {
	p := SRP002Params()
	p.ControllerOverhead = sim.Time(float64(p.ControllerOverhead) * sc.Of("srp.controller-cost"))
	p.LinkBytesPerSec *= sc.Of("srp.link")
	p.ReadLatency = sim.Time(float64(p.ReadLatency) * sc.Of("srp.media-latency"))
	p.WriteLatency = sim.Time(float64(p.WriteLatency) * sc.Of("srp.media-latency"))
	p.ParallelUnits = max(1, int(float64(p.ParallelUnits)*sc.Of("srp.parallel-units")+0.5))
	return p
}

// SCSIMQParams are the SRP scenario's parameters with their basis. Two are calibrated
// on the source's own cells, and the figures that follow from them are reported as
// calibrated: the per-command target cost binds every random cell and the unmerged
// 4 KiB commands of the v4.13 mq-deadline column; the link binds every merged
// sequential cell; the gains are their ratio. Only the "unchanged" ratios (both sides
// bound by the same cost) and the merge sizes are independent of them.
func SCSIMQParams() []Param {
	p := SRP002Params()
	return []Param{
		{Name: "srp.cpus", Value: SCSIMQCPUs, Unit: "CPUs", Basis: BasisSourced, Ref: "seed 002: \"16 cores, dual sockets\" (8 per socket)"},
		{Name: "srp.jobs", Value: 64, Unit: "jobs x qd 64", Basis: BasisSourced, Ref: "seed 002: fio libaio, bs 4k, direct, queue_depth 64, 64 jobs (testdata/fio/002_srp_*.fio)"},
		{Name: "srp.nr_hw_queues", Value: SCSIMQNrHwQueues, Unit: "", Basis: BasisSourced,
			Ref: "ib_srp srp_create_target ch_count on 2 NUMA nodes (v4.14 source); assumes the HCA has >= 8 completion vectors"},
		{Name: "srp.can_queue", Value: SCSIMQCanQueue, Unit: "", Basis: BasisSourced, Ref: "ib_srp default queue_size 64 minus response and task-management slots"},
		{Name: "srp.max-request", Value: SCSIMQMaxRequestKB, Unit: "KiB", Basis: BasisSourced,
			Ref: "ib_srp SRP_DEF_SG_TABLESIZE 12 segments x 4 KiB pages (assumes no physically contiguous fio buffers)"},
		{Name: "srp.controller-cost", Value: float64(p.ControllerOverhead) / 1e3, Unit: "us/command", Basis: BasisCalibrated, Scalable: true,
			Ref: "1 / the ~142.7K random-read IOPS every blk-mq column reaches; no independent target latency found. One cost for both directions, " +
				"though ib_srpt handles two signaled completions per write (srpt_write_pending -> srpt_rdma_read_done, then srpt_queue_response) " +
				"and one per read (its RDMA WRITEs ride unsignaled ahead of the response): not modelled, its size unsourced",
			Cells: []string{"002/none-v4.13/randread", "002/none-patched/randread", "002/mq-deadline-v4.13/randread", "002/mq-deadline-patched/randread"},
			Follows: []string{"002/*/randread", "002/*/randwrite", "002/mq-deadline-v4.13/read", "002/mq-deadline-v4.13/write",
				"002/mq-deadline/read-gain", "002/mq-deadline/write-gain"}},
		{Name: "srp.link", Value: p.LinkBytesPerSec / 1e9, Unit: "GB/s", Basis: BasisCalibrated, Scalable: true,
			Ref:   "587.81K x 4 KiB of the legacy read cell; 4x QDR/FDR InfiniBand carry 4.0/6.8 GB/s of data, so the physical link is not what bound it",
			Cells: []string{"002/deadline-legacy/read"},
			Follows: []string{"002/deadline-legacy/read", "002/deadline-legacy/write", "002/none-*/read", "002/none-*/write",
				"002/mq-deadline-patched/read", "002/mq-deadline-patched/write", "002/mq-deadline/read-gain", "002/mq-deadline/write-gain"}},
		{Name: "srp.media-latency", Value: float64(p.ReadLatency) / 1e3, Unit: "us", Basis: BasisAssumed, Scalable: true,
			Ref: "a RAM-backed target's access time; unknown"},
		{Name: "srp.parallel-units", Value: float64(p.ParallelUnits), Unit: "", Basis: BasisAssumed, Scalable: true,
			Ref: "enough that the 64 jobs never find the media the bottleneck"},
		cpuPathParam(),
		contentionParams()[0], contentionParams()[1], contentionParams()[2],
		{Name: "srp.kernel", Value: 4.13, Unit: "", Basis: BasisSourced, Ref: "v4.13-rc6 with block for-next, and the series as merged for v4.15"},
	}
}

// SCSIMQCell runs one table cell by column name (SCSIMQScheds) and rw.
func SCSIMQCell(col, rw string, seed uint64) (*SCSIMQFigures, error) {
	return scsiMQCell(col, rw, seed, nil)
}

func scsiMQCell(col, rw string, seed uint64, sc Scale) (*SCSIMQFigures, error) {
	if _, _, err := parseSCSIMQVariant("sched=" + col + "/rw=" + rw); err != nil {
		return nil, err
	}
	se := scsiMQBlkMQScheds[col]
	return runSCSIMQCell(se[0], se[1], rw, seed, sc)
}
