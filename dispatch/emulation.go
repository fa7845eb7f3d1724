package dispatch

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/sim"
)

// MaxEmulationSlowdown bounds the factor of CPUCosts.Emulated: a slower emulator than
// this would push the slowest step past the 1 ms cost limit.
const MaxEmulationSlowdown = 1000

// Emulated returns the cost table of a guest whose CPU runs factor times slower than
// the native CPU the table describes: every CPU time (each path step, the line
// transfers, the elevator lock's hold) multiplied by factor and rounded to the
// nanosecond; counts and switches (CPUsPerLLC, ElevatorLines, Uncontended) are kept. A
// zero table is first replaced by DefaultCPUCosts. It models no kernel function: it is
// the instrument correction for comparing with a kernel run under an instruction-set
// emulator (QEMU TCG), where the kernel's own code — interrupt entry, softirq, the block
// and SCSI paths, the system calls, the scheduler — is translated and runs a roughly
// constant factor slower than on the host. It returns an error for a factor outside
// [1, MaxEmulationSlowdown] or NaN.
func (c CPUCosts) Emulated(factor float64) (CPUCosts, error) {
	if math.IsNaN(factor) || factor < 1 || factor > MaxEmulationSlowdown {
		return CPUCosts{}, fmt.Errorf("dispatch: emulation slowdown %v out of range [1, %d]", factor, MaxEmulationSlowdown)
	}
	if c == (CPUCosts{}) {
		c = DefaultCPUCosts()
	}
	if c.Transfer == (sim.TransferCosts{}) {
		// the flat default newCPUState derives, made explicit so that it scales too
		r := c.LineRemote
		c.Transfer = sim.TransferCosts{Self: c.LineLocal, SMT: r, Node: r, Socket: r, Remote: r}
	}
	s := func(t *sim.Time) { *t = sim.Time(math.Round(float64(*t) * factor)) }
	for _, t := range []*sim.Time{&c.Submit, &c.BioAlloc, &c.Merge, &c.TagGet, &c.TagPut, &c.BudgetGet,
		&c.BudgetPut, &c.HostCheck, &c.Insert, &c.Elevator, &c.Dispatch, &c.QueueRq, &c.Completion,
		&c.EndBio, &c.IPI, &c.Wakeup, &c.QueueRun, &c.LineLocal, &c.LineRemote,
		&c.Transfer.Self, &c.Transfer.SMT, &c.Transfer.Node, &c.Transfer.Socket, &c.Transfer.Remote} {
		s(t)
	}
	return c, nil
}
