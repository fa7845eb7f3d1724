package stack_test

import (
	"bytes"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// runReport runs specs with seed and returns the fio JSON report and the queue counters.
func runReport(t *testing.T, cfg stack.Config, job string, seed uint64) (string, []dispatch.QueueStats) {
	t.Helper()
	cfg.Seed = seed
	res, err := stack.Run(cfg, parse(t, job))
	if err != nil {
		t.Fatal(err)
	}
	var rs []*fio.Result
	for _, j := range res.Jobs {
		rs = append(rs, j.Fio)
	}
	var b bytes.Buffer
	if err := fio.NewReport(rs).WriteJSON(&b, fio.OutputOptions{Plus: true}); err != nil {
		t.Fatal(err)
	}
	return b.String(), res.Queues
}

// TestSeedOnlyMovesRandomOffsets: Config.Seed reaches only the random workload (fio's
// offsets and rwmix draws), with the kernel's timing jitter fixed to constants and
// with its default random draws (Config.JitterSeed): a sequential-only job set gives
// identical output for seeds 1 and 2, a random one differs; the same seed twice is
// identical. Another JitterSeed does move the sequential jobs when the jitter is
// random, so the jitter still acts.
func TestSeedOnlyMovesRandomOffsets(t *testing.T) {
	fixed := 10 * sim.Microsecond
	const seq = "[global]\nioengine=libaio\ndirect=1\ntime_based\nruntime=20ms\n[r]\nrw=read\niodepth=8\n[w]\nrw=write\nbs=64k\niodepth=4\n[p]\nioengine=psync\nrw=read\nbs=16k\n"
	const rnd = "[global]\nioengine=libaio\ndirect=1\ntime_based\nruntime=20ms\n[r]\nrw=randread\niodepth=8\n[m]\nrw=randrw\nrwmixread=70\niodepth=4\n"
	for _, tt := range []struct {
		name  string
		fixed bool
	}{{"fixed-timings", true}, {"default-jitter", false}} {
		cfg := baseConfig()
		if tt.fixed {
			cfg.Timing = dispatch.Timing{KblockdMin: fixed, KblockdMax: fixed, WakeupMin: fixed, WakeupMax: fixed}
			cfg.Submit = stack.SubmitTiming{ReapMin: fixed, ReapMax: fixed}
		}
		cfg.LUNs[0].Scheduler = "mq-deadline"
		t.Run(tt.name+"/sequential/seed-independent", func(t *testing.T) {
			a, qa := runReport(t, cfg, seq, 1)
			b, qb := runReport(t, cfg, seq, 2)
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("sequential jobs, seeds 1 and 2 (-1 +2):\n%s", diff)
			}
			if diff := cmp.Diff(qa, qb); diff != "" {
				t.Errorf("queue counters (-1 +2):\n%s", diff)
			}
		})
		t.Run(tt.name+"/random/seed-dependent", func(t *testing.T) {
			a, _ := runReport(t, cfg, rnd, 1)
			b, _ := runReport(t, cfg, rnd, 2)
			if a == b {
				t.Error("random jobs: seeds 1 and 2 gave identical output")
			}
			again, _ := runReport(t, cfg, rnd, 1)
			if diff := cmp.Diff(a, again); diff != "" {
				t.Errorf("random jobs, seed 1 twice (-first +again):\n%s", diff)
			}
		})
		if !tt.fixed {
			t.Run(tt.name+"/sequential/jitter-seed-dependent", func(t *testing.T) {
				a, _ := runReport(t, cfg, seq, 1)
				cfg.JitterSeed = 2
				b, _ := runReport(t, cfg, seq, 1)
				if a == b {
					t.Error("sequential jobs: JitterSeed 1 and 2 gave identical output")
				}
			})
		}
	}
}
