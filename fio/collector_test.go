package fio_test

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const sec = int64(time.Second)

func spec(name string, mod func(*fio.Spec)) *fio.Spec {
	s := fio.DefaultSpec(name)
	if mod != nil {
		mod(&s)
	}
	return &s
}

// approx compares floats to 1e-9 relative.
var approx = cmpopts.EquateApprox(1e-9, 1e-9)

// ignoreHidden skips LatStats' unexported accumulators.
var ignoreHidden = cmpopts.IgnoreUnexported(fio.LatStats{}, fio.Result{}, fio.SampleStats{})

func pcts(vals ...int64) []fio.Percentile {
	out := make([]fio.Percentile, len(vals))
	for i, v := range vals {
		out[i] = fio.Percentile{Percent: fio.DefaultPercentiles[i], Value: v}
	}
	return out
}

// Ten reads of 4 KiB with clat 100, 200, ..., 1000 ns and slat 10 ns over a
// one-second window: every figure below is worked out by hand.
func TestCollectorHandComputed(t *testing.T) {
	c := fio.NewCollector(spec("j", nil))
	c.SetWindow(sec, 2*sec)
	for i := int64(1); i <= 10; i++ {
		c.Record(fio.DirRead, 10, 100*i, 4096, sec+i, sec+i*1000)
	}
	r := c.Finish(sec, 2*sec)
	// Deviations from the mean 550: ±50, ±150, ±250, ±350, ±450; squares sum
	// to 825000; sample variance 825000/9.
	sd := math.Sqrt(825000.0 / 9)
	want := fio.DirStats{
		TotalIOs: 10, IOBytes: 40960, Runtime: time.Second, IOPS: 10, BW: 40960,
		Slat: fio.LatStats{N: 10, Min: 10, Max: 10, Mean: 10, Stddev: 0},
		Clat: fio.LatStats{N: 10, Min: 100, Max: 1000, Mean: 550, Stddev: sd,
			// rank ceil(p*10/100): 1,5,10% -> 1st; 20% -> 2nd; ...; 95% and up -> 10th,
			// each reported as its fio bin's midpoint (plat_idx_to_val, 6 bits):
			// 100 is exact (< 128); 200 is in [200, 202) -> 201; 300 in
			// [300, 304) -> 302; 600 in [600, 608) -> 604; 1000 in [1000, 1008) -> 1004.
			Percentiles: pcts(100, 100, 100, 201, 302, 402, 502, 604, 700, 804, 900, 1004, 1004, 1004, 1004, 1004, 1004)},
		Lat: fio.LatStats{N: 10, Min: 110, Max: 1010, Mean: 560, Stddev: sd},
		// All ten complete in the first 500 ms interval: 40960 B * 1000 /
		// 500 ms / 1024 = 80 KiB/s and 10 * 1000 / 500 = 20 IOPS; the
		// second interval is empty and gives no sample.
		BWSamples:   fio.SampleStats{N: 1, Min: 80, Max: 80, Mean: 80},
		IOPSSamples: fio.SampleStats{N: 1, Min: 20, Max: 20, Mean: 20},
	}
	if diff := cmp.Diff(want, *r.Read(), approx, ignoreHidden); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fio.DirStats{}, *r.Write(), ignoreHidden); diff != "" {
		t.Errorf("write should be empty (-want +got):\n%s", diff)
	}
	if got := r.Read().BWKiB(); got != 40 {
		t.Errorf("BWKiB = %d; want 40", got)
	}
	if got := r.Read().Clat.Percentile(50); got != 502 {
		t.Errorf("Percentile(50) = %d; want 502", got)
	}
	if got := r.Read().Clat.Percentile(25); got != 302 { // rank ceil(2.5) = 3
		t.Errorf("Percentile(25) = %d; want 302", got)
	}
	bins := r.Read().Clat.Bins()
	if len(bins) != 10 || bins[0] != (fio.Bin{Value: 100, Count: 1}) || bins[9] != (fio.Bin{Value: 1004, Count: 1}) {
		t.Errorf("Bins = %v", bins)
	}
}

// Samples completing during ramp (before the window) or in the drain (at or
// after its end) are not counted.
func TestCollectorWindow(t *testing.T) {
	tests := []struct {
		name     string
		complete int64
		counted  bool
	}{
		{"R-ramp/before-start", sec - 1, false},
		{"R-ramp/at-start", sec, true},
		{"R-window/inside", sec + sec/2, true},
		{"R-drain/just-before-end", 3*sec - 1, true},
		{"R-drain/at-end", 3 * sec, false},
		{"R-drain/after-end", 4 * sec, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := fio.NewCollector(spec("j", nil))
			c.SetWindow(sec, 3*sec)
			c.Record(fio.DirWrite, 0, 1000, 8192, tc.complete-1000, tc.complete)
			r := c.Finish(sec, 3*sec)
			want := int64(0)
			if tc.counted {
				want = 1
			}
			if got := r.Write().TotalIOs; got != want {
				t.Errorf("TotalIOs = %d; want %d", got, want)
			}
			if tc.counted && r.Write().IOPS != 0.5 {
				t.Errorf("IOPS = %v; want 0.5 (1 I/O in 2 s)", r.Write().IOPS)
			}
		})
	}
}

func TestCollectorPercentileSwitches(t *testing.T) {
	c := fio.NewCollector(spec("j", func(s *fio.Spec) {
		s.ClatPercentiles, s.SlatPercentiles, s.LatPercentiles = false, true, true
		s.PercentileList = []float64{50, 100}
	}))
	c.Record(fio.DirRead, 5, 7, 512, 0, 12)
	c.Record(fio.DirRead, 15, 7, 512, 1, 23)
	r := c.Finish(0, sec)
	d := r.Read()
	if d.Clat.Percentiles != nil || d.Clat.Bins() != nil {
		t.Errorf("clat percentiles present although clat_percentiles=0: %v", d.Clat.Percentiles)
	}
	if diff := cmp.Diff([]fio.Percentile{{50, 5}, {100, 15}}, d.Slat.Percentiles); diff != "" {
		t.Errorf("slat (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]fio.Percentile{{50, 12}, {100, 22}}, d.Lat.Percentiles); diff != "" {
		t.Errorf("lat (-want +got):\n%s", diff)
	}
}

// Percentiles of large values stay within the histogram's precision of the
// exact order statistics (fio's rank rule: ceil(p*N/100)): half a bin,
// 2^-(bits+1) of the value, at fio's 6 bits and at 10.
func TestCollectorPercentilePrecision(t *testing.T) {
	for _, bits := range []int{fio.DefaultHistogramBits, 10} {
		rng := rand.New(rand.NewPCG(1, 2))
		c, err := fio.NewCollectorBits(spec("j", nil), bits)
		if err != nil {
			t.Fatal(err)
		}
		var vals []int64
		for range 20000 {
			v := int64(rng.ExpFloat64() * 5e6) // mean 5 ms
			vals = append(vals, v)
			c.Record(fio.DirRead, 0, v, 4096, 0, 1)
		}
		r := c.Finish(0, sec)
		slices.Sort(vals)
		tol := math.Ldexp(1, -(bits + 1))
		for _, p := range r.Read().Clat.Percentiles {
			rank := longDoubleRank(p.Percent, len(vals))
			exact := vals[rank-1]
			if diff := math.Abs(float64(p.Value-exact)) / float64(exact); diff > tol {
				t.Errorf("bits %d: p%v = %d; exact %d (rel. error %.4f > %.4f)", bits, p.Percent, p.Value, exact, diff, tol)
			}
		}
		if r.Read().Clat.Max != vals[len(vals)-1] || r.Read().Clat.Min != vals[0] {
			t.Errorf("min/max %d/%d; want exact %d/%d", r.Read().Clat.Min, r.Read().Clat.Max, vals[0], vals[len(vals)-1])
		}
	}
	if _, err := fio.NewCollectorBits(spec("j", nil), 0); err == nil {
		t.Error("histogram bits 0 accepted")
	}
}

// longDoubleRank is ceil(p / 100.0 * n) evaluated as fio does, in x87 long
// double (64-bit mantissa): for p = 99.95, n = 20000 it is 19991, where
// float64 arithmetic gives 19990.
func longDoubleRank(p float64, n int) int {
	t := new(big.Float).SetPrec(64).SetFloat64(p)
	t.Quo(t, new(big.Float).SetPrec(64).SetInt64(100))
	t.Mul(t, new(big.Float).SetPrec(64).SetInt64(int64(n)))
	r, _ := t.Int64()
	if !t.IsInt() {
		r++
	}
	return int(r)
}

// The committed fio 3.33 sample's percentiles are fio bin values: each is the
// value this package reports for a sample equal to it (the bin's midpoint
// maps to itself), so a model run reports numbers of the same shape.
func TestPercentilesAreFioBinValues(t *testing.T) {
	raw, err := os.ReadFile("../testdata/fiojson/fio-3.33-randread-libaio.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample fio.Output
	if err := json.Unmarshal(raw, &sample); err != nil {
		t.Fatal(err)
	}
	for k, v := range sample.Jobs[0].Read.Clat.Percentile {
		c := fio.NewCollector(spec("j", nil))
		c.Record(fio.DirRead, 0, v, 4096, 0, 1)
		if got := c.Finish(0, sec).Read().Clat.Percentile(50); got != v {
			t.Errorf("fio's p%s = %d is not a bin value (its bin reports %d)", k, v, got)
		}
	}
}

// A job's histograms stay within 32 KiB with fio's defaults (clat
// percentiles, both directions), however wide its latencies.
func TestCollectorHistogramBounded(t *testing.T) {
	c := fio.NewCollector(spec("j", nil))
	for v := int64(1); v < 1<<40; v = v*1001/1000 + 1 {
		c.Record(fio.DirRead, 0, v, 4096, 0, 1)
		c.Record(fio.DirWrite, 0, v, 4096, 0, 1)
	}
	r := c.Finish(0, sec)
	if n := r.Read().Clat.HistogramBytes() + r.Write().Clat.HistogramBytes(); n > 32<<10 {
		t.Errorf("histograms hold %d bytes > 32 KiB", n)
	}
}

// Merging two jobs pools their samples exactly as recording all samples in
// one collector would, and takes the longest runtime (fio sum_thread_stats).
func TestMerge(t *testing.T) {
	a, b, all := fio.NewCollector(spec("g", nil)), fio.NewCollector(spec("g", nil)), fio.NewCollector(spec("g", nil))
	for i := int64(1); i <= 50; i++ {
		a.Record(fio.DirRead, i, 1000+i*i, 4096, 0, 1)
		all.Record(fio.DirRead, i, 1000+i*i, 4096, 0, 1)
	}
	for i := int64(1); i <= 30; i++ {
		b.Record(fio.DirRead, 2*i, 5000-i, 4096, 0, 1)
		all.Record(fio.DirRead, 2*i, 5000-i, 4096, 0, 1)
	}
	ra, rb := a.Finish(0, 2*sec), b.Finish(0, sec)
	m := fio.Merge(ra, rb)
	want := all.Finish(0, 2*sec)
	want.Jobs = 2
	ignoreSamples := cmpopts.IgnoreFields(fio.DirStats{}, "BWSamples", "IOPSSamples")
	if diff := cmp.Diff(want, m, approx, ignoreHidden, ignoreSamples); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	// Interval samples add up (fio sum_stat with pure_sum): a's one sample
	// of 50*4096 B per 500 ms = 400 KiB/s plus b's 240 KiB/s; counts add too.
	wantBW := fio.SampleStats{N: 2, Min: 640, Max: 640, Mean: 640}
	if diff := cmp.Diff(wantBW, m.Read().BWSamples, ignoreHidden); diff != "" {
		t.Errorf("merged bw samples (-want +got):\n%s", diff)
	}
	if m.Read().IOPS != 40 { // 80 I/Os over the longest runtime, 2 s
		t.Errorf("IOPS = %v; want 40", m.Read().IOPS)
	}
	if ra.Read().TotalIOs != 50 || ra.Jobs != 1 {
		t.Errorf("Merge modified its input: %+v", ra.Read())
	}
}

func TestCollectorMisusePanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(c *fio.Collector)
		want string
	}{
		{"negative-clat", func(c *fio.Collector) { c.Record(fio.DirRead, 0, -1, 0, 0, 0) },
			"fio: Collector.Record: negative slat 0, clat -1 or bytes 0"},
		{"bad-dir", func(c *fio.Collector) { c.Record(fio.NrDirs, 0, 0, 0, 0, 0) },
			"fio: Collector.Record: unknown direction 3"},
		{"complete-before-submit", func(c *fio.Collector) { c.Record(fio.DirRead, 0, 0, 0, 5, 4) },
			"fio: Collector.Record: completion 4 before submission 5"},
		{"record-after-finish", func(c *fio.Collector) { c.Finish(0, 1); c.Record(fio.DirRead, 0, 0, 0, 0, 0) },
			"fio: Collector.Record after Finish"},
		{"finish-twice", func(c *fio.Collector) { c.Finish(0, 1); c.Finish(0, 1) }, "fio: Collector.Finish called twice"},
		{"finish-reversed", func(c *fio.Collector) { c.Finish(2, 1) }, "fio: Collector.Finish: end 1 before start 2"},
		{"window-reversed", func(c *fio.Collector) { c.SetWindow(2, 1) }, "fio: Collector.SetWindow: end 1 before start 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("panic %v; want %q", got, tc.want)
				}
			}()
			tc.f(fio.NewCollector(spec("j", nil)))
		})
	}
}

// A long run keeps the collector's memory flat: recording many more samples
// allocates nothing after the histograms exist.
func TestCollectorMemoryFlat(t *testing.T) {
	c := fio.NewCollector(spec("j", nil))
	c.Record(fio.DirRead, 1, 1, 1, 0, 1)
	i := int64(0)
	allocs := testing.AllocsPerRun(10000, func() {
		i++
		c.Record(fio.DirRead, i%1000, i, 4096, 0, 1)
	})
	if allocs != 0 {
		t.Errorf("Record allocates %v times per call; want 0", allocs)
	}
}

// Interval samples: one per 500 ms interval with I/O, empty intervals
// skipped, an interval that does not end inside the window dropped (fio
// stat.c, __add_samples).
func TestCollectorIntervalSamples(t *testing.T) {
	const ms = int64(time.Millisecond)
	tests := []struct {
		name       string
		end        int64
		bw, iops   fio.SampleStats
		stddevSq52 bool
	}{
		// 10 x 1000 B in [0, 500ms): 10000*1000/500/1024 = 19 KiB/s, 20 IOPS;
		// [500, 1000ms) empty; 5 in [1000, 1500ms): 9 KiB/s, 10 IOPS;
		// 3 in [1500, 2000ms): 5 KiB/s, 6 IOPS.
		{"R-samples/all-intervals-complete", 2000 * ms,
			fio.SampleStats{N: 3, Min: 5, Max: 19, Mean: 11}, fio.SampleStats{N: 3, Min: 6, Max: 20, Mean: 12}, true},
		{"R-samples/partial-last-interval-dropped", 1900 * ms,
			fio.SampleStats{N: 2, Min: 9, Max: 19, Mean: 14}, fio.SampleStats{N: 2, Min: 10, Max: 20, Mean: 15}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := fio.NewCollector(spec("j", nil))
			for _, at := range []struct{ t, n int64 }{{100 * ms, 10}, {1200 * ms, 5}, {1900 * ms, 3}} {
				for range at.n {
					c.Record(fio.DirRead, 0, 1, 1000, at.t-1, at.t)
				}
			}
			r := c.Finish(0, tc.end)
			ignoreSD := cmpopts.IgnoreFields(fio.SampleStats{}, "Stddev")
			if diff := cmp.Diff(tc.bw, r.Read().BWSamples, ignoreHidden, ignoreSD); diff != "" {
				t.Errorf("bw (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.iops, r.Read().IOPSSamples, ignoreHidden, ignoreSD); diff != "" {
				t.Errorf("iops (-want +got):\n%s", diff)
			}
			if tc.stddevSq52 {
				// Deviations 8, -2, -6 from the mean for both: sqrt(104/2).
				for _, sd := range []float64{r.Read().BWSamples.Stddev, r.Read().IOPSSamples.Stddev} {
					if math.Abs(sd-math.Sqrt(52)) > 1e-9 {
						t.Errorf("stddev %v; want sqrt(52)", sd)
					}
				}
			}
		})
	}
}

// fio's coarse latency buckets (io_u.c, io_u_mark_lat_*): each value lands
// in the bucket labelled by the next bound above it, in ns below 1 us, us
// below 1 ms, ms above.
func TestLatencyDist(t *testing.T) {
	c := fio.NewCollector(spec("j", nil))
	for _, v := range []int64{0, 1, 2, 3, 999, 1000, 999_999, 1_000_000, 1_999_999_999, 2_000_000_000, 5_000_000_000} {
		c.Record(fio.DirRead, 0, v, 512, 0, v)
	}
	r := c.Finish(0, 10*sec)
	want := fio.LatencyDist{
		Ns: [10]int64{2, 2, 0, 0, 0, 0, 0, 0, 0, 1},
		Us: [10]int64{1, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		Ms: [12]int64{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2},
	}
	if diff := cmp.Diff(want, r.Latency); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	out := fio.NewReport([]*fio.Result{r}).Output(fio.OutputOptions{})
	if got := out.Jobs[0].LatencyMs[">=2000"]; math.Abs(got-200.0/11) > 1e-9 {
		t.Errorf("latency_ms >=2000 = %v; want 2/11 = 18.18%%", got)
	}
	if got := out.Jobs[0].LatencyNs["4"]; math.Abs(got-200.0/11) > 1e-9 {
		t.Errorf("latency_ns 4 = %v; want 18.18%%", got)
	}
}

// TestCollectorPerIOSamples: with write_bw_log / write_iops_log and
// log_avg_msec=0, fio's JSON bw_* and iops_* sample statistics are per I/O
// (account_io_completion calls add_bw_sample / add_iops_sample for each
// completion and calc_log_samples takes no periodic ones): bandwidth bytes ×
// 10^6 / clat ns truncated, IOPS 1. A windowed log (log_avg_msec=1000) or no log
// keeps the periodic samples (bwavgtime / iopsavgtime, 500 ms by default).
func TestCollectorPerIOSamples(t *testing.T) {
	record := func(c *fio.Collector) *fio.DirStats {
		c.Record(fio.DirRead, 1000, 100_000, 4096, 0, 101_000)         // 4096e6/1e5 = 40960
		c.Record(fio.DirRead, 1000, 300_000, 8192, 1000, 302_000)      // 27306.67 → 27306
		c.Record(fio.DirRead, 1000, 50_000, 4096, 2*sec, 2*sec+51_000) // 81920
		return c.Finish(0, 3*sec).Read()
	}
	tests := []struct {
		name         string
		logs         fio.LogOptions
		wantBW       fio.SampleStats // N, Min, Max
		wantIOPS     fio.SampleStats
		wantBWMean   float64
		wantIOPSMean float64
	}{
		{"per-io-bw-and-iops", fio.LogOptions{BW: true, IOPS: true}, fio.SampleStats{N: 3, Min: 27306, Max: 81920},
			fio.SampleStats{N: 3, Min: 1, Max: 1}, (40960 + 27306 + 81920) / 3.0, 1},
		// iops keeps fio's intervals (iopsavgtime 500 ms): 2 I/Os in the first, 1 in
		// the fifth: 4 and 2 per s
		{"per-io-bw-only", fio.LogOptions{BW: true}, fio.SampleStats{N: 3, Min: 27306, Max: 81920},
			fio.SampleStats{N: 2, Min: 2, Max: 4}, (40960 + 27306 + 81920) / 3.0, 3},
		// bandwidth over bwavgtime's 500 ms intervals: 12288 B → 24 KiB/s, 4096 B →
		// 8 KiB/s (the Spec is built directly, so bwavgtime stays at its default)
		{"windowed-log", fio.LogOptions{BW: true, IOPS: true, AvgMsec: 1000}, fio.SampleStats{N: 2, Min: 8, Max: 24},
			fio.SampleStats{N: 2, Min: 2, Max: 4}, 16, 3},
		{"no-log", fio.LogOptions{}, fio.SampleStats{N: 2, Min: 8, Max: 24}, fio.SampleStats{N: 2, Min: 2, Max: 4}, 16, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := record(fio.NewCollector(spec("j", func(s *fio.Spec) { s.Logs = tc.logs })))
			nmm := func(s fio.SampleStats) fio.SampleStats { return fio.SampleStats{N: s.N, Min: s.Min, Max: s.Max} }
			if diff := cmp.Diff(tc.wantBW, nmm(d.BWSamples), ignoreHidden); diff != "" {
				t.Errorf("bw samples (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantIOPS, nmm(d.IOPSSamples), ignoreHidden); diff != "" {
				t.Errorf("iops samples (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]float64{tc.wantBWMean, tc.wantIOPSMean}, []float64{d.BWSamples.Mean, d.IOPSSamples.Mean}, approx); diff != "" {
				t.Errorf("bw, iops sample means (-want +got):\n%s", diff)
			}
		})
	}
}
