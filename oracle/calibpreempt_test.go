package oracle

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestCalibrationIndependentOfIRQPreempt: Index.OverheadWith and CycleOverheadWith run
// their queue-depth-1 calibration cells without dispatch.Timing.IRQPreempt (their
// cache key has no room for it), while CompareReference runs every case with it
// (DefaultIRQPreempt). That is sound only while a calibration cell's model figures do
// not depend on the rule: one job at queue depth 1 has no task work for a completion
// to interrupt and no other thread to preempt. Checked on the reference set and
// every host set's calibration cells at the set's own slowdown.
func TestCalibrationIndependentOfIRQPreempt(t *testing.T) {
	paths, err := filepath.Glob("../testdata/kernel/hosts/*/configs.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]string{referenceIndexPath()}, paths...) {
		ix, err := LoadIndex(p)
		if err != nil {
			t.Fatal(err)
		}
		sd, err := ix.Slowdown()
		if err != nil {
			t.Fatal(err)
		}
		for drv, name := range ix.Calibration {
			c := ix.Find(name)
			if c == nil {
				t.Fatalf("%s: calibration case %s of %s missing", p, name, drv)
			}
			oh, err := ix.OverheadWith(c, sd, DefaultWake)
			if err != nil {
				t.Fatal(err)
			}
			var figs [2]any
			for i, pre := range []bool{false, true} {
				_, mf, err := ix.calibrationFigures(c, ModelOptions{Seed: 1, EmulationSlowdown: sd, Wake: DefaultWake,
					EmulationOverhead: oh, IRQPreempt: pre})
				if err != nil {
					t.Fatal(err)
				}
				figs[i] = mf.Jobs
			}
			if !reflect.DeepEqual(figs[0], figs[1]) {
				t.Errorf("%s: %s (%s) differs with IRQPreempt: %+v against %+v; the overhead calibration must then run with the comparison's rule",
					p, name, drv, figs[1], figs[0])
			}
		}
	}
}
