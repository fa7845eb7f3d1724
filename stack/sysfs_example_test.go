package stack_test

import (
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// ExampleConfig_sysfsWrites switches the elevator while fio runs, as
// `echo mq-deadline > /sys/block/sda/queue/scheduler` would, and back to none 10 ms
// later. Each switch freezes the queue: the reader's 32 requests in flight drain
// first (the store returns only then) and the reader sleeps in blk_queue_enter
// meanwhile (one wait per freeze here: the libaio reader submits one I/O at a
// time and sleeps on the first it cannot submit).
func ExampleConfig_sysfsWrites() {
	specs, err := fio.Parse(strings.NewReader(`
[reader]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=32
filesize=1G
runtime=30ms
time_based
`), "switch.fio")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 64, NrHwQueues: 4},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 100 * sim.Microsecond})
			},
			QueueDepth: 32,
		}},
		Kernel: "6.1",
		Seed:   1,
		SysfsWrites: []stack.SysfsWrite{
			{At: 10 * sim.Millisecond, Attr: stack.SysfsScheduler, Value: "mq-deadline\n"},
			{At: 20 * sim.Millisecond, Attr: stack.SysfsScheduler, Value: "none\n"},
		},
	}
	res, err := stack.Run(cfg, specs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Sysfs {
		o := s.Outcome
		fmt.Printf("%v: %s=%s returned after %v (drain %v)\n", s.Write.At, o.Attr, o.Value, o.End-o.Start, o.Drain)
	}
	f := res.Freezes[0]
	fmt.Printf("freezes %d, requests in flight at them %d, submitters that waited %d\n", f.Freezes, f.InFlightAtFreeze, f.EnterWaits)
	fmt.Printf("scheduler at the end %s\n", res.Schedulers[0])
	// Output:
	// 10ms: scheduler=mq-deadline returned after 44.882µs (drain 44.882µs)
	// 20ms: scheduler=none returned after 99.156µs (drain 99.156µs)
	// freezes 2, requests in flight at them 61, submitters that waited 2
	// scheduler at the end none
}
