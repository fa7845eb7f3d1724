package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/nvme"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// TestSeveralHosts runs two SCSI HBAs and two NVMe-like controllers in one machine,
// each LUN on its own host with the tag set its driver gives it. Each LUN's jobs ask
// for more I/Os than its tag set holds: the commands in flight on each settle at its
// own limit (the HBA's LUN budget, the controller's queue_depth), not a shared one,
// and only SCSI LUNs count budget.
func TestSeveralHosts(t *testing.T) {
	ctrl := nvme.Controller(4, 2, 15, 0) // CAP.MQES 15: 16 entries, queue_depth 15
	cfg := stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 16, NrHwQueues: 1, CmdPerLun: 8},
		Hosts: []stack.Host{
			{CanQueue: 32, NrHwQueues: 2, CmdPerLun: 4},
			{CanQueue: ctrl.QueueDepth, NrHwQueues: ctrl.NrHwQueues, Driver: stack.DriverNVMe},
			{CanQueue: ctrl.QueueDepth, NrHwQueues: ctrl.NrHwQueues, Driver: stack.DriverNVMe},
		},
		LUNs: []stack.LUN{
			{Name: "/dev/sda", Host: 0, Device: nullDevice(sim.Millisecond), Scheduler: "none"},
			{Name: "/dev/sdb", Host: 1, Device: nullDevice(sim.Millisecond), Scheduler: "none"},
			{Name: "/dev/nvme0n1", Host: 2, Device: nullDevice(sim.Millisecond), Scheduler: "none"},
			{Name: "/dev/nvme1n1", Host: 3, Device: nullDevice(sim.Millisecond), Scheduler: "none"},
		},
		Seed: 1,
	}
	specs := parse(t, `
[global]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=64
time_based=1
runtime=200ms
[a]
filename=/dev/sda
[b]
filename=/dev/sdb
[c]
filename=/dev/nvme0n1
[d]
filename=/dev/nvme1n1
`)
	res, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatal(err)
	}
	// Little's law at 1 ms per command: IOPS ≈ 1000 × commands in flight; each job
	// runs on one CPU, so it uses one hctx: the NVMe namespace holds queue_depth 15.
	// fio's libaio submitter blocks in blk_mq_get_tag once the tags are taken, and
	// reaps only when its queue is full, so the mean stays somewhat below the limit.
	wantInFlight := []float64{8, 4, float64(ctrl.QueueDepth), float64(ctrl.QueueDepth)}
	wantBudget := []bool{true, true, false, false}
	for i, j := range res.Jobs {
		iops := j.Fio.Read().IOPS
		if got := iops / 1000; got < 0.8*wantInFlight[i] || got > 1.01*wantInFlight[i] {
			t.Errorf("LUN %s: %.0f IOPS = %.1f in flight, want ≈ %.0f", cfg.LUNs[i].Name, iops, got, wantInFlight[i])
		}
		if res.HasBudgetMap[i] != wantBudget[i] || (!wantBudget[i] && res.Queues[i].BudgetFailures != 0) {
			t.Errorf("LUN %s: budget map %v, budget failures %d; want map %v", cfg.LUNs[i].Name, res.HasBudgetMap[i], res.Queues[i].BudgetFailures, wantBudget[i])
		}
	}
}

// TestHostIndexValidate: a LUN naming a host that does not exist is an error naming
// the field and the range.
func TestHostIndexValidate(t *testing.T) {
	c := baseConfig()
	c.LUNs[0].Host = 2
	if err := c.Validate(); err == nil || err.Error() != "stack: LUNs[0].Host 2 out of range [0, 0]" {
		t.Fatalf("Validate = %v", err)
	}
}
