package stack_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"pgregory.net/rapid"
)

// TestRandomMachinesMakeProgress: on random small machines (CPUs, hw queues,
// can_queue, host-wide tags, LUN depth, nr_requests, scheduler, kernel era, a device
// that sometimes answers busy) with random fio jobs, Run never panics or errs and I/O
// completes — a global hang is a model bug. A single job may starve: with a LUN depth
// of 1, a batching job whose plug flushes keep hctx->dispatch non-empty starves a
// request of another job parked in the ctx list (direct issue bypasses the dispatch
// list and the ctx is served only once the list drains; found by this test with
// 1 CPU, queue_depth 1, libaio iodepth 9 batch 3 next to iodepth 1).
func TestRandomMachinesMakeProgress(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cpus := rapid.IntRange(1, 8).Draw(rt, "cpus")
		hw := rapid.IntRange(1, 8).Draw(rt, "hw")
		canQueue := rapid.IntRange(1, 64).Draw(rt, "can_queue")
		busy := rapid.SampledFrom([]float64{0, 0, 0.01}).Draw(rt, "busy")
		cfg := stack.Config{
			NrCPUs: cpus,
			Host:   stack.Host{CanQueue: canQueue, NrHwQueues: hw, HostTagset: rapid.Bool().Draw(rt, "host_tagset")},
			LUNs: []stack.LUN{{
				Device: func(eng *sim.Engine) (device.Device, error) {
					return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 20 * sim.Microsecond,
						BusyProbability: busy, BusyStatus: device.HostBusy, Seed: 3})
				},
				QueueDepth: rapid.IntRange(1, canQueue).Draw(rt, "queue_depth"),
				Scheduler:  rapid.SampledFrom([]string{"", "none", "mq-deadline"}).Draw(rt, "scheduler"),
			}},
			Kernel: rapid.SampledFrom([]string{"", "4.19", "5.9", "5.17", "6.1", "6.8"}).Draw(rt, "kernel"),
			Seed:   rapid.Uint64().Draw(rt, "seed"),
		}
		if cfg.LUNs[0].Scheduler == "mq-deadline" || rapid.Bool().Draw(rt, "set_nr") {
			cfg.LUNs[0].NrRequests = rapid.IntRange(1, canQueue).Draw(rt, "nr_requests")
		}
		job := "[global]\ndirect=1\nruntime=40ms\ntime_based\nfilesize=256m\n"
		nj := rapid.IntRange(1, 4).Draw(rt, "jobs")
		for i := 0; i < nj; i++ {
			job += fmt.Sprintf("[j%d]\nioengine=%s\niodepth=%d\nrw=%s\nbs=%dk\niodepth_batch_submit=%d\n", i,
				rapid.SampledFrom([]string{"libaio", "io_uring", "psync"}).Draw(rt, "engine"),
				rapid.IntRange(1, 64).Draw(rt, "iodepth"),
				rapid.SampledFrom([]string{"read", "write", "randread", "randwrite", "randrw"}).Draw(rt, "rw"),
				rapid.SampledFrom([]int{4, 8, 64, 256}).Draw(rt, "bs"),
				rapid.IntRange(1, 8).Draw(rt, "batch"))
		}
		specs := parse(t, job)
		res, err := stack.Run(cfg, specs)
		if err != nil {
			rt.Fatalf("Run: %v", err)
		}
		total := int64(0)
		for _, j := range res.Jobs {
			total += j.Fio.Read().TotalIOs + j.Fio.Write().TotalIOs
		}
		if total == 0 {
			rt.Fatalf("no I/O completed in 40 ms (queues %+v)", res.Queues)
		}
	})
}
