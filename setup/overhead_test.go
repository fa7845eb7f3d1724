package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
)

// TestEmulationSlowdownKey: system/emulation_slowdown multiplies every CPU cost of the
// resolved machine; 1 and the default leave the table alone; out-of-range values are
// errors naming the range.
func TestEmulationSlowdownKey(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	for _, tc := range []struct {
		name   string
		set    []string
		submit int64 // resolved CPU cost Submit, ns (0 = the zero table: defaults)
	}{
		{"default", nil, 0},
		{"native", []string{"system/emulation_slowdown=1"}, 0},
		{"tcg", []string{"system/emulation_slowdown=74"}, 74 * int64(dispatch.DefaultCPUCosts().Submit)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: dev, Set: tc.set}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if got := int64(r.Config.CPU.Costs.Submit); got != tc.submit {
				t.Errorf("Submit cost %d ns, want %d", got, tc.submit)
			}
		})
	}
	for _, v := range []string{"0.5", "1001", "fast", "NaN"} {
		_, err := Description{Devices: dev, Set: []string{"system/emulation_slowdown=" + v}}.Resolve()
		if err == nil || !strings.Contains(err.Error(), "allowed: a number in [1, 1000]") {
			t.Errorf("emulation_slowdown=%s: error %v, want the allowed range", v, err)
		}
	}
}

// TestEmulationSlowdownWorkerStep: the io-wq worker's step (CPU work the model keeps as
// a delay) scales with the CPU costs; the wake-up latencies do not.
func TestEmulationSlowdownWorkerStep(t *testing.T) {
	r, err := Description{Devices: []string{"null_blk"}, Set: []string{"system/emulation_slowdown=10"}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Config.Submit.WorkerStep; got != 20000 {
		t.Errorf("WorkerStep %v, want 10 × the 2 µs default", got)
	}
	if got := r.Config.Submit.ReapMax; got != 30000 {
		t.Errorf("ReapMax %v, want the 30 µs default unscaled", got)
	}
}

// TestEmulationWakeSwitchKey: system/emulation_wake_switch, with a slowdown, charges
// each context switch at the given native cost (on: dispatch.NativeSwitch) scaled and
// stamps issue_time at the syscall's return; off and the default leave both out;
// without a slowdown it does nothing; bad values name the allowed ones.
func TestEmulationWakeSwitchKey(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	for _, tc := range []struct {
		name     string
		set      []string
		switchNs int64 // resolved CPU cost Switch, ns
		issue    bool
	}{
		{"default", []string{"system/emulation_slowdown=10"}, 0, false},
		{"off", []string{"system/emulation_slowdown=10", "system/emulation_wake_switch=off"}, 0, false},
		{"on", []string{"system/emulation_slowdown=10", "system/emulation_wake_switch=on"}, 10 * int64(dispatch.NativeSwitch), true},
		{"2us", []string{"system/emulation_slowdown=10", "system/emulation_wake_switch=2us"}, 20000, true},
		{"1ns", []string{"system/emulation_slowdown=10", "system/emulation_wake_switch=1ns"}, 10, true},
		{"native", []string{"system/emulation_wake_switch=on"}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: dev, Set: tc.set}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if got := int64(r.Config.CPU.Costs.Switch); got != tc.switchNs || r.Config.Submit.IssueAtReturn != tc.issue {
				t.Errorf("Switch %d ns, IssueAtReturn %v, want %d and %v", got, r.Config.Submit.IssueAtReturn, tc.switchNs, tc.issue)
			}
		})
	}
	// 0 (and a sub-nanosecond value, which parses as 0) is refused: it used to
	// resolve to on, the 1us default, although the key's range began at 0
	for _, v := range []string{"2ms", "-1us", "fast", "0", "0s", "0.4ns"} {
		_, err := Description{Devices: dev, Set: []string{"system/emulation_wake_switch=" + v}}.Resolve()
		if err == nil || !strings.Contains(err.Error(), "allowed: off, on (1us), or a duration in [1ns, 1ms]") {
			t.Errorf("emulation_wake_switch=%s: error %v, want the allowed values", v, err)
		}
	}
}

// TestEmulationWakeSwitchScaled: a wake switch in the key's [0, 1ms] whose cost
// scaled by system/emulation_slowdown passes the 1 ms limit of a CPU cost is refused
// when the description resolves, naming the key and the largest switch allowed at
// that slowdown, in either order of the two keys; within the limit it resolves.
func TestEmulationWakeSwitchScaled(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	for _, tc := range []struct {
		name string
		set  []string
		want string // "" = resolves
	}{
		{"20us at 50", []string{"system/emulation_slowdown=50", "system/emulation_wake_switch=20us"}, ""},
		{"21us at 50", []string{"system/emulation_slowdown=50", "system/emulation_wake_switch=21us"},
			"setup: system/emulation_wake_switch: stack: emulation: switch cost 21µs × slowdown 50 = 1.05ms is above the 1ms limit of a CPU cost; allowed at this slowdown: [0, 20µs]"},
		{"1ms at 74, switch first", []string{"system/emulation_wake_switch=1ms", "system/emulation_slowdown=74"},
			"allowed at this slowdown: [0, 13.513µs]"},
		{"1ms without slowdown", []string{"system/emulation_wake_switch=1ms"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Description{Devices: dev, Set: tc.set}.Resolve()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
