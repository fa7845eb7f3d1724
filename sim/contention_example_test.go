package sim_test

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// Two CPUs of a 2-socket machine take one spinlock at the same time: the second spins
// until the first's critical section ends, then pays the hand-off across the sockets.
func ExampleSpinLock() {
	top := sim.Topology{Sockets: 2, CoresPerSocket: 2, ThreadsPerCore: 1,
		Costs: sim.TransferCosts{Self: 5, Node: 50, Socket: 50, Remote: 109}}
	l := sim.NewSpinLock(&top, sim.Queued)
	fmt.Println(l.Lock(0, 0, 0, 100)) // CPU 0, socket 0: owns the line
	fmt.Println(l.Lock(0, 0, 2, 100)) // CPU 2, socket 1: spins 105 ns, transfer 109, hold 100
	fmt.Printf("%+v\n", l.Stats())
	// Output:
	// 105ns
	// 314ns
	// {Ops:2 Contended:1 Transfers:1 Wait:105ns Held:314ns}
}

// Four CPUs add to one counter at once: the RMWs serialise, one line transfer each.
func ExampleAtomicLine() {
	top := sim.Flat(4, 5, 80)
	c := sim.NewAtomicLine(&top)
	for cpu := range 4 {
		fmt.Println(cpu, c.RMW(0, 0, cpu))
	}
	// Output:
	// 0 5ns
	// 1 85ns
	// 2 165ns
	// 3 245ns
}
