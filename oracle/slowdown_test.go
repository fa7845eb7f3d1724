package oracle

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

func TestEmulationSlowdownArithmetic(t *testing.T) {
	run := func(busy1, seconds float64, ios int64) *Facts {
		return &Facts{Seconds: seconds, CPUBusy: []float64{0.05, busy1}, Disks: []DiskFacts{{ReadIOs: ios}}}
	}
	// low: 1.5 s busy for 7 000 commands; high: 5.9 s for 47 000: 110 µs per command
	lo := []*Facts{run(0.25, 6, 7000)}
	hi := []*Facts{run(0.9833333333333333, 6, 47000), run(0.9833333333333333, 6, 47000)}
	m := &ModelRun{CPUBusy: []sim.Time{0, 1000 * 47000}, Queues: []dispatch.QueueStats{{Dispatched: 47000}}}
	f, err := EmulationSlowdown(lo, hi, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f-110) > 1e-6 {
		t.Errorf("slowdown %v, want 110 (110 µs per command over 1 µs)", f)
	}
	for _, tc := range []struct {
		name   string
		lo, hi []*Facts
		cpu    int
		want   string
	}{
		{"no-cpu-busy", lo, []*Facts{{Seconds: 6, Disks: []DiskFacts{{ReadIOs: 1}}}}, 1, "no cpu_busy of CPU 1"},
		{"no-more-load", hi, lo, 1, "want more"},
		{"no-runs", nil, hi, 1, "no kernel run"},
		{"model-slower", lo, []*Facts{run(0.2505, 6, 47000)}, 1, "out of range [1, 1000]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := EmulationSlowdown(tc.lo, tc.hi, m, tc.cpu); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestSlowdownSaturates: at a slowdown the CPU-bound calibration job's model IOPS
// fall to one over its slowed CPU time per command, and its CPU time per command
// scales by the factor.
func TestSlowdownSaturates(t *testing.T) {
	c := &Case{Name: "sat", Device: SlowdownDevice, Set: []string{"queue/scheduler=none"}}
	path := t.TempDir() + "/sat.fio"
	if err := os.WriteFile(path, []byte(SlowdownJob), 0o644); err != nil {
		t.Fatal(err)
	}
	o := ModelOptions{Runtime: time.Second, EmulationOverhead: -1}
	o.EmulationSlowdown = -1
	native, err := RunModel(c, path, o)
	if err != nil {
		t.Fatal(err)
	}
	o.EmulationSlowdown = 80
	slow, err := RunModel(c, path, o)
	if err != nil {
		t.Fatal(err)
	}
	pn, _ := modelCPUPerIO(native, SlowdownCPU)
	ps, _ := modelCPUPerIO(slow, SlowdownCPU)
	if math.Abs(ps/pn-80) > 2 {
		t.Errorf("CPU per command %.0f ns native, %.0f ns slowed: ratio %.1f, want 80", pn, ps, ps/pn)
	}
	if iops, ceil := slow.Figures().Jobs[0].IOPS, 1e9/ps; iops > 1.02*ceil || iops < 0.85*ceil {
		t.Errorf("slowed IOPS %.0f, want about the CPU ceiling %.0f", iops, ceil)
	}
	if n := native.Figures().Jobs[0].IOPS; n < 15000 {
		t.Errorf("native IOPS %.0f: want the device's 16 000 (not CPU-bound)", n)
	}
}
