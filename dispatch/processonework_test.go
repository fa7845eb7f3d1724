package dispatch_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// TestProcessOneWork: a request parked on hctx 1 (CPU 1) and one asynchronous
// blk_mq_run_hw_queues from CPU 0, its kworker due after the drawn latency (10 µs
// here). By default the run dispatches as soon as it is due and CPU 1 is free, and its
// two context switches are charged after; with the ProcessOneWork rule (the default) the switch to
// the worker comes first (kernel/workqueue.c process_one_work calls the work function
// once the worker runs), so the dispatch is one CPUCosts.Switch later, and a second
// blk_mq_run_hw_queues during the switch-in is absorbed by the still-pending work
// (one run, where the default makes two; the driver keeps refusing in those rows, so
// the request stays pending). A busy CPU 1 delays both by its work.
func TestProcessOneWork(t *testing.T) {
	const (
		d  = 10 * sim.Microsecond // kblockd latency
		sw = 20 * sim.Microsecond // CPUCosts.Switch
		bz = 50 * sim.Microsecond // work charged on CPU 1 at the call
	)
	type got struct {
		At   sim.Time // dispatch of hctx 1 after the call
		Runs uint64   // hctx 1 runs after the call
	}
	tests := []struct {
		name  string
		pow   bool
		busy  sim.Time // CPU 1's work at the call
		again sim.Time // a second call this long after the first (0 = none)
		shut  bool     // the driver keeps refusing (no dispatch time)
		want  got
	}{
		{"default/idle", false, 0, 0, false, got{d, 1}},
		{"process-one-work/idle", true, 0, 0, false, got{d + sw, 1}},
		{"default/idle/second-call-during-switch", false, 0, d + sw/2, true, got{0, 2}},
		{"process-one-work/idle/second-call-during-switch", true, 0, d + sw/2, true, got{0, 1}},
		{"default/cpu1-busy", false, bz, 0, false, got{bz, 1}},
		{"process-one-work/cpu1-busy", true, bz, 0, false, got{bz + sw, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			costs := dispatch.DefaultCPUCosts()
			costs.Switch = sw
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 8,
				CPU:    dispatch.CPUModel{Costs: costs},
				Timing: dispatch.Timing{KblockdMin: d, KblockdMax: d, NoProcessOneWork: !tt.pow}})
			if err != nil {
				t.Fatal(err)
			}
			drv := &gate{eng: eng, at: map[int]sim.Time{}}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			bio := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: drv}
			q.SubmitBio(&bio, 1, true, nil)
			const t0 = sim.Millisecond
			eng.RunUntil(t0) // the request parked on hctx 1's dispatch list
			if len(drv.at) != 0 {
				t.Fatalf("dispatched %v before the gate opened", drv.at)
			}
			drv.open = !tt.shut
			runs0 := q.Hctxs()[1].Stats().Runs
			if tt.busy > 0 {
				h.OnCPU(1)
				h.Charge(tt.busy)
			}
			h.OnCPU(0)
			q.RunHwQueues(0, true)
			if tt.again > 0 {
				eng.RunUntil(t0 + tt.again)
				h.OnCPU(0)
				q.RunHwQueues(0, true)
			}
			eng.RunUntil(2 * t0)
			g := got{Runs: q.Hctxs()[1].Stats().Runs - runs0}
			if at, ok := drv.at[1]; ok {
				g.At = at - t0
			}
			if d := cmp.Diff(tt.want, g); d != "" {
				t.Errorf("hctx 1 after the call (-want +got):\n%s", d)
			}
		})
	}
}
