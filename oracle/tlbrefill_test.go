package oracle

import (
	"testing"
)

// TestTLBRefill: the emulated TLB's refill after a process switch
// (stack.EmulationOptions.TLBWorkingSet, in DefaultWake since round 9) slows two
// reader processes sharing a CPU (hold-2r-nb-none-pin: CR3 writes between their runs,
// each followed by many commands) and leaves unchanged the cells without a CR3 write
// (one reader; two threads of one process) and the IOPS of the twelve qd1 reader
// processes, whose switches are each followed by one command (that command's refill
// is the constant MMSwitch charged at the switch, as before; the readers that run
// after another one without a modelled switch draw on the refill left, so their CPU
// per command rises, 148 -> 201 us against the guest's 222, but the cell is
// latency-bound).
func TestTLBRefill(t *testing.T) {
	ix := sharedReferenceIndex(t)
	f, err := ix.Slowdown()
	if err != nil {
		t.Fatal(err)
	}
	off := DefaultWake
	off.TLBWorkingSet = 0
	iops := func(name string) (with, without float64) {
		c := ix.Find(name)
		if c == nil {
			t.Skipf("no case %s", name)
		}
		for i, w := range [2]struct{ o *float64 }{{&with}, {&without}} {
			wake := DefaultWake
			if i == 1 {
				wake = off
			}
			oh, err := ix.OverheadWith(c, f, wake)
			if err != nil {
				t.Fatal(err)
			}
			if oh == 0 {
				oh = -1
			}
			m, err := RunModel(c, ix.JobPath(c), ModelOptions{Seed: 1, EmulationSlowdown: f, Wake: wake, EmulationOverhead: oh})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range m.Figures().Jobs {
				*w.o += j.IOPS
			}
		}
		return with, without
	}
	w, wo := iops("hold-2r-nb-none-pin")
	t.Logf("hold-2r-nb-none-pin: %.0f IOPS with the refill, %.0f without", w, wo)
	if !(w < 0.9*wo) {
		t.Errorf("hold-2r-nb-none-pin: %.0f IOPS with the refill, %.0f without: want at least 10 %% fewer", w, wo)
	}
	for _, name := range []string{"hold-1r-nb-none-pin", "hold-2r-nb-none-pin-thread", "hold-wake-nb-12x1-pin-thread", "hold-wake-nb-12x1-pin"} {
		if w, wo := iops(name); w != wo {
			t.Errorf("%s: %.1f IOPS with the refill, %.1f without: want the same", name, w, wo)
		}
	}
}
