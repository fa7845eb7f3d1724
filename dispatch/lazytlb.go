package dispatch

import "github.com/blkmq/blkmq/sim"

// kthreadSwitch is the cost (ns) of one context switch to or from the kblockd
// kworker: CPUCosts.LazyTLBSwitch when set, else CPUCosts.Switch (the rule before
// round 7, which charged a kernel thread's switches like a user task's).
func (c *CPUCosts) kthreadSwitch() sim.Time {
	if c.LazyTLBSwitch > 0 {
		return c.LazyTLBSwitch
	}
	return c.Switch
}
