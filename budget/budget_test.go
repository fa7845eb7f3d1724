package budget_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/budget"
	"github.com/google/go-cmp/cmp"
)

func mustHost(t testing.TB, cfg budget.HostConfig) *budget.Host {
	t.Helper()
	h, err := budget.NewHost(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustDevice(t testing.TB, h *budget.Host, tg *budget.Target, qd int) *budget.Device {
	t.Helper()
	d, err := h.NewDevice(tg, qd)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustTarget(t testing.TB, h *budget.Host, canQueue int) *budget.Target {
	t.Helper()
	tg, err := h.NewTarget(canQueue, false)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  budget.HostConfig
		want string
	}{
		{"can_queue-0", budget.HostConfig{CanQueue: 0, NrHwQueues: 1}, "can_queue 0 out of range [1, 10240]"},
		{"can_queue-above", budget.HostConfig{CanQueue: 20000, NrHwQueues: 1}, "can_queue 20000 out of range [1, 10240]"},
		{"nr_hw_queues-0", budget.HostConfig{CanQueue: 8, NrHwQueues: 0}, "nr_hw_queues 0 out of range [1, 4096]"},
		{"blocked", budget.HostConfig{CanQueue: 8, NrHwQueues: 1, MaxHostBlocked: -1}, "max_host_blocked -1 out of range [0, 1000]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := budget.NewHost(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("NewHost: %v, want %q", err, c.want)
			}
		})
	}
	h := mustHost(t, budget.HostConfig{CanQueue: 32, NrHwQueues: 1})
	tg := mustTarget(t, h, 0)
	for _, qd := range []int{0, -3, budget.MaxQueueDepth + 1} {
		if _, err := h.NewDevice(tg, qd); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("queue_depth %d out of range [1, 10000]", qd)) {
			t.Errorf("NewDevice(queue_depth=%d): %v", qd, err)
		}
	}
	if _, err := h.NewTarget(budget.MaxCanQueue+1, false); err == nil || !strings.Contains(err.Error(), "target can_queue") {
		t.Errorf("NewTarget: %v", err)
	}
	d := mustDevice(t, h, tg, 16)
	if _, err := d.ChangeQueueDepth(0); err == nil || !strings.Contains(err.Error(), "queue_depth 0 out of range") {
		t.Errorf("ChangeQueueDepth(0): %v", err)
	}
	other := mustHost(t, budget.HostConfig{CanQueue: 32, NrHwQueues: 1})
	if _, err := other.NewDevice(tg, 4); err == nil {
		t.Error("NewDevice with another host's target succeeded")
	}
}

// fill takes budget until refused and returns the tokens.
func fill(d *budget.Device, hint *uint32) []int {
	var toks []int
	for {
		tok, _ := d.GetBudget(hint)
		if tok < 0 {
			return toks
		}
		toks = append(toks, tok)
	}
}

func TestQueueDepthBothEras(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  budget.Options
	}{
		{"budget_map-v5.13", budget.Options{}},
		{"device_busy-v4.15-v5.12", budget.Options{DeviceBusyCounter: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mustHost(t, budget.HostConfig{CanQueue: 64, NrHwQueues: 4, Options: c.opt})
			d := mustDevice(t, h, mustTarget(t, h, 0), 8)
			var hint uint32
			toks := fill(d, &hint)
			if len(toks) != 8 || d.Busy() != 8 || !d.IsBusy() {
				t.Fatalf("took %d budgets, busy %d; want 8", len(toks), d.Busy())
			}
			if got, _ := d.ChangeQueueDepth(12); got != 12 {
				t.Fatalf("ChangeQueueDepth(12) = %d", got)
			}
			toks = append(toks, fill(d, &hint)...)
			if len(toks) != 12 {
				t.Errorf("after raising queue_depth to 12: %d budgets", len(toks))
			}
			if got, _ := d.ChangeQueueDepth(1000); got != 64 {
				t.Errorf("ChangeQueueDepth(1000) = %d, want can_queue 64", got)
			}
			for _, tok := range toks {
				d.PutBudget(tok, &hint)
			}
			if d.Busy() != 0 {
				t.Errorf("busy after puts = %d", d.Busy())
			}
		})
	}
}

func TestNeedsBudgetMap(t *testing.T) {
	for _, c := range []struct {
		canQueue, hwq, depth int
		hostTagset, token    bool
		want                 bool
	}{
		{192, 8, 192, true, false, false}, // seed 003 setup
		{192, 8, 191, true, false, true},
		{192, 8, 4096, true, false, false},
		{192, 1, 192, false, false, false}, // single hw queue
		{192, 8, 192, false, false, true},  // per-hctx tags: N × can_queue possible
		{192, 8, 192, true, true, true},    // libata-like needs tokens
	} {
		h := mustHost(t, budget.HostConfig{CanQueue: c.canQueue, NrHwQueues: c.hwq, HostTagset: c.hostTagset, NeedsBudgetToken: c.token})
		if got := h.NeedsBudgetMap(c.depth); got != c.want {
			t.Errorf("%+v: NeedsBudgetMap = %v, want %v", c, got, c.want)
		}
	}
	t.Run("skip-always-succeeds", func(t *testing.T) {
		h := mustHost(t, budget.HostConfig{CanQueue: 192, NrHwQueues: 8, HostTagset: true, Options: budget.Options{BudgetMapSkip: true}})
		d := mustDevice(t, h, mustTarget(t, h, 0), 192)
		if d.HasBudgetMap() {
			t.Fatal("budget map allocated although queue_depth >= can_queue with host_tagset")
		}
		var hint uint32
		for i := 0; i < 1000; i++ {
			if tok, _ := d.GetBudget(&hint); tok != budget.NoMapToken {
				t.Fatalf("GetBudget = %d, want NoMapToken", tok)
			}
		}
		d2 := mustDevice(t, h, mustTarget(t, h, 0), 32)
		if !d2.HasBudgetMap() || len(fill(d2, &hint)) != 32 {
			t.Error("queue_depth 32 < can_queue: budget map missing or not enforcing")
		}
	})
}

func TestBlockedCountdowns(t *testing.T) {
	for _, c := range []struct {
		name   string
		reject budget.Reject
		want   int // refused attempts before the first success, nothing in flight
	}{
		{"host-7", budget.HostBusy, 6},
		{"device-3", budget.DeviceBusy, 2},
		{"target-3", budget.TargetBusy, 2},
	} {
		for _, opt := range []budget.Options{{}, {DeviceBusyCounter: true, HostBusyCheck: true}} {
			t.Run(fmt.Sprintf("%s/counter=%v", c.name, opt.DeviceBusyCounter), func(t *testing.T) {
				h := mustHost(t, budget.HostConfig{CanQueue: 8, NrHwQueues: 1, Options: opt})
				d := mustDevice(t, h, mustTarget(t, h, 8), 4)
				var hint uint32
				tok, _ := d.GetBudget(&hint)
				if st := d.Prepare(tok, &hint); st != budget.StatusOK {
					t.Fatalf("Prepare = %v", st)
				}
				if st := d.DispatchFailed(c.reject, tok, &hint); st != budget.StatusResource {
					t.Errorf("DispatchFailed = %v, want RESOURCE", st)
				}
				refused := 0
				for {
					tok, act := d.GetBudget(&hint)
					if tok < 0 {
						if act.Delay != budget.QueueDelay {
							t.Errorf("refused budget with nothing in flight: action %+v, want 3 ms delay", act)
						}
						refused++
						continue
					}
					if d.Prepare(tok, &hint) == budget.StatusOK {
						break
					}
					refused++
				}
				if refused != c.want {
					t.Errorf("refused %d attempts, want %d", refused, c.want)
				}
			})
		}
	}
}

func TestHostReadinessEras(t *testing.T) {
	for _, c := range []struct {
		name        string
		opt         budget.Options
		wantStarved bool
	}{
		{"v5.5-tag-depth-only", budget.Options{}, false},
		{"pre-v5.5-host_busy-check", budget.Options{HostBusyCheck: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mustHost(t, budget.HostConfig{CanQueue: 2, NrHwQueues: 4, Options: c.opt})
			tg := mustTarget(t, h, 0)
			a, b := mustDevice(t, h, tg, 2), mustDevice(t, h, tg, 2)
			var hint uint32
			admitted := 0
			for _, d := range []*budget.Device{a, a, b} {
				tok, _ := d.GetBudget(&hint)
				if d.Prepare(tok, &hint) == budget.StatusOK {
					admitted++
				}
			}
			starved := len(h.Starved()) > 0
			if starved != c.wantStarved || (c.wantStarved && admitted != 2) || (!c.wantStarved && admitted != 3) {
				t.Errorf("admitted %d, starved list %v; want starved=%v", admitted, h.Starved(), c.wantStarved)
			}
		})
	}
}

func TestEndRequestRestarts(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  budget.Options
		want []budget.Action
	}{
		// One completion without a prior budget failure, then a failure, then two completions.
		{"v5.10-restarts", budget.Options{}, []budget.Action{{}, {RunQueues: true}, {}}},
		{"pre-ed5dd6a67d5e-every-completion", budget.Options{RestartEveryCompletion: true},
			[]budget.Action{{RunQueues: true}, {RunQueues: true}, {RunQueues: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mustHost(t, budget.HostConfig{CanQueue: 8, NrHwQueues: 1, Options: c.opt})
			d := mustDevice(t, h, mustTarget(t, h, 0), 1)
			var hint uint32
			var got []budget.Action
			tok, _ := d.GetBudget(&hint)
			d.Prepare(tok, &hint)
			d.Unbusy(tok, &hint)
			got = append(got, d.EndRequest())
			tok, _ = d.GetBudget(&hint)
			d.Prepare(tok, &hint)
			if t2, act := d.GetBudget(&hint); t2 >= 0 || act.Delay != 0 {
				t.Fatalf("second budget at depth 1: token %d action %+v; want refusal, no delay (busy)", t2, act)
			}
			d.Unbusy(tok, &hint)
			got = append(got, d.EndRequest(), d.EndRequest())
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDevResourceEras(t *testing.T) {
	for _, c := range []struct {
		name    string
		rule    budget.DevResourceRule
		counter bool
		blocked bool
		want    budget.Status
	}{
		{"current/other-in-flight", budget.DevResourceIfBlocked, false, false, budget.StatusResource},
		{"current/blocked", budget.DevResourceIfBlocked, false, true, budget.StatusDevResource},
		{"v5.13/other-in-flight", budget.DevResourceIfOtherBudget, false, false, budget.StatusDevResource},
		{"pre-v5.13/device_busy", budget.DevResourceIfDeviceBusy, true, false, budget.StatusDevResource},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := budget.Options{DevResource: c.rule, DeviceBusyCounter: c.counter}
			h := mustHost(t, budget.HostConfig{CanQueue: 8, NrHwQueues: 1, Options: opt})
			d := mustDevice(t, h, mustTarget(t, h, 0), 4)
			var hint uint32
			t1, _ := d.GetBudget(&hint) // another command of the LUN in flight
			d.Prepare(t1, &hint)
			d.SetBlockedState(c.blocked)
			t2, _ := d.GetBudget(&hint)
			d.Prepare(t2, &hint)
			if got := d.DispatchFailed(budget.HostBusy, t2, &hint); got != c.want {
				t.Errorf("status %v, want %v", got, c.want)
			}
		})
	}
}

func TestStarvedListRun(t *testing.T) {
	h := mustHost(t, budget.HostConfig{CanQueue: 64, NrHwQueues: 1, Options: budget.Options{HostBusyCheck: true}})
	busyTarget := mustTarget(t, h, 1)
	freeTarget := mustTarget(t, h, 0)
	hog := mustDevice(t, h, busyTarget, 4)
	var hint uint32
	tok, _ := hog.GetBudget(&hint)
	if hog.Prepare(tok, &hint) != budget.StatusOK {
		t.Fatal("hog not admitted")
	}
	a := mustDevice(t, h, busyTarget, 4) // target full: starved
	b := mustDevice(t, h, freeTarget, 4)
	c := mustDevice(t, h, freeTarget, 4)
	for _, d := range []*budget.Device{a} {
		tk, _ := d.GetBudget(&hint)
		if d.Prepare(tk, &hint) != budget.StatusResource {
			t.Fatal("a admitted past target can_queue 1")
		}
	}
	// Put b and c on the list by blocking the host briefly.
	h.SetSelfBlocked(true)
	for _, d := range []*budget.Device{b, c} {
		tk, _ := d.GetBudget(&hint)
		d.Prepare(tk, &hint)
	}
	h.SetSelfBlocked(false)
	if diff := cmp.Diff(names(a, b, c), names(h.Starved()...)); diff != "" {
		t.Fatalf("starved list (-want +got):\n%s", diff)
	}
	if act := hog.EndRequest(); !act.Requeue {
		t.Fatalf("EndRequest with starved devices = %+v, want Requeue", act)
	}
	var order []string
	run := h.RunQueue(hog)
	for d, ok := run.Next(); ok; d, ok = run.Next() {
		order = append(order, d.String())
	}
	// a's target is busy: moved to the tail; b, c run; then hog itself.
	if diff := cmp.Diff([]string{b.String(), c.String(), hog.String()}, order); diff != "" {
		t.Errorf("run order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(names(a), names(h.Starved()...)); diff != "" {
		t.Errorf("starved after run (-want +got):\n%s", diff)
	}
}

func names(ds ...*budget.Device) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// TestBusyCountAfterShrink checks that the busy count kept beside the budget map
// stays the map's weight when queue_depth shrinks below held bits and grows again,
// and that a get on a map whose low bits are free still succeeds (no false "full").
func TestBusyCountAfterShrink(t *testing.T) {
	h, err := budget.NewHost(budget.HostConfig{CanQueue: 64, NrHwQueues: 1})
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := h.NewTarget(0, false)
	d, err := h.NewDevice(tg, 16)
	if err != nil {
		t.Fatal(err)
	}
	hint := uint32(0)
	var toks []int
	for range 16 {
		tok, _ := d.GetBudget(&hint)
		if tok < 0 {
			t.Fatal("get failed below queue_depth")
		}
		toks = append(toks, tok)
	}
	if tok, _ := d.GetBudget(&hint); tok >= 0 {
		t.Fatalf("get on a full map gave %d", tok)
	}
	if _, err := d.ChangeQueueDepth(8); err != nil {
		t.Fatal(err)
	}
	if got := d.Busy(); got != 8 {
		t.Fatalf("Busy after shrink to 8 = %d, want 8 (bits above depth are not counted)", got)
	}
	for _, tok := range toks {
		if tok < 8 {
			d.PutBudget(tok, &hint)
		}
	}
	if got := d.Busy(); got != 0 {
		t.Fatalf("Busy after putting the low bits = %d, want 0", got)
	}
	if tok, _ := d.GetBudget(&hint); tok < 0 || tok >= 8 {
		t.Fatalf("get with free low bits = %d, want a bit in [0, 8)", tok)
	}
	if _, err := d.ChangeQueueDepth(16); err != nil {
		t.Fatal(err)
	}
	if got := d.Busy(); got != 9 {
		t.Fatalf("Busy after growing back to 16 = %d, want 9 (8 high bits + 1)", got)
	}
}
