package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlacementKeys: each scheduler-placement and kblockd key sets its stack field,
// the defaults leave them all off, and a bad value names the allowed values.
func TestPlacementKeys(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	type got struct{ WhenRun, ForkSpread, Kworker, TTWU bool }
	for _, tc := range []struct {
		name string
		set  []string
		want got
	}{
		{"defaults", nil, got{}},
		{"explicit-defaults", []string{"system/sched_wake_placement=wake", "system/sched_fork_placement=llc", "system/sched_kworker_tasks=off", "system/kblockd_ttwu=off"}, got{}},
		{"wake-run", []string{"system/sched_wake_placement=run"}, got{WhenRun: true}},
		{"fork-spread", []string{"system/sched_fork_placement=spread"}, got{ForkSpread: true}},
		{"kworker-tasks", []string{"system/sched_kworker_tasks=on"}, got{Kworker: true}},
		{"kblockd-ttwu", []string{"system/kblockd_ttwu=on"}, got{TTWU: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: dev, Set: tc.set}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			p := r.Config.Placement
			g := got{p.PlaceWhenRun, p.ForkSpread, p.KworkerTasks, r.Config.Timing.KblockdTTWU}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
		})
	}
	for _, tc := range []struct{ set, allowed string }{
		{"system/sched_wake_placement=soon", "allowed: wake, run"},
		{"system/sched_fork_placement=numa", "allowed: llc, spread"},
		{"system/sched_kworker_tasks=1", "allowed: off, on"},
		{"system/kblockd_ttwu=yes", "allowed: off, on"},
	} {
		_, err := Description{Devices: dev, Set: []string{tc.set}}.Resolve()
		if err == nil || !strings.Contains(err.Error(), tc.allowed) {
			t.Errorf("%s: error %v, want %q", tc.set, err, tc.allowed)
		}
	}
}
