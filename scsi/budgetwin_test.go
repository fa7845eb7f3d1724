package scsi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
)

// orderRecorder is a device that records the hctx of every command it accepts, in
// order, and completes each after a fixed time.
type orderRecorder struct {
	device.Device
	order []int
}

func (r *orderRecorder) Submit(cmd *device.Command) device.Status {
	r.order = append(r.order, cmd.Priv.(*dispatch.Request).Hctx().Index())
	return r.Device.Submit(cmd)
}

// TestBudgetWinner: which hctx's run wins the one budget token (queue_depth 1) a
// completion frees, on 4 CPUs with one hctx each (per-hctx tags, none) and 4
// requests parked on every hctx, hctx 2's taken first. scsi_debug's timer completes
// on the issuing CPU (CPU 2 for hctx 2), and scsi_run_queue_async queues every hctx's
// kblockd run from there (blk_mq_run_hw_queues, hctx order).
//   - default rule: every run is due the same drawn latency after the queueing point
//     (fixed at 10 µs here), so queueing order decides: the completing hctx's own
//     SCHED_RESTART run when it is marked (queued before scsi_run_queue_async's),
//     else the lowest pending hctx;
//   - Timing.KblockdTTWU at native costs: the completing CPU's own worker runs after
//     that CPU's work (1.6 µs of wake-ups), before any IPI arrives (≥ 11.1 µs): the
//     token stays with the hctx that completed while it has work, then goes to the
//     lowest pending hctx (the first IPI sent);
//   - Timing.KblockdTTWU with the emulation slowdown of the oracle's guest (73.8):
//     the four emulated wake-ups delay the local worker to 118 µs, while the first
//     remote worker's IPI leaves after 30 µs and that worker runs at 91 µs (the
//     second's at 121 µs): CPU 2's completion hands the token to hctx 0, whose own
//     completions then keep it (its local worker beats hctx 1's at 121 µs). That is
//     the dispatch-at-once rule (Timing.NoProcessOneWork); with the default
//     ProcessOneWork rule every worker's IPI receive comes before its dispatch, so
//     the local worker wins again, as at native costs.
func TestBudgetWinner(t *testing.T) {
	tests := []struct {
		name     string
		ttwu     bool
		slowdown float64
		noPOW    bool // Timing.NoProcessOneWork
		want     []int
	}{
		{"default", false, 1, false, []int{2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 3, 3, 3, 3}},
		{"ttwu/native", true, 1, false, []int{2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3}},
		{"ttwu/slowdown-73.8/dispatch-at-once", true, 73.8, true, []int{2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3}},
		{"ttwu/slowdown-73.8", true, 73.8, false, []int{2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			costs, err := dispatch.DefaultCPUCosts().Emulated(tt.slowdown)
			if err != nil {
				t.Fatal(err)
			}
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 4, CanQueue: 64,
				CPU: dispatch.CPUModel{Costs: costs},
				Timing: dispatch.Timing{KblockdMin: 10 * sim.Microsecond, KblockdMax: 10 * sim.Microsecond, KblockdTTWU: tt.ttwu,
					NoProcessOneWork: tt.noPOW}})
			if err != nil {
				t.Fatal(err)
			}
			sh, err := scsi.NewHost(h, scsi.CompleteOnIssueCPU)
			if err != nil {
				t.Fatal(err)
			}
			null, _ := device.NewNull(eng, device.NullParams{Name: "sd", CompletionNsec: sim.Millisecond})
			dev := &orderRecorder{Device: null}
			lun, err := sh.AddDevice(scsi.DeviceConfig{Device: dev, QueueDepth: 1, Queue: dispatch.LUNConfig{Elevator: "none"}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &cpuRecorder{h: h}
			bios := make([]dispatch.Bio, 16)
			n := 0
			for _, cpu := range []int{2, 0, 1, 3} {
				for range 4 {
					bios[n] = dispatch.Bio{Op: device.OpRead, Offset: int64(n) << 20, Length: 4096, Sync: true, End: rec}
					lun.Queue().SubmitBio(&bios[n], cpu, true, nil)
					n++
				}
			}
			eng.Run()
			if diff := cmp.Diff(tt.want, dev.order); diff != "" {
				t.Errorf("hctx of each command in device order (-want +got):\n%s", diff)
			}
		})
	}
}

// wakeSleeper records when its blocked bio was queued.
type wakeSleeper struct {
	eng *sim.Engine
	cpu int
	at  sim.Time
}

func (s *wakeSleeper) WakeCPU(sim.Time) int                    { return s.cpu }
func (s *wakeSleeper) Unblocked(_ *dispatch.Bio, now sim.Time) { s.at = now }

// TestTagSleeperTTWU: a task sleeping for the only driver tag is woken when the
// completion on CPU 0 frees it. By default it runs the drawn wake-up latency (10 µs
// here) after the wake-up. Under Timing.KblockdTTWU it is woken by the same
// try_to_wake_up rule as a kblockd worker: on CPU 0 itself it runs once CPU 0 has
// finished the completion (well inside 10 µs at native costs); on CPU 1, which is
// idle, after the waker's wake-up, the IPI delivery (10 µs) and CPU 1's interrupt and
// activation, so at least Wakeup + IPI + Wakeup later than by default.
func TestTagSleeperTTWU(t *testing.T) {
	c := dispatch.DefaultCPUCosts()
	unblocked := func(ttwu bool, cpu int) sim.Time {
		eng := sim.NewEngine()
		h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 1, CanQueue: 1,
			Timing: dispatch.Timing{KblockdMin: 10 * sim.Microsecond, KblockdMax: 10 * sim.Microsecond,
				WakeupMin: 10 * sim.Microsecond, WakeupMax: 10 * sim.Microsecond, KblockdTTWU: ttwu}})
		if err != nil {
			t.Fatal(err)
		}
		sh, err := scsi.NewHost(h, scsi.CompleteOnIssueCPU)
		if err != nil {
			t.Fatal(err)
		}
		null, _ := device.NewNull(eng, device.NullParams{Name: "sd", CompletionNsec: sim.Millisecond})
		lun, err := sh.AddDevice(scsi.DeviceConfig{Device: null, QueueDepth: 1, Queue: dispatch.LUNConfig{Elevator: "none"}})
		if err != nil {
			t.Fatal(err)
		}
		rec := &cpuRecorder{h: h}
		b1 := dispatch.Bio{Op: device.OpRead, Offset: 0, Length: 4096, Sync: true, End: rec}
		b2 := dispatch.Bio{Op: device.OpRead, Offset: 1 << 20, Length: 4096, Sync: true, End: rec}
		lun.Queue().SubmitBio(&b1, 0, true, nil)
		s := &wakeSleeper{eng: eng, cpu: cpu}
		tw := &dispatch.TagWaiter{S: s}
		lun.Queue().SubmitBio(&b2, cpu, false, tw)
		eng.Run()
		if s.at == 0 {
			t.Fatalf("ttwu=%v cpu %d: the sleeper was never unblocked", ttwu, cpu)
		}
		return s.at
	}
	def0, tt0 := unblocked(false, 0), unblocked(true, 0)
	def1, tt1 := unblocked(false, 1), unblocked(true, 1)
	t.Logf("unblocked: CPU 0 default %v, KblockdTTWU %v; CPU 1 default %v, KblockdTTWU %v", def0, tt0, def1, tt1)
	if def, tt := def0, tt0; tt >= def {
		t.Errorf("sleeper on the completing CPU: unblocked at %v with KblockdTTWU, want before the default %v", tt, def)
	}
	if def, tt := def1, tt1; tt-def < 2*c.Wakeup+c.IPI {
		t.Errorf("sleeper on idle CPU 1: unblocked at %v with KblockdTTWU, want at least %v after the default %v", tt, 2*c.Wakeup+c.IPI, def)
	}
}
