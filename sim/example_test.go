package sim_test

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// tick is a reusable event: scheduling it allocates nothing.
type tick struct {
	eng *sim.Engine
	n   int
}

func (t *tick) Fire(now sim.Time) {
	fmt.Println("tick", t.n, "at", now)
	t.n++
	if t.n < 3 {
		t.eng.After(1500*sim.Microsecond, t)
	}
}

func ExampleEngine() {
	eng := sim.NewEngine()
	eng.After(sim.Millisecond, &tick{eng: eng})
	id := eng.After(2*sim.Millisecond, sim.HandlerFunc(func(now sim.Time) { fmt.Println("never") }))
	eng.Cancel(id)
	eng.Run()
	fmt.Println("done at", eng.Now())
	// Output:
	// tick 0 at 1ms
	// tick 1 at 2.5ms
	// tick 2 at 4ms
	// done at 4ms
}

func ExampleCPU() {
	cpu := sim.NewCPU(0)
	line := sim.NewSharedLine(5, 80)
	// Two steps ready at t=0 run back to back; the second touches a line last touched
	// by CPU 1, so it pays the transfer.
	line.Touch(1)
	fmt.Println(cpu.Exec(0, 100))
	fmt.Println(cpu.Exec(0, 100+line.Touch(0)))
	// Output:
	// 100ns
	// 280ns
}
