package dispatch_test

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
)

// done counts completed bios.
type done struct{ n int }

func (d *done) EndBio(_ *dispatch.Bio, _ sim.Time, _ error) { d.n++ }

// Example builds a tag set with host-wide tags (so mq-deadline is the default
// elevator, v5.13+ rule), puts a SCSI host on it (the driver, package scsi), adds one LUN of queue_depth 2, submits eight sequential 4 KiB
// writes with REQ_NOWAIT from CPU 0 and runs the engine. Each unplugged submission
// wakes CPU 0's kblockd worker, which preempts the submitter (check_preempt_wakeup:
// the nice -20 worker is place_entity's credit behind it) and dispatches at once: the
// first two writes go out as two commands (queue_depth 2), the third waits in
// mq-deadline for a budget and the five after it merge into it there: three
// commands.
func Example() {
	eng := sim.NewEngine()
	opts, _ := dispatch.Kernel("5.17")
	host, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 2, NrHwQueues: 2, CanQueue: 32,
		HostTagset: true, Options: opts})
	if err != nil {
		fmt.Println(err)
		return
	}
	null, _ := device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 100 * sim.Microsecond})
	sh, err := scsi.NewHost(host, scsi.CompleteOnHctxIRQ)
	if err != nil {
		fmt.Println(err)
		return
	}
	lun, err := sh.AddDevice(scsi.DeviceConfig{Device: null, QueueDepth: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := lun.Queue()
	var d done
	bios := make([]dispatch.Bio, 8)
	for i := range bios {
		bios[i] = dispatch.Bio{Op: device.OpWrite, Offset: int64(i) * 4096, Length: 4096, Sync: true, End: &d}
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Print(q.SubmitBio(&bios[i], 0, true, nil))
	}
	eng.Run()
	st := q.Stats()
	fmt.Printf("\n%s: %d bios completed in %d commands, %d merges\n", q.ElevatorName(), d.n, st.Dispatched, st.Merges)
	// Output:
	// queued queued queued merged merged merged merged merged
	// mq-deadline: 8 bios completed in 3 commands, 5 merges
}
