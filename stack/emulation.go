package stack

import (
	"math"

	"github.com/blkmq/blkmq/sim"
)

// Emulated returns the configuration of a guest whose CPU runs factor times slower
// than the native CPU the model's costs describe (an instruction-set emulator such as
// QEMU TCG): every CPU cost of the submission and completion paths
// (dispatch.CPUCosts.Emulated) and the io-wq worker's own time between two work items
// (SubmitTiming.WorkerStep, io_worker_handle_work's loop: CPU work the model keeps
// as a delay) multiplied by factor. Wake-up and kblockd latencies are kept: they are
// assumed scheduling delays, not charged CPU work. CPU costs off (CPU.Off) leave the
// costs alone. It models no kernel function; it is the instrument correction for
// comparing with an emulated kernel, and returns an error for a factor outside [1,
// dispatch.MaxEmulationSlowdown].
func (c Config) Emulated(factor float64) (Config, error) {
	if !c.CPU.Off {
		costs, err := c.CPU.Costs.Emulated(factor)
		if err != nil {
			return c, err
		}
		c.CPU.Costs = costs
	}
	t := c.Submit.withDefaults()
	c.Submit.ReapMin, c.Submit.ReapMax = t.ReapMin, t.ReapMax
	c.Submit.WorkerStep = sim.Time(math.Round(float64(t.WorkerStep) * factor))
	// fio's parent process is emulated code too (stack/fiothreads.go)
	c.Placement.FioParentSlowdown = factor
	return c, nil
}
