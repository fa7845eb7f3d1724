package nullblk_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
)

// cpuRecorder records the CPU each bio completes on (the CPU the core made current
// for the completion path) and the most commands in flight at the device.
type cpuRecorder struct {
	h    *dispatch.Host
	dev  *device.Null
	cpus []int
	peak int
}

func (r *cpuRecorder) EndBio(_ *dispatch.Bio, _ sim.Time, _ error) {
	r.cpus = append(r.cpus, r.h.CurrentCPU())
}

func newNull(t *testing.T, hc dispatch.HostConfig, irq nullblk.IRQMode, delay sim.Time) (*sim.Engine, *dispatch.Host, *nullblk.Device, *device.Null) {
	t.Helper()
	eng := sim.NewEngine()
	h, err := dispatch.NewHost(eng, hc)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.NewNull(eng, device.NullParams{Name: "nullb0", CompletionNsec: delay})
	if err != nil {
		t.Fatal(err)
	}
	d, err := nullblk.New(h, nullblk.Config{Device: dev, IRQMode: irq, Queue: dispatch.LUNConfig{Elevator: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	return eng, h, d, dev
}

// TestNoBudget: a null_blk queue has no dispatch budget, and with two hctxs of
// hw_queue_depth 4 it holds 2 × 4 commands at once (per-hctx tags are the only limit),
// never counting a budget failure.
func TestNoBudget(t *testing.T) {
	eng, h, d, dev := newNull(t, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 4}, nullblk.IRQTimer, sim.Millisecond)
	q := d.Queue()
	if q.HasBudget() {
		t.Fatal("null_blk queue has a budget")
	}
	if _, ok := dispatch.Ops(d).(dispatch.BudgetOps); ok {
		t.Fatal("nullblk.Device implements BudgetOps (null_mq_ops has no .get_budget)")
	}
	rec := &cpuRecorder{h: h}
	bios := make([]dispatch.Bio, 12)
	peak := 0
	for i := range bios {
		bios[i] = dispatch.Bio{Op: device.OpRead, Offset: int64(i) * 8192, Length: 4096, Sync: true, End: rec}
		q.SubmitBio(&bios[i], i%2, true, nil)
		peak = max(peak, dev.InFlight())
	}
	eng.Run()
	st := q.Stats()
	if peak != 8 || st.BudgetFailures != 0 || st.Completed != 8 {
		t.Errorf("peak in flight %d, budget failures %d, completed %d; want 8, 0, 8 (REQ_NOWAIT: 4 bios per hctx refused)", peak, st.BudgetFailures, st.Completed)
	}
}

// TestCompletionCPU: every irqmode completes on the CPU that ran queue_rq (here the
// submitting CPU, by direct issue), not on the hctx's first CPU; irqmode 0 even when
// rq_affinity would send the completion elsewhere (it calls no
// blk_mq_complete_request).
func TestCompletionCPU(t *testing.T) {
	tests := []struct {
		name  string
		irq   nullblk.IRQMode
		delay sim.Time
		llc   int
	}{
		{"irqmode=0", nullblk.IRQNone, 0, 0},
		{"irqmode=1", nullblk.IRQSoftIRQ, 0, 0},
		{"irqmode=2", nullblk.IRQTimer, 10 * sim.Microsecond, 0},
		{"irqmode=1/llc-per-cpu", nullblk.IRQSoftIRQ, 0, 1},
		{"irqmode=2/llc-per-cpu", nullblk.IRQTimer, 10 * sim.Microsecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			costs := dispatch.DefaultCPUCosts()
			costs.CPUsPerLLC = tt.llc
			eng, h, d, _ := newNull(t, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 1, CanQueue: 64,
				CPU: dispatch.CPUModel{Costs: costs}}, tt.irq, tt.delay)
			rec := &cpuRecorder{h: h}
			bios := make([]dispatch.Bio, 3)
			for i, cpu := range []int{3, 1, 2} {
				bios[i] = dispatch.Bio{Op: device.OpRead, Offset: int64(i) * 8192, Length: 4096, Sync: true, End: rec}
				d.Queue().SubmitBio(&bios[i], cpu, true, nil)
				eng.Run()
			}
			if diff := cmp.Diff([]int{3, 1, 2}, rec.cpus); diff != "" {
				t.Errorf("completion CPUs (-want +got):\n%s", diff)
			}
		})
	}
}
