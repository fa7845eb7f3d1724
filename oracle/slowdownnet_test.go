package oracle

import (
	"math"

	"github.com/blkmq/blkmq/dispatch"
	"strings"
	"testing"
)

// TestSlowdownNetEnv: BLKMQ_ORACLE_SLOWDOWN_NET selects the net fixed point or the
// gross factor and refuses anything else by name.
func TestSlowdownNetEnv(t *testing.T) {
	for _, tc := range []struct {
		v   string
		net bool
		err string
	}{{"", true, ""}, {"1", true, ""}, {"0", false, ""}, {"on", false, `BLKMQ_ORACLE_SLOWDOWN_NET "on": allowed`}} {
		t.Run("v="+tc.v, func(t *testing.T) {
			t.Setenv("BLKMQ_ORACLE_SLOWDOWN_NET", tc.v)
			got, err := netCalibration()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.net {
				t.Errorf("netCalibration() = %v, %v; want %v", got, err, tc.net)
			}
		})
	}
}

// TestSlowdownNet: the net factor is below the gross one (the calibration cell's
// reader sleeps in the guest and in the model), and at it the model's CPU per command
// on the cell equals fio's in the guest. It logs the model's sleep-and-wake cycles per
// command there (from its CPU time) against the guest's fio ctx per I/O (a check, not
// an input: 0.16 against 0.116 at round 9).
func TestSlowdownNet(t *testing.T) {
	ix := sharedReferenceIndex(t)
	if len(ix.SlowdownCalibration) < 2 {
		t.Skip("no slowdown calibration cases")
	}
	hi := ix.Find(ix.SlowdownCalibration[1])
	fj, _, err := ix.Reference(hi)
	if err != nil {
		t.Fatal(err)
	}
	more, _, err := ix.Reruns(hi)
	if err != nil {
		t.Fatal(err)
	}
	runs := append([]*FioJSON{fj}, more...)
	m, err := RunModel(hi, ix.JobPath(hi), ModelOptions{Seed: 1, EmulationSlowdown: -1, EmulationOverhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	gross, err := FioCPUSlowdown(runs, m, SlowdownCPU)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BLKMQ_ORACLE_SLOWDOWN_NET", "1")
	net, err := ix.netSlowdown(hi, runs, gross)
	if err != nil {
		t.Fatal(err)
	}
	if !(net < gross) {
		t.Errorf("net factor %.3f not below the gross %.3f", net, gross)
	}
	k, _ := fioCPUPerIO(runs)
	oh, err := ix.OverheadWith(hi, net, DefaultWake)
	if err != nil {
		t.Fatal(err)
	}
	if oh == 0 {
		oh = -1
	}
	mn, err := RunModel(hi, ix.JobPath(hi), ModelOptions{Seed: 1, EmulationSlowdown: net, Wake: DefaultWake, EmulationOverhead: oh})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := modelCPUPerIO(mn, SlowdownCPU)
	if math.Abs(c/k-1) > 0.01 {
		t.Errorf("at the net factor %.3f the model spends %.2f µs per command, the guest's fio %.2f µs", net, c/1e3, k/1e3)
	}
	var ctx, ios float64
	for _, r := range runs {
		for _, j := range r.Jobs {
			ctx += float64(j.Ctx)
			ios += float64(j.Read.TotalIOs + j.Write.TotalIOs)
		}
	}
	// the model keeps no fio ctx: its cycles per command follow from its CPU time,
	// the native path (m, without slowdown or wake charging) and one cycle's native
	// cost (two switches and the waker's try_to_wake_up)
	path, _ := modelCPUPerIO(m, SlowdownCPU)
	costs := dispatch.DefaultCPUCosts()
	cycle := float64(2*dispatch.NativeSwitch + costs.Wakeup)
	t.Logf("gross %.3f net %.3f; guest fio %.2f µs/command, model %.2f; sleep-and-wake cycles per command: guest (fio ctx) %.3f, model (from its CPU) %.3f",
		gross, net, k/1e3, c/1e3, ctx/ios, (c/net-path)/cycle)
}
