package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkmq/blkmq"
	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
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
	// size (kernel-behaviour.md §8.1: max_outstanding_req_per_channel × (sub-channels
	// + 1) × 90 %, "a few hundred" per channel, 4 channels at 16 CPUs). Any value
	// ≥ nr_requests gives the same results here: the tags are shrunk to nr_requests
	// (no elevator) or bounded by the 56 sched tags (mq-deadline), and the LUN
	// budget (15) binds before can_queue.
	StorvscCanQueue = 1024
	// StorvscKernel: the RFC was posted on 18 Feb 2022 against v5.17-rc.
	StorvscKernel = "5.17"
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
// (stack.Placement zero value: they move on 2 % of wake-ups, an assumption).
func StorvscConfig(shared bool, nrRequests int, seed uint64) stack.Config {
	return stack.Config{
		NrCPUs: StorvscCPUs,
		Host: stack.Host{CanQueue: StorvscCanQueue, NrHwQueues: StorvscCPUs, CmdPerLun: 2048,
			HctxShareTags: shared},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewThrottled(eng, device.Storvsc000Params())
			},
			QueueDepth: StorvscQueueDepth,
			NrRequests: nrRequests,
		}},
		Kernel: StorvscKernel,
		Seed:   seed,
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
	specs, err := StorvscSpecs(runtime)
	if err != nil {
		return nil, err
	}
	res, err := stack.Run(StorvscConfig(shared, nrRequests, seed), specs)
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
		Variants: []string{"tags=per-hctx", "tags=shared"}, Run: runStorvsc})
}

// runStorvsc is the claims-runner entry: metrics wal-IOPS, wal-clat-us, hogs-IOPS of a
// 60 s run.
func runStorvsc(variant string, seed uint64) (map[string]float64, error) {
	var shared bool
	switch variant {
	case "tags=per-hctx":
	case "tags=shared":
		shared = true
	default:
		return nil, fmt.Errorf("bench: storvsc: unknown variant %q (want tags=per-hctx or tags=shared)", variant)
	}
	f, err := RunStorvsc(shared, StorvscNrRequests, 60*time.Second, seed)
	if err != nil {
		return nil, err
	}
	return map[string]float64{"wal-IOPS": f.WalIOPS, "wal-clat-us": f.WalClatUs, "hogs-IOPS": f.HogsIOPS}, nil
}
