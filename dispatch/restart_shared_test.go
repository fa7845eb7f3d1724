package dispatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// sharedTagsHost returns a host of n LUNs sharing one hctx's driver tags (the set is
// TAG_QUEUE_SHARED from the second LUN on), with the given era.
func sharedTagsHost(t *testing.T, o Options, n int, completion sim.Time) (*sim.Engine, []*Queue, []*device.Null) {
	t.Helper()
	eng := sim.NewEngine()
	h, err := NewHost(eng, HostConfig{NrCPUs: 16, NrHwQueues: 1, CanQueue: 64, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]*Queue, n)
	devs := make([]*device.Null, n)
	for i := range qs {
		devs[i], _ = device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: completion})
		if qs[i], err = addTestLUN(h, testLUN{Device: devs[i], QueueDepth: 64, Elevator: "none"}); err != nil {
			t.Fatal(err)
		}
	}
	return eng, qs, devs
}

// TestRestartSharedTagsRule: which hctx a freed request of LUN 0 restarts, v4.12–v4.18
// (6d8c6c0f97ad) against v4.19+ (97889f9ac24f), with SCHED_RESTART marked on the
// listed LUNs' hctxs.
func TestRestartSharedTagsRule(t *testing.T) {
	tests := []struct {
		name      string
		kernel    string
		marked    []int
		wantStill []int // LUNs whose hctx is still marked afterwards
	}{
		// The walk starts at the next queue of the tag set and restarts only one hctx.
		{"v4.18/others-first", "4.18", []int{0, 1, 2}, []int{0, 2}},
		{"v4.18/wraps-to-own", "4.18", []int{0}, []int{}},
		// atomic_read(&queue->shared_hctx_restart) == 0: nothing, though LUN 2 waits.
		{"v4.18/own-unmarked-restarts-none", "4.18", []int{2}, []int{2}},
		{"v4.19/own-only", "4.19", []int{0, 1, 2}, []int{1, 2}},
		{"v4.19/own-unmarked", "4.19", []int{2}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Kernel(tt.kernel)
			if err != nil {
				t.Fatal(err)
			}
			_, qs, _ := sharedTagsHost(t, o, 3, sim.Millisecond)
			for _, i := range tt.marked {
				qs[i].hctxs[0].schedRestart = true
			}
			qs[0].schedRestart(qs[0].hctxs[0])
			still := []int{}
			for i, q := range qs {
				if q.hctxs[0].schedRestart {
					still = append(still, i)
				}
			}
			if d := cmp.Diff(tt.wantStill, still); d != "" {
				t.Errorf("hctxs still marked (-want +got):\n%s", d)
			}
		})
	}
}

// TestRestartSharedTagsEras: the option per release (Kernel and KernelPre415).
func TestRestartSharedTagsEras(t *testing.T) {
	for _, tt := range []struct {
		release string
		pre415  bool
		want    bool
	}{
		{"4.11", true, false}, {"4.12", true, true}, {"4.14", true, true},
		{"4.15", false, true}, {"4.18", false, true}, {"4.19", false, false}, {"6.1", false, false},
	} {
		get := Kernel
		if tt.pre415 {
			get = KernelPre415
		}
		o, err := get(tt.release)
		if err != nil {
			t.Fatal(err)
		}
		if o.RestartSharedTags != tt.want {
			t.Errorf("%s: RestartSharedTags = %v, want %v", tt.release, o.RestartSharedTags, tt.want)
		}
	}
}
