package sim

import (
	"fmt"
	"slices"
)

// CPU is a simulated processor that executes path steps one after another: a step
// submitted while the CPU is still busy starts when the earlier work finishes. It models
// the CPU time the kernel's submission and completion paths spend (the costs themselves
// are parameters of the caller). The zero value is CPU 0, idle.
type CPU struct {
	id        int
	busyUntil Time
	irqUntil  Time // end of the interrupt-context work (Interrupt)
	busy      Time
	steps     uint64
	host      *HostCores // the host cores this CPU's emulator thread shares, or nil
}

// HostCores is a pool of host cores shared by the CPUs given to NewHostCores: the vCPU
// threads of an emulator (QEMU TCG, thread=multi: one host thread per vCPU) running on
// fewer host cores than vCPUs. A CPU that is idle when a step becomes ready (a vCPU
// kicked out of its halt by an IPI or an interrupt) starts it only when a host core is
// free: when fewer than n of the other CPUs are still busy. Without preemption of a
// running vCPU and without time slices (a vCPU keeps its core until its charged work
// ends); a CPU that is already busy keeps its core. With no more CPUs than cores it
// changes nothing.
type HostCores struct {
	n    int
	cpus []*CPU
	ends []Time
}

// NewHostCores attaches cpus to a pool of n host cores (n > 0) and returns it.
func NewHostCores(n int, cpus []*CPU) *HostCores {
	h := &HostCores{n: n, cpus: cpus}
	for _, c := range cpus {
		c.host = h
	}
	return h
}

// wakeAt returns when self, idle, can start a step ready at now: now, or the time at
// which the other CPUs busy past now leave fewer than n of them running.
func (h *HostCores) wakeAt(now Time, self *CPU) Time {
	e := h.ends[:0]
	for _, c := range h.cpus {
		if c != self && c.busyUntil > now {
			e = append(e, c.busyUntil)
		}
	}
	h.ends = e
	if len(e) < h.n {
		return now
	}
	slices.Sort(e)
	return e[len(e)-h.n]
}

// NewCPU returns an idle CPU with the given id (used by SharedLine to tell CPUs apart).
func NewCPU(id int) *CPU { return &CPU{id: id} }

// ID returns the CPU's id.
func (c *CPU) ID() int { return c.id }

// Exec runs a step of the given cost (ns) that becomes ready at now, and returns the
// time it finishes: max(now, the end of earlier work) + cost. It panics if cost < 0.
func (c *CPU) Exec(now, cost Time) Time {
	if cost < 0 {
		panic(negativeCost{c.id, "Exec", cost})
	}
	start := max(now, c.busyUntil)
	if c.host != nil && now > c.busyUntil {
		start = c.host.wakeAt(now, c)
	}
	c.busyUntil = start + cost
	c.busy += cost
	c.steps++
	return c.busyUntil
}

// negativeCost is the panic value of a step of negative cost (a programming error): a
// value rather than a formatted string, so that Exec and Interrupt inline.
type negativeCost struct {
	cpu  int
	what string
	cost Time
}

func (e negativeCost) Error() string {
	return fmt.Sprintf("sim: CPU %d %s with negative cost %v", e.cpu, e.what, e.cost)
}

// Interrupt runs a step of the given cost (ns) in interrupt context (a hardirq and the
// softirq or IPI callback it raises: kernel/softirq.c irq_exit_rcu → __do_softirq runs
// before the interrupted context resumes), and returns when it finishes. It starts at
// now, or at the end of earlier interrupt-context work (interrupts on one CPU do not
// nest in the model: they run in the order they are charged), not after the task-level
// work given with Exec: that work is preempted, and every part of it not done at the
// step's start finishes cost later. Task-level work that ended at or before the start
// (a tie included) is not moved. It panics if cost < 0.
func (c *CPU) Interrupt(now, cost Time) Time {
	if cost < 0 {
		panic(negativeCost{c.id, "Interrupt", cost})
	}
	start := max(now, c.irqUntil)
	if c.host != nil && now > c.busyUntil {
		start = c.host.wakeAt(now, c)
	}
	end := start + cost
	c.irqUntil = end
	if c.busyUntil > start {
		c.busyUntil += cost // the preempted work resumes after the interrupt
	} else {
		c.busyUntil = end
	}
	c.busy += cost
	c.steps++
	return end
}

// IRQFreeAt returns the time at which the CPU finishes the interrupt-context work
// already given to it (Interrupt); at most FreeAt.
func (c *CPU) IRQFreeAt() Time { return c.irqUntil }

// FreeAt returns the time at which the CPU finishes the work already given to it.
func (c *CPU) FreeAt() Time { return c.busyUntil }

// BusyTime returns the total cost (ns) executed so far; divide by elapsed time for
// utilisation.
func (c *CPU) BusyTime() Time { return c.busy }

// Steps returns the number of Exec calls so far.
func (c *CPU) Steps() uint64 { return c.steps }

// Default cache-line costs. Assumption: typical x86 server figures — an L1/L2 hit of a
// few ns, and a core-to-core transfer of a modified line of ~50–100 ns within a socket
// (published core-to-core latency measurements of Skylake/Ice Lake servers fall in this
// range; cross-socket transfers are ~2× that). Callers modelling a particular machine
// should set their own.
const (
	DefaultLocalCost  Time = 5 * Nanosecond
	DefaultRemoteCost Time = 80 * Nanosecond
)

// SharedLine is a cache line shared between simulated CPUs: an atomic counter, a tag
// word, a budget counter. Touching it from the CPU that touched it last costs LocalCost;
// touching it from another CPU costs RemoteCost (the line moves between caches). The
// first touch costs LocalCost. Create with NewSharedLine or set the fields directly.
type SharedLine struct {
	LocalCost  Time // ns charged when the last toucher touches again
	RemoteCost Time // ns charged when a different CPU touches (cache-line transfer)

	last      int // last toucher's CPU id + 1; 0 = never touched
	touches   uint64
	transfers uint64
}

// NewSharedLine returns an untouched line with the given costs (ns). It panics if a cost
// is negative.
func NewSharedLine(local, remote Time) *SharedLine {
	if local < 0 || remote < 0 {
		panic(fmt.Sprintf("sim: NewSharedLine with negative cost local=%v remote=%v", local, remote))
	}
	return &SharedLine{LocalCost: local, RemoteCost: remote}
}

// Touch records that cpu accessed the line and returns the cost (ns) of the access. The
// caller charges it, usually with CPU.Exec.
func (l *SharedLine) Touch(cpu int) Time {
	l.touches++
	prev := l.last
	l.last = cpu + 1
	if prev == 0 || prev == cpu+1 {
		return l.LocalCost
	}
	l.transfers++
	return l.RemoteCost
}

// Touches returns the number of Touch calls so far.
func (l *SharedLine) Touches() uint64 { return l.touches }

// Transfers returns how many touches moved the line from another CPU.
func (l *SharedLine) Transfers() uint64 { return l.transfers }
