package setup

import (
	"fmt"
	"strconv"
	"time"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
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
	addKey(&key{name: "system/emulation_slowdown",
		doc:     "factor by which an emulated guest's CPU (QEMU TCG) is slower than the native CPU the cost table describes: every CPU cost of the submission and completion paths (of a cache-line transfer only the guest instruction, not the host's cross-CPU move) is multiplied by it, 1 = native",
		allowed: "a number in [1, 1000], e.g. 74",
		set: func(s *state, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 1 && f <= dispatch.MaxEmulationSlowdown) {
				return errRange{"a number in [1, 1000], e.g. 74"}
			}
			s.emulationSlowdown = f
			return nil
		},
		get: func(s *state) string {
			if s.emulationSlowdown == 0 {
				return "1"
			}
			return strconv.FormatFloat(s.emulationSlowdown, 'g', -1, 64)
		}})
	addKey(&key{name: "system/emulation_wake_switch",
		doc:     "with system/emulation_slowdown above 1, charge the guest code of every task sleep and wake-up as scaled CPU time on the CPUs that run it (each context switch, the waker's try_to_wake_up, the kblockd kworker's two switches), stamp fio's issue_time at the submitting syscall's return let a reaper look at its completions again once its CPU has done its submission (io_getevents after io_submit returns) and charge the emulated TLB's refill after a process switch up to a working set (stack.DefaultTLBWorkingSet), as blkmq validate does by default; the value is the native cost of one context switch",
		allowed: wakeSwitchAllowed,
		set: func(s *state, v string) error {
			switch v {
			case "off":
				s.emulationWake = stack.EmulationOptions{}
				return nil
			case "on":
				s.emulationWake = stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true, TLBWorkingSet: stack.DefaultTLBWorkingSet}
				return nil
			}
			d, err := time.ParseDuration(v)
			if err != nil || d < 1 || d > time.Millisecond {
				return errRange{wakeSwitchAllowed}
			}
			s.emulationWake = stack.EmulationOptions{WakeSplit: true, IssueAtReturn: true, ReadEventsAfterWork: true, TLBWorkingSet: stack.DefaultTLBWorkingSet, Switch: sim.Time(d.Nanoseconds())}
			return nil
		},
		get: func(s *state) string {
			switch {
			case !s.emulationWake.WakeSplit:
				return "off"
			case s.emulationWake.Switch == 0:
				return "on"
			}
			return time.Duration(s.emulationWake.Switch).String()
		}})
}

// wakeSwitchAllowed is the allowed text of system/emulation_wake_switch. A zero
// switch is refused rather than read as on: stack.EmulationOptions.Switch 0 means
// dispatch.NativeSwitch, so "0" would silently charge 1us.
const wakeSwitchAllowed = "off, on (1us), or a duration in [1ns, 1ms] (at most 1ms divided by system/emulation_slowdown), e.g. 1500ns; 0 is refused: a context switch costs time, and the model reads a zero cost as the 1us default"

// WithEmulationSlowdown returns cfg with every CPU cost multiplied by factor
// (stack.Config.Emulated: dispatch.CPUCosts and the io-wq worker's step): a guest whose CPU runs under an instruction-set emulator
// (QEMU TCG) executes the kernel's and fio's code factor times slower than the native
// CPU the cost table describes, so a path that takes 2 µs natively keeps the guest's
// CPU busy for 2 µs × factor, and a CPU that saturates under emulation saturates in the
// model too. Like WithEmulationOverhead it is an instrument correction, not a
// block-layer mechanism. factor <= 1 returns cfg unchanged; a factor
// above dispatch.MaxEmulationSlowdown is an error naming the range.
func WithEmulationSlowdown(cfg stack.Config, factor float64) (stack.Config, error) {
	return WithEmulation(cfg, factor, stack.EmulationOptions{})
}

// WithEmulation is WithEmulationSlowdown with the choices of
// stack.Config.EmulatedWith (o.WakeSplit: the guest code of each task wake-up
// charged as scaled CPU time on the waker's and the woken task's CPUs). factor <= 1
// returns cfg unchanged; a factor above dispatch.MaxEmulationSlowdown or a switch
// cost outside [0, 1 ms] is an error naming the range.
func WithEmulation(cfg stack.Config, factor float64, o stack.EmulationOptions) (stack.Config, error) {
	if factor <= 1 {
		return cfg, nil
	}
	return cfg.EmulatedWith(factor, o)
}

// withEmulation applies the state's emulation corrections (slowdown, then the
// per-command overhead) to cfg; the slowdown's range was checked when it was set,
// the wake switch's scaled cost (switch × slowdown, at most 1 ms) is checked here,
// where both are known, and its error names system/emulation_wake_switch.
func withEmulation(cfg stack.Config, s *state) (stack.Config, error) {
	c, err := WithEmulation(cfg, s.emulationSlowdown, s.emulationWake)
	if err != nil {
		return cfg, fmt.Errorf("setup: system/emulation_wake_switch: %w", err)
	}
	return WithEmulationOverhead(c, s.emulationOverhead), nil
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
