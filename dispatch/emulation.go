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
// the native CPU the table describes. Every cost of guest instructions — each path
// step, the elevator lock's hold, and an atomic or a load on a line the CPU owns
// already (LineLocal, Transfer.Self) — is multiplied by factor and rounded to the
// nanosecond. What a line transfer costs beyond that (LineRemote − LineLocal,
// Transfer.SMT/Node/Socket/Remote − Transfer.Self: the coherence traffic of moving
// the line from the CPU that wrote it last) is kept: under QEMU's multi-threaded TCG
// (the oracle's -accel tcg,thread=multi) each vCPU is a host thread and a guest
// atomic is a host atomic on the same guest-RAM address (QEMU
// docs/devel/multi-thread-tcg.rst, "Atomic Operations"; tcg_gen_atomic_* helpers),
// so the line moves between the host cores running the two vCPU threads at the
// host's own cost; only the instruction around it is translated (sourced). The
// host's transfer costs are assumed to be the table's. A lock hand-off
// (spinLock: the lock line and the protected lines moving to the next holder) is
// made of these transfers and is scaled the same way. Counts and switches
// (CPUsPerLLC, ElevatorLines, Uncontended) are kept. A zero table is first replaced
// by DefaultCPUCosts. It models no kernel function: it is the instrument correction
// for comparing with a kernel run under an instruction-set emulator (QEMU TCG), where
// the kernel's own code — interrupt entry, softirq, the block and SCSI paths, the
// system calls, the scheduler — is translated and runs a roughly constant factor
// slower than on the host. The factor's calibration cases (oracle.SlowdownJob: one
// reader pinned to one vCPU, its completions on that vCPU) touch only lines their
// CPU owns, so the split leaves them as they were. It returns an error for a factor
// outside [1, MaxEmulationSlowdown] or NaN.
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
		&c.EndBio, &c.IPI, &c.Wakeup, &c.Switch, &c.QueueRun, &c.MMSwitch, &c.SubmitSyscall, &c.LazyTLBSwitch, &c.DataCopyKiB, &c.DataCopyCmd} {
		s(t)
	}
	// a transfer: the owned-line access scaled, the move on top of it kept
	moved := func(t *sim.Time, own, ownScaled sim.Time) { *t = ownScaled + max(*t-own, 0) }
	local := c.LineLocal
	s(&c.LineLocal)
	moved(&c.LineRemote, local, c.LineLocal)
	self := c.Transfer.Self
	s(&c.Transfer.Self)
	for _, t := range []*sim.Time{&c.Transfer.SMT, &c.Transfer.Node, &c.Transfer.Socket, &c.Transfer.Remote} {
		moved(t, self, c.Transfer.Self)
	}
	return c, nil
}
