package setup

import (
	"time"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// MaxEmulationOverhead bounds system/emulation_overhead.
const MaxEmulationOverhead = time.Second

func init() {
	addKey(&key{name: "system/emulation_overhead",
		doc:     "fixed delay added to every device command's completion: the per-command cost of an emulated guest (QEMU TCG) to compare with, 0 = none",
		allowed: "a duration in [0, 1s], e.g. 270us",
		set: func(s *state, v string) error {
			d, err := time.ParseDuration(v)
			if v == "0" {
				d, err = 0, nil
			}
			if err != nil || d < 0 || d > MaxEmulationOverhead {
				return errRange{"a duration in [0, 1s], e.g. 270us"}
			}
			s.emulationOverhead = d
			return nil
		},
		get: func(s *state) string { return s.emulationOverhead.String() }})
}

// WithEmulationOverhead returns cfg with every LUN's device wrapped so that each
// completion reaches the block layer extra later: what a guest under emulation (QEMU
// TCG) spends per command in its interrupt, softirq and wake-up paths, which the
// model does not otherwise charge. It is an instrument correction for comparing with
// emulated kernels, not a block-layer mechanism. extra <= 0 returns cfg unchanged.
func WithEmulationOverhead(cfg stack.Config, extra time.Duration) stack.Config {
	if extra <= 0 {
		return cfg
	}
	luns := make([]stack.LUN, len(cfg.LUNs))
	for i, l := range cfg.LUNs {
		build := l.Device
		l.Device = func(eng *sim.Engine) (device.Device, error) {
			d, err := build(eng)
			if err != nil {
				return nil, err
			}
			return &overheadDevice{inner: d, eng: eng, extra: sim.Time(extra), orig: map[*device.Command]device.Completer{}}, nil
		}
		luns[i] = l
	}
	cfg.LUNs = luns
	return cfg
}

// overheadDevice delays each completion of the wrapped device by extra.
type overheadDevice struct {
	inner device.Device
	eng   *sim.Engine
	extra sim.Time
	orig  map[*device.Command]device.Completer
}

// delayedDone is the scheduled end of one delayed completion.
type delayedDone struct {
	cmd  *device.Command
	done device.Completer
}

// Fire hands the completion to the original completer.
func (d *delayedDone) Fire(now sim.Time) { d.done.Complete(d.cmd, now) }

func (o *overheadDevice) Submit(cmd *device.Command) device.Status {
	done := cmd.Done
	cmd.Done = o
	st := o.inner.Submit(cmd)
	if st != device.Accepted {
		cmd.Done = done
		return st
	}
	o.orig[cmd] = done
	return st
}

// Complete is the inner device's completion: restore the completer and deliver
// after the overhead.
func (o *overheadDevice) Complete(cmd *device.Command, now sim.Time) {
	done := o.orig[cmd]
	delete(o.orig, cmd)
	cmd.Done = done
	o.eng.At(now+o.extra, &delayedDone{cmd: cmd, done: done})
}

func (o *overheadDevice) Name() string  { return o.inner.Name() }
func (o *overheadDevice) InFlight() int { return o.inner.InFlight() }
