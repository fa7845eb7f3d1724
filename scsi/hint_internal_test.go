package scsi

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

type endNothing struct{}

func (endNothing) EndBio(*dispatch.Bio, sim.Time, error) {}

// TestBudgetHintOfCompletingCPU: a command submitted on CPU 3 of a 1-hctx HBA completes
// on the hctx's interrupt CPU 0 (one LLC, so rq_affinity keeps it there). The budget
// token is freed by scsi_device_unbusy → sbitmap_put, which writes the freed token into
// the running CPU's alloc_hint: CPU 0's hint becomes the token, CPU 3's keeps the value
// its own get left (the token + 1). Before the fix the put went to CPU 3's hint.
func TestBudgetHintOfCompletingCPU(t *testing.T) {
	eng := sim.NewEngine()
	h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 4, NrHwQueues: 1, CanQueue: 64})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := NewHost(h, CompleteOnHctxIRQ)
	if err != nil {
		t.Fatal(err)
	}
	null, _ := device.NewNull(eng, device.NullParams{Name: "hba", CompletionNsec: sim.Millisecond})
	lun, err := sh.AddDevice(DeviceConfig{Device: null, QueueDepth: 32, Queue: dispatch.LUNConfig{Elevator: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	if !lun.HasBudgetMap() {
		t.Fatal("no budget map; the test needs the v5.13+ map")
	}
	const sub, irq = 3, 0
	// hints set so that CPU 3's get takes token 0 (the hinted bit: its hint moves
	// to 1) and CPU 0's hint starts elsewhere
	const token = 0
	lun.hints[sub], lun.hints[irq] = token, 20
	b := dispatch.Bio{Op: device.OpRead, Length: 4096, Sync: true, End: endNothing{}}
	lun.Queue().SubmitBio(&b, sub, true, nil)
	eng.Run()
	if lun.DeviceBusy() != 0 {
		t.Fatalf("budget busy %d after the run, want 0", lun.DeviceBusy())
	}
	if got := int(lun.hints[irq]); got != token {
		t.Errorf("completing CPU %d hint = %d, want the freed token %d", irq, got, token)
	}
	if got := int(lun.hints[sub]); got != token+1 {
		t.Errorf("submitting CPU %d hint = %d, want %d (its get's advance; the put is not its)", sub, got, token+1)
	}
}
