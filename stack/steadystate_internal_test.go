package stack

import (
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// TestSteadyStateRingOrder: the samples of the JSON "steadystate" object come out
// in fio's order (stat.c: from head when attained or not yet full, else from
// head − 1), oldest first, and the means are integer means over ss_dur.
func TestSteadyStateRingOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		iops     []uint64
		limit    float64
		attained bool
		want     []uint64
		mean     uint64
	}{
		{"not full", []uint64{100, 200}, 1, false, []uint64{100, 200, 0}, 100},
		{"full, not attained", []uint64{100, 200, 300, 400, 500}, 1, false, []uint64{300, 400, 500}, 400},
		{"attained after wrapping", []uint64{100, 900, 500, 500, 500}, 1, true, []uint64{500, 500, 500}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fio.DefaultSpec("j")
			s.SteadyState = fio.SteadyState{Set: true, Limit: tc.limit, Dur: 3 * time.Second}
			var ss steadyState
			ss.init(&s, 0)
			got := false
			for _, v := range tc.iops {
				if ss.add(v, 4096*v) {
					got = true
					break
				}
			}
			r := ss.result()
			if got != tc.attained || r.Attained != tc.attained {
				t.Errorf("attained %v (result %v), want %v", got, r.Attained, tc.attained)
			}
			if diff := cmp.Diff(tc.want, r.IOPS); diff != "" {
				t.Errorf("iops samples (-want +got):\n%s", diff)
			}
			if r.IOPSMean != tc.mean || r.BWMean != 4096*tc.mean {
				t.Errorf("means %d, %d, want %d, %d", r.IOPSMean, r.BWMean, tc.mean, 4096*tc.mean)
			}
		})
	}
}

// TestSteadyStateSlope: a slope criterion computes the least-squares slope of the
// samples from the oldest (fio's steadystate_slope), in percent of the mean with
// N%; deviation stays 0, as fio leaves it.
func TestSteadyStateSlope(t *testing.T) {
	s := fio.DefaultSpec("j")
	s.SteadyState = fio.SteadyState{Set: true, Slope: true, Percent: true, Limit: 0.1, Dur: 4 * time.Second}
	var ss steadyState
	ss.init(&s, 0)
	for _, v := range []uint64{1, 100, 110, 120, 130} {
		ss.add(v, v)
	}
	r := ss.result()
	if r.Slope != 10 || r.MaxDeviation != 0 {
		t.Errorf("slope %g, deviation %g, want 10 and 0", r.Slope, r.MaxDeviation)
	}
	if want := 100 * 10 / 115.0; r.Criterion != want {
		t.Errorf("criterion %g, want %g (slope in %% of the mean)", r.Criterion, want)
	}
	if diff := cmp.Diff([]uint64{100, 110, 120, 130}, r.IOPS); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
}
