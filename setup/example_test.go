package setup_test

import (
	"fmt"

	"github.com/blkmq/blkmq/setup"
)

// A scsi_debug host described with its module parameters and two sysfs settings.
func ExampleDescription_Resolve() {
	d := setup.Description{
		Kernel:  "6.1",
		CPUs:    16,
		Devices: []string{"scsi_debug delay=0 max_queue=192 submit_queues=16"},
		Set:     []string{"queue/nr_requests=56", "device/queue_depth=15"},
	}
	r, err := d.Resolve()
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Config
	fmt.Println("cpus", c.NrCPUs, "can_queue", c.Host.CanQueue, "nr_hw_queues", c.Host.NrHwQueues)
	fmt.Println("luns", r.LUNs, "queue_depth", c.LUNs[0].QueueDepth, "nr_requests", c.LUNs[0].NrRequests)
	fmt.Println("restart rule", r.Options().SCSIRestart == 0, "kernel", c.Kernel)
	// Output:
	// cpus 16 can_queue 192 nr_hw_queues 16
	// luns [/dev/sda] queue_depth 15 nr_requests 56
	// restart rule true kernel 6.1
}

// A typo in a module parameter is an error listing the parameters the kind accepts.
func ExampleDescription_Resolve_error() {
	_, err := setup.Description{Devices: []string{"null_blk hw_queue_dept=64"}}.Resolve()
	fmt.Println(err)
	// Output:
	// setup: flags: --device "null_blk hw_queue_dept=64": unknown null_blk parameter "hw_queue_dept"; allowed: completion_nsec, irqmode, hw_queue_depth, submit_queues, poll_queues, nr_devices, shared_tags, shared_tag_bitmap, no_sched, mbps, queue_mode, max_sectors, gb, blocking, zoned
}

// Every era switch a release selects, as --explain shows them.
func ExampleEraSwitches() {
	sw, _ := setup.EraSwitches("5.10")
	for _, s := range sw[:4] {
		fmt.Println(s.Key, "=", s.Value)
	}
	// Output:
	// era/scsi_restart = counter
	// era/sw_queue_dequeue = by-dispatch-busy
	// era/default_elevator = single-queue
	// era/dev_resource = if-blocked
}
