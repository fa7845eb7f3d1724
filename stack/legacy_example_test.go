package stack_test

import (
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// ExampleRun_legacy runs a sequential libaio reader on a v4.x SCSI host booted with
// scsi_mod.use_blk_mq=0 (Host.Legacy): the LUN's requests go through the legacy
// deadline elevator and request_fn with queue_depth 8, and the reader's 4 KiB bios
// merge into larger commands while the LUN is full: 8 commands per 100 µs, about
// three bios each.
func ExampleRun_legacy() {
	specs, err := fio.Parse(strings.NewReader(`
[reader]
ioengine=libaio
direct=1
rw=read
bs=4k
iodepth=32
runtime=100ms
time_based
`), "example.fio")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 8, Legacy: true},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewNull(eng, device.NullParams{Name: "disk", CompletionNsec: 100 * sim.Microsecond})
			},
			Scheduler: "deadline",
		}},
		Kernel: "4.15",
		Seed:   1,
	}
	res, err := stack.Run(cfg, specs)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := res.Queues[0]
	fmt.Printf("scheduler %s, %d bios in %d commands (%.1f KiB each)\n", res.Schedulers[0], q.Bios, q.Dispatched,
		float64(q.DispatchedBytes)/float64(q.Dispatched)/1024)
	// Output:
	// scheduler deadline, 24526 bios in 7948 commands (12.3 KiB each)
}
