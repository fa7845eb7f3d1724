package budget_test

import (
	"fmt"

	"github.com/blkmq/blkmq/budget"
)

// The seed 003 setup: host-wide tags, can_queue 192, LUN queue_depth 192. With
// the proposed budget-map skip the LUN has no budget map and every budget get
// succeeds; a LUN whose queue_depth is below can_queue keeps its map.
func ExampleHost_NeedsBudgetMap() {
	h, err := budget.NewHost(budget.HostConfig{CanQueue: 192, NrHwQueues: 8, HostTagset: true,
		Options: budget.Options{BudgetMapSkip: true}})
	if err != nil {
		panic(err)
	}
	tg, _ := h.NewTarget(0, false)
	full, _ := h.NewDevice(tg, 192)
	small, _ := h.NewDevice(tg, 32)
	fmt.Println(h.NeedsBudgetMap(192), full.HasBudgetMap(), small.HasBudgetMap())
	var hint uint32
	tok, _ := full.GetBudget(&hint)
	fmt.Println(tok == budget.NoMapToken)
	// Output:
	// false false true
	// true
}

// A LUN whose driver returned DEVICE_BUSY is blocked for three attempts while
// nothing is in flight: two are refused (each asking for a 3 ms delayed rerun),
// the third gets budget.
func ExampleDevice_GetBudget() {
	h, _ := budget.NewHost(budget.HostConfig{CanQueue: 8, NrHwQueues: 1})
	tg, _ := h.NewTarget(0, false)
	d, _ := h.NewDevice(tg, 4)
	var hint uint32
	tok, _ := d.GetBudget(&hint)
	d.Prepare(tok, &hint)
	fmt.Println(d.DispatchFailed(budget.DeviceBusy, tok, &hint))
	for i := 0; i < 3; i++ {
		tok, act := d.GetBudget(&hint)
		fmt.Println(tok >= 0, act.Delay)
	}
	// Output:
	// RESOURCE
	// false 3ms
	// false 3ms
	// true 0s
}
