// Package device models what sits behind a block driver: a null device (scsi_debug /
// null_blk), a throttled cloud disk (token buckets, as on Azure managed disks behind
// storvsc), an SSD, a hard disk, and a host adapter that limits commands across its LUNs
// (can_queue).
//
// A Device accepts a Command or answers busy; an accepted command completes later, in
// virtual time, through the *sim.Engine the device was built with, by a call to
// cmd.Done.Complete(cmd, now). Devices pool their internal events and queues: in steady
// state nothing is allocated per command.
//
// Every parameter struct names its units in the field names or docs, and every default
// states its source (a kernel module parameter, a data sheet, or "assumption").
// Constructors validate parameters and return errors naming the field and its allowed
// range.
//
// Devices, like the engine, are single-goroutine.
package device
