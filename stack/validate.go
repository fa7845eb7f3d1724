package stack

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/budget"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// Run validates everything it is given before it builds the machine (validate):
// the Config (Config.Validate and the derived values the assembly uses: each LUN's
// effective queue_depth and nr_requests for its effective elevator, the timing and
// CPU-cost tables, the limits) and every job spec (fio.Spec.Validate, then what only
// the machine decides: its CPUs, its LUNs, the bytes the regions add up to), then
// estimates the run's resources (limits.go). Every rejection is a *ConfigError or a
// *ResourceLimitError naming the field and its allowed range; Run never panics or
// hangs on a value it accepted.

// maxRegionBytes bounds the bytes the job regions of one LUN add up to (4 EiB), so that
// region offsets stay far from int64 overflow.
const maxRegionBytes = 1 << 62

// maxDelay bounds the modelled delays of Config.Submit and Config.Timing (1 hour):
// longer ones would only overflow the model clock.
const maxDelay = 3600 * sim.Second

// Check validates cfg and specs exactly as Run does before it runs (nil specs: the
// Config only), and builds each LUN's device on a scratch engine so that a device
// constructor's rejection is reported too. It returns nil or a *ConfigError (or a
// *ResourceLimitError for specs over Config.Limits). Use it to report a bad
// configuration before starting anything long.
func Check(cfg Config, specs []fio.Spec) error {
	if err := cfg.check(); err != nil {
		return err
	}
	for i, l := range cfg.LUNs {
		dev, err := l.Device(sim.NewEngine())
		if err != nil {
			return &ConfigError{Field: fmt.Sprintf("LUNs[%d].Device", i), Err: fmt.Errorf("stack: LUNs[%d].Device: %w", i, err)}
		}
		if dev == nil {
			return configErrorf(fmt.Sprintf("LUNs[%d].Device", i), "LUNs[%d].Device returned a nil device and no error", i)
		}
	}
	if specs == nil {
		return nil
	}
	return validateRun(&cfg, specs)
}

// validateRun is Run's check of its inputs: the Config, the specs, the resources.
func validateRun(cfg *Config, specs []fio.Spec) error {
	if err := cfg.check(); err != nil {
		return err
	}
	if len(specs) == 0 {
		return configErrorf("specs", "no fio jobs")
	}
	if err := cfg.checkSpecs(specs); err != nil {
		return err
	}
	return cfg.checkResources(specs)
}

// checkTiming names the first Config.Timing field out of range and its range (the
// Max bounds are maxDelay; dispatch.HostConfig.Validate checks the same order
// without the bound).
func (c *Config) checkTiming() error {
	t := c.Timing
	for _, p := range []struct {
		name     string
		min, max sim.Time
	}{{"Kblockd", t.KblockdMin, t.KblockdMax}, {"Wakeup", t.WakeupMin, t.WakeupMax}} {
		if p.max < 0 {
			return configErrorf("Timing."+p.name+"Max", "Timing.%sMax %v out of range [0 (= default), %v]", p.name, p.max, maxDelay)
		}
		if p.max == 0 && p.min > 0 {
			return configErrorf("Timing."+p.name+"Min", "Timing.%sMin %v set without Timing.%sMax: a Max of 0 selects the default pair 5µs–30µs, Min included; set both", p.name, p.min, p.name)
		}
		if p.min < 0 || p.min > p.max {
			return configErrorf("Timing."+p.name+"Min", "Timing.%sMin %v out of range [0, %v (Timing.%sMax)]", p.name, p.min, p.max, p.name)
		}
	}
	if t.ResourceDelay < 0 {
		return configErrorf("Timing.ResourceDelay", "Timing.ResourceDelay %v out of range [0 (= 3ms), %v]", t.ResourceDelay, maxDelay)
	}
	return nil
}

// check is Config.Validate plus the values derived from several fields, typed.
func (c *Config) check() error {
	if err := c.Validate(); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			return err
		}
		return &ConfigError{Err: err}
	}
	if c.Watchdog < 0 {
		return configErrorf("Watchdog", "Watchdog %v out of range [0 (= 1h), %v]", c.Watchdog, sim.MaxTime)
	}
	if c.HistogramBits < 0 || c.HistogramBits > fio.MaxHistogramBits {
		return configErrorf("HistogramBits", "HistogramBits %d out of range [0 (= %d), %d]", c.HistogramBits, fio.DefaultHistogramBits, fio.MaxHistogramBits)
	}
	for _, d := range []struct {
		field string
		v     sim.Time
	}{{"Submit.ReapMax", c.Submit.ReapMax}, {"Submit.WorkerStep", c.Submit.WorkerStep},
		{"Timing.KblockdMax", c.Timing.KblockdMax}, {"Timing.WakeupMax", c.Timing.WakeupMax}, {"Timing.ResourceDelay", c.Timing.ResourceDelay}} {
		if d.v > maxDelay {
			return configErrorf(d.field, "%s %v out of range [0, %v]", d.field, d.v, maxDelay)
		}
	}
	if err := c.checkTiming(); err != nil {
		return err
	}
	for i := range c.nrHosts() {
		hc := c.hostConfig(i)
		if err := hc.Validate(); err != nil {
			return configErrorf("Timing", "%v", err) // Timing, CPU: the dispatch checks of HostConfig
		}
	}
	names := map[string]int{}
	for i, l := range c.LUNs {
		if len(c.LUNs) > 1 {
			if j, dup := names[l.Name]; dup {
				return configErrorf(fmt.Sprintf("LUNs[%d].Name", i), "LUNs[%d].Name %q repeats LUNs[%d].Name: with several LUNs jobs target them by name", i, l.Name, j)
			}
			names[l.Name] = i
		}
		if qd, maxQD := c.lunQueueDepth(l), min(c.hostAt(l.Host).CanQueue, budget.MaxQueueDepth); qd < 1 || qd > maxQD {
			return configErrorf(fmt.Sprintf("LUNs[%d].QueueDepth", i), "LUNs[%d]: queue_depth %d out of range [1, %d]", i, qd, maxQD)
		}
		if cq := c.hostAt(l.Host).CanQueue; l.NrRequests > 0 && c.elevatorOf(l) == "" && l.NrRequests > cq {
			return configErrorf(fmt.Sprintf("LUNs[%d].NrRequests", i),
				"LUNs[%d].NrRequests %d out of range [0 (= default), %d]: without an I/O scheduler nr_requests only shrinks the driver tags (Host.CanQueue %d)",
				i, l.NrRequests, cq, cq)
		}
	}
	return c.Limits.validate()
}

// DefaultQueueDepth is the queue_depth a LUN gets when it sets none: the host's
// cmd_per_lun (1 when 0), capped at can_queue and at SCSI_MAX_QUEUE_DEPTH (10000), as
// scsi_change_queue_depth caps it with scsi_device_max_queue_depth (v5.12+).
func (h Host) DefaultQueueDepth() int {
	return min(max(h.CmdPerLun, 1), h.CanQueue, budget.MaxQueueDepth)
}

// lunQueueDepth is the LUN's queue_depth as Run builds it: QueueDepth, or
// Host.DefaultQueueDepth when 0.
func (c *Config) lunQueueDepth(l LUN) int {
	if l.QueueDepth != 0 {
		return l.QueueDepth
	}
	return c.hostAt(l.Host).DefaultQueueDepth()
}

// elevatorOf is the elevator the LUN gets: its Scheduler, or for "" the kernel
// default of elevator_get_default (mq-deadline on a single hardware queue, or with
// host-wide tags in the eras that count them as one), "" meaning none.
func (c *Config) elevatorOf(l LUN) string {
	if onLegacy, _ := c.legacyScheduler(l); onLegacy {
		return l.Scheduler // the legacy elevator ("deadline", "noop")
	}
	switch l.Scheduler {
	case "none":
		return ""
	case "mq-deadline":
		return l.Scheduler
	}
	hc := c.hostConfig(l.Host)
	if hc.NrHwQueues == 1 || hc.HostTagset && hc.Options.DefaultElevator == dispatch.ElevatorSingleQueueOrSharedTags {
		return "mq-deadline"
	}
	return ""
}

// checkSpecs validates each spec (fio.Spec.Validate) and what the machine decides:
// allowed CPUs that exist, a LUN for each job, a region of at least one block, and
// region totals that fit in int64 arithmetic.
func (c *Config) checkSpecs(specs []fio.Spec) error {
	if len(c.Logs) > len(specs) {
		return configErrorf("Logs", "Logs has %d entries for %d job instances: one entry per instance, in specs order, at most %d", len(c.Logs), len(specs), len(specs))
	}
	perLUN := make([]int64, len(c.LUNs))
	for i := range specs {
		s := &specs[i]
		field := fmt.Sprintf("specs[%d]", i)
		if err := s.Validate(); err != nil {
			return &ConfigError{Field: field, Err: fmt.Errorf("stack: %s: %w", field, err)}
		}
		for _, cpu := range s.CPUsAllowed {
			if cpu >= c.NrCPUs {
				return configErrorf(field+".CPUsAllowed", "job %s: cpus_allowed CPU %d out of range [0, %d]", s.Instance(), cpu, c.NrCPUs-1)
			}
		}
		lun := 0
		if n := c.LUNs[0].Name; len(c.LUNs) == 1 && namesOtherDevice(s.Target, n) {
			return configErrorf(field+".Target", "job %s: target %q matches no LUN name (the only LUN is %q)", s.Instance(), s.Target, n)
		}
		if len(c.LUNs) > 1 {
			lun = -1
			for k, l := range c.LUNs {
				if l.Name == s.Target {
					lun = k
					break
				}
			}
			if lun < 0 {
				return configErrorf(field+".Target", "job %s: target %q matches no LUN name", s.Instance(), s.Target)
			}
		}
		if err := c.checkLegacyJob(lun, s, i); err != nil {
			return err
		}
		size := s.Size
		if size == 0 {
			size = 1 << 30
		}
		size -= size % s.BlockSize
		if size < s.BlockSize {
			return configErrorf(field+".Size", "job %s: size %d smaller than bs %d", s.Instance(), s.Size, s.BlockSize)
		}
		if float64(size)*float64(max(s.Loops, 1)) > maxRegionBytes {
			return configErrorf(field+".Loops", "job %s: size %d × loops %d is more than %d bytes", s.Instance(), size, s.Loops, int64(maxRegionBytes))
		}
		if s.IOSize > 0 && float64(s.IOSize)*float64(max(s.Loops, 1)) > maxRegionBytes {
			// the job transfers io_size per loop (job.done), counted in an int64
			return configErrorf(field+".Loops", "job %s: io_size %d × loops %d is more than %d bytes", s.Instance(), s.IOSize, s.Loops, int64(maxRegionBytes))
		}
		perLUN[lun] += s.Offset + size + 1<<20 // each region 1 MiB aligned
		if perLUN[lun] > maxRegionBytes {
			return configErrorf(field+".Size", "job %s: the regions of the jobs on LUN %d add up to more than %d bytes (offset+size per job)", s.Instance(), lun, int64(maxRegionBytes))
		}
	}
	return nil
}

// namesOtherDevice reports whether a job's target names a block device (/dev/…)
// other than the only LUN's name (when that LUN is named): such a job matches no LUN.
// A job naming a file or directory runs on the only LUN (its files live there).
func namesOtherDevice(target, lun string) bool {
	return lun != "" && strings.HasPrefix(target, "/dev/") && target != lun
}
