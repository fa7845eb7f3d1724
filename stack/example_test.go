package stack_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// ExampleRun runs one libaio random reader against a null_blk-like device behind a
// 4-queue SCSI host for 100 ms of virtual time. The mean clat is the 50 µs device time
// plus the wake-up before fio reaps each completion (SubmitTiming.ReapMin–ReapMax,
// 5–30 µs): fio stamps a completion when it reaps it.
func ExampleRun() {
	specs, err := fio.Parse(strings.NewReader(`
[reader]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=4
filesize=1G
runtime=100ms
time_based
`), "example.fio")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 64, NrHwQueues: 4},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 50 * sim.Microsecond})
			},
			QueueDepth: 32,
		}},
		Kernel: "6.1",
		Seed:   1,
	}
	res, err := stack.Run(cfg, specs)
	if err != nil {
		fmt.Println(err)
		return
	}
	j := res.Jobs[0]
	r := j.Fio.Read()
	fmt.Printf("scheduler %s, cpu %d\n", res.Schedulers[0], j.CPU)
	fmt.Printf("%d I/Os, %.0f IOPS, mean clat %.1f µs\n", r.TotalIOs, r.IOPS, r.Clat.Mean/1e3)
	// Output:
	// scheduler none, cpu 0
	// 5920 I/Os, 59200 IOPS, mean clat 66.8 µs
}

// ExampleRun_errors tells Run's errors apart by type with errors.As: here a LUN's
// queue_depth out of range is a *ConfigError naming the field and the range.
func ExampleRun_errors() {
	specs, err := fio.Parse(strings.NewReader("[j]\nrw=randread\nsize=1m\n"), "errors.fio")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := stack.Config{
		NrCPUs: 1,
		Host:   stack.Host{CanQueue: 64, NrHwQueues: 1},
		LUNs: []stack.LUN{{
			Device: func(eng *sim.Engine) (device.Device, error) {
				return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 50 * sim.Microsecond})
			},
			QueueDepth: 20000,
		}},
	}
	_, err = stack.Run(cfg, specs)
	var ce *stack.ConfigError
	var re *stack.ResourceLimitError
	var we *stack.WatchdogError
	switch {
	case errors.As(err, &ce):
		fmt.Println("bad input:", err)
	case errors.As(err, &re):
		fmt.Printf("over a limit (%s): %v\n", re.Flag, err)
	case errors.As(err, &we):
		fmt.Printf("modelled hang of job %s: %v\n", we.Job, err)
	}
	// Output: bad input: stack: LUNs[0].QueueDepth 20000 out of range [0 (= cmd_per_lun), 64]
}
