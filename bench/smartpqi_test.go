package bench

import (
	"testing"
	"time"
)

// BenchmarkSmartpqi runs seed 001's job file (SmartpqiRamp + SmartpqiRuntime of model
// time) once per iteration for each variant and reports the aggregate IOPS, the
// adapter's peak offered commands over can_queue, the mean command size and the CPU
// utilisation.
func BenchmarkSmartpqi(b *testing.B) {
	for _, v := range SmartpqiVariants {
		b.Run(v, func(b *testing.B) {
			var f *SmartpqiFigures
			for i := 0; i < b.N; i++ {
				var err error
				if f, err = RunSmartpqi(v, SmartpqiRamp, SmartpqiRuntime, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(f.IOPS, "IOPS")
			b.ReportMetric(f.PeakOverCanQueue, "peak/can_queue")
			b.ReportMetric(f.MeanCommandKiB, "cmd-KiB")
			b.ReportMetric(f.CPUUtil, "cpu-util")
		})
	}
}

// TestSmartpqi checks the scenario's mechanisms on short runs (the published figures
// are the claims test's): the default elevator per variant, the adapter overload of the
// unpatched variant only, and merging — commands of the mq-deadline variants are much
// larger than the 4 KiB commands of can_queue/nr_hw_queues with none.
func TestSmartpqi(t *testing.T) {
	want := map[string]struct {
		sched    string
		overload bool
	}{
		"variant=can_queue-div":  {"none", false},
		"variant=nr_hw_queues-1": {"mq-deadline", false},
		"variant=host_tagset":    {"mq-deadline", false},
		"variant=unpatched":      {"none", true},
	}
	cmd := map[string]float64{}
	for _, v := range SmartpqiVariants {
		t.Run("001/"+v, func(t *testing.T) {
			f, err := RunSmartpqi(v, 30*time.Millisecond, 30*time.Millisecond, 1)
			if err != nil {
				t.Fatal(err)
			}
			w := want[v]
			for i, s := range f.Schedulers {
				if s != w.sched {
					t.Errorf("LUN %d scheduler %q, want %q", i, s, w.sched)
				}
			}
			if got := f.PeakOverCanQueue > 1; got != w.overload {
				t.Errorf("adapter peak / can_queue = %.3f; overload %v, want %v", f.PeakOverCanQueue, got, w.overload)
			}
			if f.IOPS <= 0 {
				t.Errorf("IOPS %v", f.IOPS)
			}
			cmd[v] = f.MeanCommandKiB
		})
	}
	for _, v := range []string{"variant=nr_hw_queues-1", "variant=host_tagset"} {
		if cmd[v] < 8*cmd["variant=can_queue-div"] {
			t.Errorf("%s: mean command %.1f KiB, can_queue-div %.1f KiB: want merged commands", v, cmd[v], cmd["variant=can_queue-div"])
		}
	}
	if _, err := runSmartpqi("variant=bogus", 1); err == nil {
		t.Error("unknown variant accepted")
	}
}
