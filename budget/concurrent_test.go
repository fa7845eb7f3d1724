package budget_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkmq/blkmq/budget"
)

// TestConcurrentBudget takes and returns budget from many goroutines in both
// eras and checks the queue_depth bound and the final balance.
func TestConcurrentBudget(t *testing.T) {
	const workers, depth = 8, 5
	ops := 20000
	if testing.Short() {
		ops = 2000
	}
	for _, opt := range []budget.Options{{}, {DeviceBusyCounter: true}, {BudgetMapSkip: true}} {
		t.Run(fmt.Sprintf("%+v", opt), func(t *testing.T) {
			h := mustHost(t, budget.HostConfig{CanQueue: 64, NrHwQueues: 4, Options: opt})
			d := mustDevice(t, h, mustTarget(t, h, 0), depth)
			var held, maxHeld atomic.Int32
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(seed uint64) {
					defer wg.Done()
					hint := d.InitHint(seed)
					for i := 0; i < ops; i++ {
						tok, _ := d.GetBudget(&hint)
						if tok < 0 {
							continue
						}
						n := held.Add(1)
						for m := maxHeld.Load(); n > m && !maxHeld.CompareAndSwap(m, n); m = maxHeld.Load() {
						}
						if d.Prepare(tok, &hint) == budget.StatusOK {
							held.Add(-1)
							d.Unbusy(tok, &hint)
						} else {
							held.Add(-1)
						}
					}
				}(uint64(w))
			}
			wg.Wait()
			if m := maxHeld.Load(); d.HasBudgetMap() || opt.DeviceBusyCounter {
				if m > depth {
					t.Errorf("max budget held %d > queue_depth %d", m, depth)
				}
			}
			if d.Busy() != 0 || h.Busy() != 0 {
				t.Errorf("after all puts: device busy %d, host busy %d", d.Busy(), h.Busy())
			}
		})
	}
}
