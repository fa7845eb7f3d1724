package device

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// Op is a command's data direction (the REQ_OP_READ / REQ_OP_WRITE of a request).
type Op uint8

// Directions.
const (
	OpRead Op = iota
	OpWrite
)

// String returns "read" or "write".
func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Command is one command sent to a device (a SCSI command / a request handed to the
// driver's queue_rq). The caller owns it; a device holds the pointer from an Accepted
// Submit until it calls Done.Complete, and the caller must not modify it meanwhile.
type Command struct {
	Op     Op        // data direction
	Offset int64     // bytes from the start of the device; must be >= 0
	Length int64     // bytes; must be > 0
	Sync   bool      // REQ_SYNC: informational for devices; used by the block layer
	Done   Completer // receives the completion; must not be nil
	ID     uint64    // caller's identifier; devices never interpret it
	Priv   any       // caller's data; devices never touch it

	// Submitted is set by the device that accepts the command to the virtual time of
	// acceptance (ns).
	Submitted sim.Time

	hostDone Completer // the caller's Done while a Host holds the command
}

// Completer receives completions. Implement it on a long-lived struct so completions
// allocate nothing.
type Completer interface {
	// Complete is called once per accepted command, at its completion time now.
	Complete(cmd *Command, now sim.Time)
}

// CompleterFunc adapts a function to Completer (allocates once if it is a closure).
type CompleterFunc func(cmd *Command, now sim.Time)

// Complete calls f(cmd, now).
func (f CompleterFunc) Complete(cmd *Command, now sim.Time) { f(cmd, now) }

// Status is a device's answer to Submit, mirroring the driver's queuecommand return:
// 0 (accepted), SCSI_MLQUEUE_DEVICE_BUSY, or SCSI_MLQUEUE_HOST_BUSY.
type Status int

// Submit answers.
const (
	Accepted Status = iota // the device owns the command and will complete it
	Busy                   // the device (LUN) cannot take it now (SCSI_MLQUEUE_DEVICE_BUSY)
	HostBusy               // the host adapter cannot take it now (SCSI_MLQUEUE_HOST_BUSY)
)

// String returns "accepted", "busy" or "host-busy".
func (s Status) String() string {
	switch s {
	case Accepted:
		return "accepted"
	case Busy:
		return "busy"
	case HostBusy:
		return "host-busy"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Device is the interface every model implements.
type Device interface {
	// Submit offers cmd at the engine's current time. On Accepted the device will call
	// cmd.Done.Complete exactly once, later or at the same virtual time (never from
	// inside Submit). Submit panics if cmd.Done is nil, Length <= 0 or Offset < 0
	// (programming errors).
	Submit(cmd *Command) Status
	// Name returns the device's name (from its parameters).
	Name() string
	// InFlight returns the number of accepted, not yet completed commands.
	InFlight() int
}

// checkCommand panics on malformed commands.
func checkCommand(dev string, cmd *Command) {
	if cmd.Done == nil {
		panic(fmt.Sprintf("device %s: Submit with nil Done (command ID %d)", dev, cmd.ID))
	}
	if cmd.Length <= 0 || cmd.Offset < 0 {
		panic(fmt.Sprintf("device %s: Submit with Offset %d, Length %d (want Offset >= 0, Length > 0)", dev, cmd.Offset, cmd.Length))
	}
}

// ceilDiv returns ceil(a/b) for a >= 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Every model implements Device.
var (
	_ Device = (*Null)(nil)
	_ Device = (*Throttled)(nil)
	_ Device = (*SSD)(nil)
	_ Device = (*HDD)(nil)
	_ Device = (*HostLUN)(nil)
)
