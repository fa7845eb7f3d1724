package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestGuestSetupFairShare: two disks on one 32-tag set, one deep reader on one of
// them from CPU 0, the other disk idle. The partition scan of each disk from CPU 0
// leaves, on null_blk shared_tags, only the later disk's hctx0 active (the set is
// not shared yet when the first disk is read), and on a SCSI host both LUNs' hctx0
// (sd reads the disks after the host scan added them all): the reader on a disk whose
// tags are also claimed by the other disk's active hctx gets half of them (Little's
// law at 1 ms per command: IOPS ≈ 1000 × commands in flight). The timeout timers
// (5 s for null_blk, 30 s for sd) do not fire in the 200 ms run.
func TestGuestSetupFairShare(t *testing.T) {
	setup := &stack.GuestSetup{ScanCPU: 0, Before: 500 * sim.Millisecond}
	for _, tc := range []struct {
		name     string
		driver   stack.Driver
		target   string
		setup    *stack.GuestSetup
		inFlight float64
	}{
		{"nullblk-no-setup", stack.DriverNullBlk, "/dev/nullb0", nil, 32},
		{"nullblk-first-disk", stack.DriverNullBlk, "/dev/nullb0", setup, 16},
		{"nullblk-second-disk", stack.DriverNullBlk, "/dev/nullb1", setup, 32},
		{"scsi-no-setup", stack.DriverSCSI, "/dev/nullb0", nil, 32},
		{"scsi-first-lun", stack.DriverSCSI, "/dev/nullb0", setup, 16},
		{"scsi-second-lun", stack.DriverSCSI, "/dev/nullb1", setup, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := stack.Config{
				NrCPUs: 2,
				Host: stack.Host{CanQueue: 32, NrHwQueues: 1, CmdPerLun: 32, Driver: tc.driver,
					NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer}},
				LUNs: []stack.LUN{
					{Name: "/dev/nullb0", Device: nullDevice(sim.Millisecond), Scheduler: "none"},
					{Name: "/dev/nullb1", Device: nullDevice(sim.Millisecond), Scheduler: "none"},
				},
				CPU:   dispatch.CPUModel{Off: true},
				Setup: tc.setup,
				Seed:  1,
			}
			specs := parse(t, `
[r]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=128
cpus_allowed=0
time_based=1
runtime=200ms
filename=`+tc.target+`
`)
			res, err := stack.Run(cfg, specs)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Jobs[0].Fio.Read().IOPS / 1000
			if got < 0.9*tc.inFlight || got > 1.02*tc.inFlight {
				t.Errorf("%.1f commands in flight (%.0f IOPS), want ≈ %.0f", got, 1000*got, tc.inFlight)
			}
		})
	}
}

// TestGuestSetupErrors: a scan CPU outside the machine is an error naming the field.
func TestGuestSetupErrors(t *testing.T) {
	cfg := baseConfig()
	cfg.Setup = &stack.GuestSetup{ScanCPU: cfg.NrCPUs}
	specs := parse(t, "[r]\nrw=randread\nsize=1m\n")
	_, err := stack.Run(cfg, specs)
	want := "stack: setup: scan_cpu 4 out of range [0, 4)"
	if err == nil || err.Error() != want {
		t.Fatalf("Run error %v, want %q", err, want)
	}
}
