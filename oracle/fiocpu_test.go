package oracle

import (
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// TestFioCPUSlowdown: fio's usr+sys per command on the CPU-bound runs (their mean)
// over the model's CPU per command, and a clear error for unusable input.
func TestFioCPUSlowdown(t *testing.T) {
	run := func(usr, sys float64, runtimeMS, ios int64) *FioJSON {
		return &FioJSON{Jobs: []FioJob{{UsrCPU: usr, SysCPU: sys, Read: FioDir{Runtime: runtimeMS, TotalIOs: ios}}}}
	}
	// 4 s at 100 % of a CPU for 40 000 commands: 100 µs; 4 s at 90 % for 40 000: 90 µs
	hi := []*FioJSON{run(40, 60, 4000, 40000), run(30, 60, 4000, 40000)}
	m := &ModelRun{CPUBusy: []sim.Time{0, 1000 * 47000}, Queues: []dispatch.QueueStats{{Dispatched: 47000}}}
	f, err := FioCPUSlowdown(hi, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f-95) > 1e-9 {
		t.Errorf("slowdown %v, want 95 (95 µs per command over 1 µs)", f)
	}
	for _, tc := range []struct {
		name string
		hi   []*FioJSON
		m    *ModelRun
		want string
	}{
		{"no-runs", nil, m, "no kernel run"},
		{"no-io", []*FioJSON{run(40, 60, 4000, 0)}, m, "no job CPU time or no I/O"},
		{"no-jobs", []*FioJSON{{}}, m, "no job CPU time or no I/O"},
		{"model-idle", hi, &ModelRun{}, "completed no command"},
		{"model-slower", []*FioJSON{run(0, 0.5, 4000, 40000)}, m, "out of range [1, 1000]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := FioCPUSlowdown(tc.hi, tc.m, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestSlowdownMethodEnv: BLKMQ_ORACLE_SLOWDOWN selects the calibration method and
// refuses anything else by name.
func TestSlowdownMethodEnv(t *testing.T) {
	for _, tc := range []struct {
		v      string
		fioCPU bool
		err    string
	}{{"", true, ""}, {"fio-cpu", true, ""}, {"marginal", false, ""}, {"Marginal", false, `BLKMQ_ORACLE_SLOWDOWN "Marginal": allowed`}} {
		t.Run("v="+tc.v, func(t *testing.T) {
			t.Setenv("BLKMQ_ORACLE_SLOWDOWN", tc.v)
			got, err := fioCPUCalibration()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.fioCPU {
				t.Errorf("fioCPUCalibration() = %v, %v; want %v", got, err, tc.fioCPU)
			}
		})
	}
}
