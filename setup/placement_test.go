package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/google/go-cmp/cmp"
)

// TestPlacementKeys: each scheduler-placement and kblockd key sets its stack field,
// the defaults leave them all off, and a bad value names the allowed values.
func TestPlacementKeys(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	type got struct{ WhenRun, ForkSpread, Kworker, TTWU, IRQ, NoKblockdPreempt, PELT, NUMAPull, NoPlugCache, Tick, NoPOW, NoCredit bool }
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
		{"irq-preempt", []string{"system/irq_preempt=on"}, got{IRQ: true}},
		{"process-one-work", []string{"system/process_one_work=on"}, got{}},
		{"process-one-work-off", []string{"system/process_one_work=off"}, got{NoPOW: true}},
		{"kblockd-wakeup-preempt-on", []string{"system/kblockd_wakeup_preempt=on"}, got{}},
		{"kblockd-wakeup-preempt-off", []string{"system/kblockd_wakeup_preempt=off"}, got{NoKblockdPreempt: true}},
		{"place-entity-credit-on", []string{"system/place_entity_credit=on"}, got{}},
		{"place-entity-credit-off", []string{"system/place_entity_credit=off"}, got{NoCredit: true}},
		{"pelt-load", []string{"system/sched_pelt_load=on"}, got{PELT: true}},
		{"numa-pull", []string{"system/sched_numa_pull=on"}, got{NUMAPull: true}},
		{"check-preempt-tick", []string{"system/check_preempt_tick=on"}, got{Tick: true}},
		{"no-plug-request-cache", []string{"era/no_plug_request_cache=true"}, got{NoPlugCache: true}},
		{"kernel-5.15-no-plug-cache", []string{"kernel=5.15"}, got{NoPlugCache: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: dev, Set: tc.set}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			p := r.Config.Placement
			var o dispatch.Options
			if r.Config.Options != nil {
				o = *r.Config.Options
			}
			g := got{p.PlaceWhenRun, p.ForkSpread, p.KworkerTasks, r.Config.Timing.KblockdTTWU, r.Config.Timing.IRQPreempt,
				o.NoKblockdWakeupPreempt, p.PELTLoad, p.NUMAImbalancePull, o.NoPlugRequestCache, r.Config.Submit.CheckPreemptTick, r.Config.Timing.NoProcessOneWork, o.NoPlaceEntityCredit}
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
		{"system/irq_preempt=true", "allowed: off, on"},
		{"system/process_one_work=1", "allowed: on, off"},
		{"system/kblockd_wakeup_preempt=1", "allowed: on, off"},
		{"system/place_entity_credit=1", "allowed: on, off"},
		{"system/sched_pelt_load=yes", "allowed: off, on"},
		{"system/sched_numa_pull=2", "allowed: off, on"},
		{"system/check_preempt_tick=yes", "allowed: off, on"},
	} {
		_, err := Description{Devices: dev, Set: []string{tc.set}}.Resolve()
		if err == nil || !strings.Contains(err.Error(), tc.allowed) {
			t.Errorf("%s: error %v, want %q", tc.set, err, tc.allowed)
		}
	}
}

func TestRebalanceDomainsKey(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	for _, tc := range []struct {
		set  []string
		want bool
	}{{nil, false}, {[]string{"system/rebalance_domains=off"}, false}, {[]string{"system/rebalance_domains=on"}, true}} {
		r, err := Description{Devices: dev, Set: tc.set}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Config.Placement.RebalanceDomains; got != tc.want {
			t.Errorf("%v: RebalanceDomains %v, want %v", tc.set, got, tc.want)
		}
	}
}
