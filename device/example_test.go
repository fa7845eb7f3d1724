package device_test

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

func ExampleThrottled() {
	eng := sim.NewEngine()
	p := device.AzureP30Params()
	p.IOPSBurst = 1 // no burst credit, to show the pacing
	disk, err := device.NewThrottled(eng, p)
	if err != nil {
		panic(err)
	}
	done := device.CompleterFunc(func(cmd *device.Command, now sim.Time) {
		fmt.Printf("cmd %d done at %v (latency %v)\n", cmd.ID, now, now-cmd.Submitted)
	})
	cmds := make([]device.Command, 3)
	for i := range cmds {
		cmds[i] = device.Command{Op: device.OpRead, Offset: int64(i) << 14, Length: 16 << 10, Done: done, ID: uint64(i)}
		fmt.Println(disk.Submit(&cmds[i]))
	}
	eng.Run()
	// Output:
	// accepted
	// accepted
	// accepted
	// cmd 0 done at 2ms (latency 2ms)
	// cmd 1 done at 2.2ms (latency 2.2ms)
	// cmd 2 done at 2.4ms (latency 2.4ms)
}

func ExampleNull() {
	eng := sim.NewEngine()
	p := device.ScsiDebugParams() // delay=1 jiffy at HZ=250: 4 ms; max_queue 192
	p.MaxQueue = 1
	dev, _ := device.NewNull(eng, p)
	done := device.CompleterFunc(func(cmd *device.Command, now sim.Time) { fmt.Println("done at", now) })
	a := device.Command{Op: device.OpWrite, Length: 4096, Done: done}
	b := a
	fmt.Println(dev.Submit(&a), dev.Submit(&b))
	eng.Run()
	// Output:
	// accepted host-busy
	// done at 4ms
}

func ExampleHost() {
	eng := sim.NewEngine()
	// An adapter that takes 2 commands across its LUNs (can_queue = 2).
	hba, _ := device.NewHost(eng, device.HostParams{Name: "pqi", CanQueue: 2, CommandCost: sim.Microsecond})
	lun0, _ := device.NewNull(eng, device.NullParams{Name: "sda", CompletionNsec: 100 * sim.Microsecond})
	lun1, _ := device.NewNull(eng, device.NullParams{Name: "sdb", CompletionNsec: 100 * sim.Microsecond})
	a, b := hba.Attach(lun0), hba.Attach(lun1)
	done := device.CompleterFunc(func(cmd *device.Command, now sim.Time) { fmt.Println("cmd", cmd.ID, "done at", now) })
	cmds := []device.Command{{ID: 0}, {ID: 1}, {ID: 2}}
	for i := range cmds {
		cmds[i].Length, cmds[i].Done = 4096, done
	}
	fmt.Println(a.Submit(&cmds[0]), b.Submit(&cmds[1]), a.Submit(&cmds[2]))
	eng.Run()
	fmt.Println("peak offered", hba.PeakOffered(), "held", hba.PeakHeld())
	// Output:
	// accepted accepted host-busy
	// cmd 0 done at 101µs
	// cmd 1 done at 102µs
	// peak offered 3 held 2
}
