package dispatch_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// gate refuses every command (BLK_STS_DEV_RESOURCE, parked on hctx->dispatch) until
// open, then accepts and records when each hctx dispatched.
type gate struct {
	eng  *sim.Engine
	open bool
	at   map[int]sim.Time // hctx → acceptance time
}

func (d *gate) QueueRQ(h *dispatch.Hctx, _ *dispatch.Request, _ bool, _ int) dispatch.Status {
	if !d.open {
		return dispatch.BlkStsDevResource
	}
	d.at[h.Index()] = d.eng.Now()
	return dispatch.BlkStsOK
}
func (d *gate) CommitRQs(*dispatch.Hctx, int)                    {}
func (d *gate) Complete(*dispatch.Request, int)                  {}
func (d *gate) Timeout(*dispatch.Request) dispatch.TimeoutAction { return dispatch.BlkEHDone }
func (d *gate) InitHctx(*dispatch.Hctx) error                    { return nil }
func (d *gate) EndBio(*dispatch.Bio, sim.Time, error)            {}

// TestKblockdTTWUWakeOrder: one asynchronous blk_mq_run_hw_queues from CPU `from` with
// a request parked on each of 4 hctxs (one CPU each). With Timing.KblockdTTWU the
// worker of the calling CPU runs once the caller has sent every wake-up
// (try_to_wake_up activates a local task itself); each other worker's IPI leaves the
// caller after the wake-ups before it and its own (Wakeup each, in hctx order), is
// delivered to the idle CPU after the drawn latency (10 µs here) and costs the target
// the interrupt and the activation (IPI + Wakeup) before the run; a busy target's
// worker runs after the target's work and the interrupt. The default rule gives every
// worker the same drawn latency.
func TestKblockdTTWUWakeOrder(t *testing.T) {
	c := dispatch.DefaultCPUCosts()
	const d = 10 * sim.Microsecond
	w, r := c.Wakeup, c.IPI+c.Wakeup // a wake-up sent; one received from idle
	tests := []struct {
		name  string
		ttwu  bool
		costs bool
		// serial: Timing.RunHwQueuesSerialWake (the default rule, each run due after
		// the wake-ups the caller sent before it)
		serial bool
		from   int
		busy   map[int]sim.Time // CPU → work charged there at the call
		want   map[int]sim.Time // hctx → dispatch time after the call
	}{
		{"default/costs-off/from-cpu2", false, false, false, 2, nil, map[int]sim.Time{0: d, 1: d, 2: d, 3: d}},
		{"default/costs-on/from-cpu2", false, true, false, 2, nil, map[int]sim.Time{0: d, 1: d, 2: d, 3: d}},
		// RunHwQueuesSerialWake: hctx k's run is due its latency after the k wake-ups
		// the loop sent before it, whichever CPU's worker it is; no CPU costs, no order
		{"serial/costs-on/from-cpu2", false, true, true, 2, nil, map[int]sim.Time{0: d, 1: w + d, 2: 2*w + d, 3: 3*w + d}},
		{"serial/costs-off/from-cpu2", false, false, true, 2, nil, map[int]sim.Time{0: d, 1: d, 2: d, 3: d}},
		// under KblockdTTWU the switch changes nothing (its IPIs already leave in order)
		{"ttwu+serial/costs-on/from-cpu0", true, true, true, 0, nil,
			map[int]sim.Time{0: 4 * w, 1: 2*w + d + r, 2: 3*w + d + r, 3: 4*w + d + r}},
		{"ttwu/costs-off/from-cpu2", true, false, false, 2, nil, map[int]sim.Time{0: d, 1: d, 2: 0, 3: d}},
		{"ttwu/costs-on/from-cpu0", true, true, false, 0, nil,
			map[int]sim.Time{0: 4 * w, 1: 2*w + d + r, 2: 3*w + d + r, 3: 4*w + d + r}},
		{"ttwu/costs-on/from-cpu3", true, true, false, 3, nil,
			map[int]sim.Time{0: w + d + r, 1: 2*w + d + r, 2: 3*w + d + r, 3: 4 * w}},
		// CPU 1 busy for 50 µs: activated by the caller (resched IPI, no idle exit), its
		// worker runs when CPU 1's work is done
		{"ttwu/costs-on/from-cpu0/cpu1-busy", true, true, false, 0, map[int]sim.Time{1: 50 * sim.Microsecond},
			map[int]sim.Time{0: 4 * w, 1: 50*sim.Microsecond + c.IPI, 2: 3*w + d + r, 3: 4*w + d + r}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 8,
				CPU: dispatch.CPUModel{Off: !tt.costs},
				Timing: dispatch.Timing{KblockdMin: d, KblockdMax: d, KblockdTTWU: tt.ttwu, RunHwQueuesSerialWake: tt.serial,
					NoProcessOneWork: true}}) // the dispatch at once: the wake order, not the switch-in (TestProcessOneWork)
			if err != nil {
				t.Fatal(err)
			}
			drv := &gate{eng: eng, at: map[int]sim.Time{}}
			q, err := h.AddLUN(dispatch.LUNConfig{Ops: drv, Elevator: "none"})
			if err != nil {
				t.Fatal(err)
			}
			bios := make([]dispatch.Bio, 4)
			for cpu := range bios {
				bios[cpu] = dispatch.Bio{Op: device.OpRead, Offset: int64(cpu) << 20, Length: 4096, Sync: true, End: drv}
				q.SubmitBio(&bios[cpu], cpu, true, nil)
			}
			const t0 = sim.Millisecond
			eng.RunUntil(t0) // every request parked on its hctx->dispatch
			if len(drv.at) != 0 {
				t.Fatalf("dispatched %v before the gate opened", drv.at)
			}
			drv.open = true
			for cpu, busy := range tt.busy {
				h.OnCPU(cpu)
				h.Charge(busy)
			}
			h.OnCPU(tt.from)
			q.RunHwQueues(tt.from, true)
			eng.RunUntil(2 * t0)
			got := map[int]sim.Time{}
			for x, at := range drv.at {
				got[x] = at - t0
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("dispatch time after the call per hctx (-want +got):\n%s", d)
			}
		})
	}
}
