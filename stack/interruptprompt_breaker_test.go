package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// closingDevice closes stop at its at-th command, as a signal arriving in the
// middle of a stretch of model time, and counts the commands after it.
type closingDevice struct {
	device.Device
	n, at int
	stop  chan struct{}
	after int
}

func (d *closingDevice) Submit(cmd *device.Command) device.Status {
	d.n++
	switch {
	case d.n == d.at:
		close(d.stop)
	case d.n > d.at:
		d.after++
	}
	return d.Device.Submit(cmd)
}

// TestInterruptIsPromptMidChunk: an Interrupt closed between two of the guard's
// checks ends the run within stack.InterruptSlice events, not at the end of the
// guard's chunk of about a million events (about a second of wall time at the
// model's 1-2 µs per event: Ctrl-C took up to 1.3 s to stop a run). Both run kinds
// (time-bound, size-bound) go through the guard.
func TestInterruptIsPromptMidChunk(t *testing.T) {
	for _, job := range []string{
		"[a]\nioengine=libaio\niodepth=16\nrw=randread\ntime_based\nruntime=100\nnumjobs=4\n",
		"[a]\nioengine=libaio\niodepth=16\nrw=randread\nsize=100g\nnumjobs=4\n",
	} {
		cfg := baseConfig()
		stop := make(chan struct{})
		var dev *closingDevice
		cfg.LUNs[0].Device = func(eng *sim.Engine) (device.Device, error) {
			d, err := nullDevice(20 * sim.Microsecond)(eng)
			dev = &closingDevice{Device: d, at: 5000, stop: stop}
			return dev, err
		}
		cfg.Limits.Interrupt = stop
		cfg.Limits.MaxEvents = -1
		res, err := stack.Run(cfg, parse(t, job))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Interrupted {
			t.Fatal("Result.Interrupted not set")
		}
		// every command is at least one event (its completion)
		if dev.after > stack.InterruptSlice {
			t.Errorf("%d commands after the interrupt, want at most stack.InterruptSlice (%d) events", dev.after, stack.InterruptSlice)
		}
	}
}
