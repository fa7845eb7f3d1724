package oracle

import "testing"

// TestDefaultIRQPreempt: CompareReference runs a case with dispatch.Timing.IRQPreempt
// unless ModelOptions.IRQPreemptOff is set (DefaultIRQPreempt): the default equals an
// explicit IRQPreempt, IRQPreemptOff gives the first-come-first-served CPUs back.
// 000-small-none's libaio WAL is the row the rule moves (round 12: 473 -> 668 IOPS
// at seed 1, kernel 723).
func TestDefaultIRQPreempt(t *testing.T) {
	if !DefaultIRQPreempt {
		t.Skip("DefaultIRQPreempt is off")
	}
	ix := sharedReferenceIndex(t)
	c := ix.Find("000-small-none")
	if c == nil {
		t.Fatal("000-small-none missing from the reference set")
	}
	wal := func(o ModelOptions) float64 {
		t.Helper()
		o.Seed = 1
		cmp, _, err := ix.CompareReference(c, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range cmp.Rows {
			if r.Key == "wal write iops" {
				return r.Model
			}
		}
		t.Fatalf("no wal write iops row in %+v", cmp.Rows)
		return 0
	}
	def, on, off := wal(ModelOptions{}), wal(ModelOptions{IRQPreempt: true}), wal(ModelOptions{IRQPreemptOff: true})
	t.Logf("000-small-none WAL IOPS: default %.1f, IRQPreempt %.1f, IRQPreemptOff %.1f", def, on, off)
	if def != on {
		t.Errorf("default %.1f IOPS, explicit IRQPreempt %.1f: want equal (DefaultIRQPreempt)", def, on)
	}
	if off == def || off > 0.8*def {
		t.Errorf("IRQPreemptOff %.1f IOPS against the default's %.1f: want the old CPUs' starved WAL (473 against 668 in round 12)", off, def)
	}
}
