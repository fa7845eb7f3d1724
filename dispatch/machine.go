package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// NewHostOn builds a second (third, …) tag set on the same machine as base: it shares
// base's simulated CPUs and shared cache lines, so work charged by one host's paths
// delays the other's on the same CPU, as several drivers of one kernel do. cfg.NrCPUs
// must equal base's. Errors as NewHost, or a CPU-count mismatch.
func NewHostOn(eng *sim.Engine, cfg HostConfig, base *Host) (*Host, error) {
	if base.cfg.NrCPUs != cfg.NrCPUs || base.eng != eng {
		return nil, fmt.Errorf("dispatch: nr_cpus %d: a host on the same machine needs %d CPUs and the same engine", cfg.NrCPUs, base.cfg.NrCPUs)
	}
	if cfg.CPU.Off != base.CPUModelOff() {
		return nil, fmt.Errorf("dispatch: CPU model Off=%v differs from the machine's (%v)", cfg.CPU.Off, base.CPUModelOff())
	}
	h, err := NewHost(eng, cfg)
	if err != nil {
		return nil, err
	}
	h.cpu.cpus, h.cpu.lines = base.cpu.cpus, base.cpu.lines
	return h, nil
}

// CPUModelOff reports whether the host charges no CPU costs.
func (h *Host) CPUModelOff() bool { return !h.cpu.on }

// SameLLC reports whether CPUs a and b share a last-level cache (cpus_share_cache) in
// the cost model's topology (CPUCosts.CPUsPerLLC).
func (h *Host) SameLLC(a, b int) bool { return h.sameLLC(a, b) }

// WakeupDelay draws the delay (ns) between waking a sleeping task and the task
// running again (Timing.WakeupMin/WakeupMax), from the host's jitter stream.
func (h *Host) WakeupDelay() sim.Time { return h.wakeupDelay() }
