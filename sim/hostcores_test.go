package sim_test

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestHostCores checks the shared-core rule: an idle CPU woken while the other CPUs
// hold every host core starts when the first of them ends; a busy CPU keeps its core;
// with a free core nothing waits; interrupts on an idle CPU wait the same way.
func TestHostCores(t *testing.T) {
	cpus := []*sim.CPU{sim.NewCPU(0), sim.NewCPU(1), sim.NewCPU(2), sim.NewCPU(3)}
	sim.NewHostCores(2, cpus)
	if end := cpus[0].Exec(0, 100); end != 100 {
		t.Fatalf("cpu0 end %v, want 100 (a core free)", end)
	}
	if end := cpus[1].Exec(10, 50); end != 60 {
		t.Fatalf("cpu1 end %v, want 60 (the second core free)", end)
	}
	// both cores held (cpu0 to 100, cpu1 to 60): cpu2 starts at 60
	if end := cpus[2].Exec(20, 30); end != 90 {
		t.Fatalf("cpu2 end %v, want 90 (waits for cpu1's core at 60)", end)
	}
	// cpu0 is busy: its next step follows its own work, not the pool
	if end := cpus[0].Exec(50, 10); end != 110 {
		t.Fatalf("cpu0 end %v, want 110 (keeps its core)", end)
	}
	// an interrupt on idle cpu3 at 70: cpu0 (110) and cpu2 (90) hold the cores
	if end := cpus[3].Interrupt(70, 5); end != 95 {
		t.Fatalf("cpu3 interrupt end %v, want 95 (waits for cpu2's core at 90)", end)
	}
	// no pool: the same steps never wait
	free := []*sim.CPU{sim.NewCPU(0), sim.NewCPU(1), sim.NewCPU(2)}
	free[0].Exec(0, 100)
	free[1].Exec(10, 50)
	if end := free[2].Exec(20, 30); end != 50 {
		t.Fatalf("no pool: cpu2 end %v, want 50", end)
	}
}
