package oracle

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkmq/blkmq/setup"
	"github.com/blkmq/blkmq/stack"
)

// The guest runs under TCG, where each command's submission and completion path
// (interrupt, softirq, task wake-up) costs a few hundred microseconds of emulated
// CPU instead of microseconds: on a 4 ms null_blk at queue depth 1 the guest sees
// 4.25 ms, on a 3 ms scsi_debug at 15 commands in flight it completes 4494 commands/s
// where 5000 are possible. That cost belongs to the instrument, not to the block
// layer, so the model side can add it to every command as a fixed completion delay
// (ModelOptions.EmulationOverhead), calibrated per driver on a queue-depth-1 job
// where no block-layer queueing happens (CalibrationJob).

// CalibrationJob is the fio job that measures the emulation overhead: one 4k
// random reader at queue depth 1, so each command's latency is the device's plus
// the overhead.
const CalibrationJob = `; blkmq oracle calibration: queue depth 1, no block-layer queueing
[calibrate]
filename=${DEV}
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=1
time_based=1
runtime=4
ramp_time=1
`

// withOverhead wraps every LUN's device of cfg with a fixed completion delay
// (setup.WithEmulationOverhead).
func withOverhead(cfg stack.Config, extra time.Duration) stack.Config {
	return setup.WithEmulationOverhead(cfg, extra)
}

// Driver returns the device kind of the Case ("scsi_debug", "null_blk").
func (c *Case) Driver() string {
	f := strings.Fields(c.Device)
	if len(f) > 0 && f[0] == "modprobe" {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// EmulationOverhead derives the per-command overhead from a calibration run: the
// kernel's mean completion latency minus the model's (run without overhead) for the
// same single-job, queue-depth-1 case. It returns an error when either side has no
// single read job, or a negative result beyond noise (the model slower than the
// guest, which means the device presets disagree, or the emulated CPU costs: a
// slowdown or wake switch that makes the model's queue-depth-1 path slower than the
// guest's).
func EmulationOverhead(kernel, model *Figures) (time.Duration, error) {
	if len(kernel.Jobs) != 1 || len(model.Jobs) != 1 {
		return 0, fmt.Errorf("oracle: calibration needs exactly one job on each side (kernel %d, model %d)", len(kernel.Jobs), len(model.Jobs))
	}
	d := kernel.Jobs[0].ClatMean - model.Jobs[0].ClatMean
	if d < -0.05*model.Jobs[0].ClatMean {
		return 0, &CalibrationError{KernelClatMean: kernel.Jobs[0].ClatMean, ModelClatMean: model.Jobs[0].ClatMean}
	}
	return time.Duration(max(d, 0)), nil
}

// CalibrationError is EmulationOverhead's error when the model, run without any
// overhead, is already slower than the guest at queue depth 1 (by more than 5 %), so
// no non-negative per-command overhead can fit: the model's device presets, or the
// emulated CPU costs chosen for it (emulation slowdown, wake switch), are slower than
// the guest. Callers that let a user choose those costs can tell this case apart
// with errors.As.
type CalibrationError struct {
	KernelClatMean float64 // the guest's mean completion latency, ns
	ModelClatMean  float64 // the model's, without overhead, ns
}

func (e *CalibrationError) Error() string {
	return fmt.Sprintf("oracle: calibration: kernel clat mean %.3f ms below the model's %.3f ms without any overhead: "+
		"the model's device presets or its emulated CPU costs (emulation slowdown, wake switch) are slower than the guest",
		e.KernelClatMean/1e6, e.ModelClatMean/1e6)
}
