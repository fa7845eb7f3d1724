package device

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// HostParams configures a Host: a SCSI host bus adapter (HBA) that holds at most
// CanQueue commands across all its LUNs, the way smartpqi firmware does (source 001:
// the controller accepts scsi_ml_can_queue commands; the Dec 2020 proposal answers
// SCSI_MLQUEUE_HOST_BUSY above it).
type HostParams struct {
	Name string // reported by the device's Name method
	// CanQueue is the number of commands the adapter holds at once across its LUNs
	// (Scsi_Host can_queue, >= 1). Above it Submit answers HostBusy.
	CanQueue int
	// CommandCost is the adapter's controller time per command (ns, >= 0), spent one
	// command at a time on the completion path: 1/CommandCost caps the adapter's
	// command rate.
	CommandCost sim.Time
}

// Validate checks the parameters and returns an error naming the first bad field.
func (p HostParams) Validate() error {
	switch {
	case p.CanQueue < 1:
		return fmt.Errorf("device: host %q: CanQueue %d out of range [1, inf)", p.Name, p.CanQueue)
	case p.CommandCost < 0:
		return fmt.Errorf("device: host %q: CommandCost %v out of range [0, inf)", p.Name, p.CommandCost)
	}
	return nil
}

// Host is a host adapter in front of LUN devices. Attach returns, for each LUN, a
// Device that routes commands through the adapter. The adapter counts the commands it
// holds and the peak number of commands the block layer tried to give it at once.
type Host struct {
	p           HostParams
	eng         *sim.Engine
	outstanding int
	peak        int // max over Submit attempts of outstanding+1
	peakHeld    int
	hostBusy    uint64
	ctrlFree    sim.Time
	events      pool[hostDone]
}

// NewHost builds a Host on eng. It returns Validate's error for bad parameters.
func NewHost(eng *sim.Engine, p HostParams) (*Host, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkEngine("host", p.Name, eng); err != nil {
		return nil, err
	}
	return &Host{p: p, eng: eng}, nil
}

// Params returns the adapter's parameters.
func (h *Host) Params() HostParams { return h.p }

// Outstanding returns the commands the adapter holds now (across LUNs).
func (h *Host) Outstanding() int { return h.outstanding }

// PeakOffered returns the largest number of commands the adapter was asked to hold at
// once: the maximum, over Submit calls, of Outstanding()+1. A value above CanQueue shows
// that the block layer sent more commands than the adapter can take (source 001).
func (h *Host) PeakOffered() int { return h.peak }

// PeakHeld returns the largest number of commands held at once (<= CanQueue).
func (h *Host) PeakHeld() int { return h.peakHeld }

// HostBusyCount returns how many Submit calls the adapter refused with HostBusy.
func (h *Host) HostBusyCount() uint64 { return h.hostBusy }

// Attach returns a Device for lun behind this adapter. Commands submitted to it count
// against CanQueue; a Busy answer from the LUN is passed through.
func (h *Host) Attach(lun Device) *HostLUN {
	return &HostLUN{h: h, lun: lun}
}

// HostLUN is a LUN seen through its Host. It implements Device and Completer (it
// intercepts the LUN's completions).
type HostLUN struct {
	h        *Host
	lun      Device
	inFlight int
}

// Name returns the LUN's name.
func (l *HostLUN) Name() string { return l.lun.Name() }

// InFlight returns the LUN's commands held by the adapter (accepted, not yet completed
// to the caller).
func (l *HostLUN) InFlight() int { return l.inFlight }

// Host returns the adapter.
func (l *HostLUN) Host() *Host { return l.h }

// Submit answers HostBusy when the adapter holds CanQueue commands; otherwise it passes
// cmd to the LUN and returns the LUN's answer.
func (l *HostLUN) Submit(cmd *Command) Status {
	checkCommand(l.lun.Name(), cmd)
	h := l.h
	h.peak = max(h.peak, h.outstanding+1)
	if h.outstanding >= h.p.CanQueue {
		h.hostBusy++
		return HostBusy
	}
	if cmd.hostDone != nil {
		panic(fmt.Sprintf("device: host %q: command ID %d submitted while already held by a host", h.p.Name, cmd.ID))
	}
	cmd.hostDone = cmd.Done
	cmd.Done = l
	st := l.lun.Submit(cmd)
	if st != Accepted {
		cmd.Done, cmd.hostDone = cmd.hostDone, nil
		return st
	}
	h.outstanding++
	h.peakHeld = max(h.peakHeld, h.outstanding)
	l.inFlight++
	return Accepted
}

// Complete receives the LUN's completion and passes it to the caller after the
// adapter's CommandCost (serialised across the adapter).
func (l *HostLUN) Complete(cmd *Command, now sim.Time) {
	h := l.h
	cmd.Done, cmd.hostDone = cmd.hostDone, nil
	if h.p.CommandCost == 0 {
		l.finish(cmd, now)
		return
	}
	h.ctrlFree = max(now, h.ctrlFree) + h.p.CommandCost
	ev := h.events.get()
	ev.l, ev.cmd = l, cmd
	h.eng.At(h.ctrlFree, ev)
}

func (l *HostLUN) finish(cmd *Command, now sim.Time) {
	l.h.outstanding--
	l.inFlight--
	cmd.Done.Complete(cmd, now)
}

type hostDone struct {
	l   *HostLUN
	cmd *Command
}

func (e *hostDone) Fire(now sim.Time) {
	l, cmd := e.l, e.cmd
	l.h.events.put(e)
	l.finish(cmd, now)
}
