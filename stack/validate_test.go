package stack_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// validCfg is a small machine: 4 CPUs, one null LUN with 10 µs completions.
func validCfg() stack.Config {
	return stack.Config{NrCPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 1},
		LUNs: []stack.LUN{{Device: nullDevice(10 * sim.Microsecond)}}}
}

// validSpec is a 64 KiB random read at iodepth 4 built in Go.
func validSpec() fio.Spec {
	s := fio.DefaultSpec("j")
	s.RW, s.IOEngine, s.Size = fio.RWRandRead, fio.EngineLibaio, 64<<10
	s.IODepth, s.EffectiveIODepth, s.IODepthLow = 4, 4, 4
	return s
}

// TestRunRejectsBadInputs: Run validates Specs and Configs built in Go (not through
// the parser) and returns a typed error naming the field and its range, never a
// panic, a hang or a nil error for a value it cannot run. Each row is one class of
// bad input; the want text is the start of the message after "stack: ".
func TestRunRejectsBadInputs(t *testing.T) {
	skipUnderRace(t)
	tests := []struct {
		name  string
		cfg   func(*stack.Config)
		spec  func(*fio.Spec)
		specs []fio.Spec
		want  string
		// resource: a *ResourceLimitError, not a *ConfigError
		resource bool
	}{
		{name: "empty-spec", specs: []fio.Spec{{}}, want: `specs[0]: fio: job "": numjobs 0 out of range [1, 4096]`},
		{name: "negative-bs", spec: func(s *fio.Spec) { s.BlockSize = -4096 }, want: `specs[0]: fio: job "j": bs -4096 out of range [512, 1073741824]`},
		{name: "bs-not-sector-multiple", spec: func(s *fio.Spec) { s.BlockSize = 3 }, want: `specs[0]: fio: job "j": bs 3 out of range`},
		{name: "negative-cpu", spec: func(s *fio.Spec) { s.CPUsAllowed = []int{-1} }, want: `specs[0]: fio: job "j": cpus_allowed entry -1 out of range [0, 4095]`},
		{name: "cpu-beyond-machine", spec: func(s *fio.Spec) { s.CPUsAllowed = []int{4} }, want: `job j.0: cpus_allowed CPU 4 out of range [0, 3]`},
		{name: "negative-runtime-time-based", spec: func(s *fio.Spec) { s.Runtime, s.TimeBased = -1, true }, want: `specs[0]: fio: job "j": runtime -1 ns out of range`},
		{name: "iodepth-0", spec: func(s *fio.Spec) { s.IODepth = 0 }, want: `specs[0]: fio: job "j": iodepth 0 out of range [1, 65536]`},
		{name: "unknown-rw", spec: func(s *fio.Spec) { s.RW = 99 }, want: `specs[0]: fio: job "j": rw RW(99) unknown pattern`},
		{name: "unknown-engine", spec: func(s *fio.Spec) { s.IOEngine = 42 }, want: `specs[0]: fio: job "j": ioengine IOEngine(42) unknown engine`},
		{name: "size-times-loops-overflow", spec: func(s *fio.Spec) { s.Size, s.Loops = 1<<60, 1<<20 }, want: `job j.0: size 1152921504606846976 × loops 1048576`},
		{name: "no-jobs", specs: []fio.Spec{}, want: "no fio jobs"},
		{name: "logs-beyond-jobs", cfg: func(c *stack.Config) { c.Logs = make([]*fio.JobLogs, 2) },
			want: "Logs has 2 entries for 1 job instances: one entry per instance, in specs order, at most 1"},
		{name: "negative-watchdog", cfg: func(c *stack.Config) { c.Watchdog = -1 }, want: "Watchdog -1ns out of range"},
		{name: "nr-requests-without-scheduler", cfg: func(c *stack.Config) { c.Host.NrHwQueues = 2; c.LUNs[0].NrRequests = 256 },
			want: "LUNs[0].NrRequests 256 out of range [0 (= default), 64]: without an I/O scheduler"},
		{name: "duplicate-lun-names", cfg: func(c *stack.Config) {
			c.LUNs = []stack.LUN{{Name: "a", Device: nullDevice(0)}, {Name: "a", Device: nullDevice(0)}}
		}, spec: func(s *fio.Spec) { s.Target = "a" }, want: `LUNs[1].Name "a" repeats LUNs[0].Name`},
		{name: "timing-kblockd-min-over-max", cfg: func(c *stack.Config) { c.Timing.KblockdMin = 5; c.Timing.KblockdMax = 1 }, want: "Timing.KblockdMin 5ns out of range [0, 1ns (Timing.KblockdMax)]"},
		{name: "timing-kblockd-min-without-max", cfg: func(c *stack.Config) { c.Timing.KblockdMin = 10 }, want: "Timing.KblockdMin 10ns set without Timing.KblockdMax: a Max of 0 selects the default pair 5µs–30µs, Min included; set both"},
		{name: "timing-kblockd-min-negative", cfg: func(c *stack.Config) { c.Timing.KblockdMin = -5 }, want: "Timing.KblockdMin -5ns out of range [0, 0s (Timing.KblockdMax)]"},
		{name: "timing-wakeup-max-negative", cfg: func(c *stack.Config) { c.Timing.WakeupMax = -1 }, want: "Timing.WakeupMax -1ns out of range [0 (= default), 1h0m0s]"},
		{name: "timing-wakeup-max-over-hour", cfg: func(c *stack.Config) { c.Timing.WakeupMax = 2 * 3600 * sim.Second }, want: "Timing.WakeupMax 2h0m0s out of range [0, 1h0m0s]"},
		{name: "timing-resource-delay-negative", cfg: func(c *stack.Config) { c.Timing.ResourceDelay = -1 }, want: "Timing.ResourceDelay -1ns out of range [0 (= 3ms), 1h0m0s]"},
		{name: "memory-over-limit", spec: func(s *fio.Spec) { s.IODepth, s.EffectiveIODepth, s.IODepthLow = 65536, 65536, 65536 },
			cfg: func(c *stack.Config) { c.Limits.MaxMemory = 16 << 20 }, want: "run needs an estimated", resource: true},
		{name: "size-bound-events-over-limit", spec: func(s *fio.Spec) { s.Size = 1 << 45 },
			want: "run needs an estimated 17.2 G of events (at least 2 per I/O × 8.6 G I/Os", resource: true},
		{name: "one-year-runtime-projected", spec: func(s *fio.Spec) { s.Runtime, s.TimeBased = 365*24*time.Hour, true },
			want: "run needs an estimated", resource: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := validCfg()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			specs := tc.specs
			if specs == nil {
				s := validSpec()
				if tc.spec != nil {
					tc.spec(&s)
				}
				specs = []fio.Spec{s}
			}
			res, err := stack.Run(cfg, specs)
			if err == nil {
				t.Fatalf("Run: nil error (%d jobs run), want %q", len(res.Jobs), tc.want)
			}
			if !strings.HasPrefix(err.Error(), "stack: "+tc.want) {
				t.Errorf("Run: %v\nwant prefix: stack: %s", err, tc.want)
			}
			var ce *stack.ConfigError
			var re *stack.ResourceLimitError
			if tc.resource && !errors.As(err, &re) || !tc.resource && !errors.As(err, &ce) {
				t.Errorf("Run: error type %T, want resource=%v", err, tc.resource)
			}
			if !tc.resource {
				if cerr := stack.Check(cfg, specs); cerr == nil || cerr.Error() != err.Error() {
					t.Errorf("Check: %v, Run: %v", cerr, err)
				}
			}
		})
	}
}

// TestDerivedQueueDepthCapped: a LUN without queue_depth gets cmd_per_lun capped at
// SCSI_MAX_QUEUE_DEPTH (10000), as scsi_change_queue_depth caps it, so a tag set of
// 10240 with cmd_per_lun 10240 (null_blk hw_queue_depth=10240) runs.
func TestDerivedQueueDepthCapped(t *testing.T) {
	if got := (stack.Host{CanQueue: 10240, CmdPerLun: 10240}).DefaultQueueDepth(); got != 10000 {
		t.Errorf("DefaultQueueDepth = %d, want 10000", got)
	}
	cfg := validCfg()
	cfg.Host = stack.Host{CanQueue: 10240, NrHwQueues: 1, CmdPerLun: 10240}
	if _, err := stack.Run(cfg, []fio.Spec{validSpec()}); err != nil {
		t.Fatal(err)
	}
}

// TestProgressReported: Limits.Progress sees the run advance to its end, in order,
// and does not change the result.
func TestProgressReported(t *testing.T) {
	s := validSpec()
	s.Size, s.Runtime, s.TimeBased = 0, 50*time.Millisecond, true
	cfg := validCfg()
	plain, err := stack.Run(cfg, []fio.Spec{s})
	if err != nil {
		t.Fatal(err)
	}
	var seen []stack.Progress
	cfg.Limits.Progress = func(p stack.Progress) { seen = append(seen, p) }
	res, err := stack.Run(cfg, []fio.Spec{s})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[len(seen)-1].Done != 1 || seen[len(seen)-1].End != 50*sim.Millisecond {
		t.Fatalf("progress %+v: want reports ending at Done 1 of End 50ms", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done < seen[i-1].Done || seen[i].Events < seen[i-1].Events {
			t.Fatalf("progress went back: %+v then %+v", seen[i-1], seen[i])
		}
	}
	if res.Events != plain.Events || res.Jobs[0].Fio.Read().TotalIOs != plain.Jobs[0].Fio.Read().TotalIOs {
		t.Errorf("with progress: %d events, %d I/Os; without: %d, %d", res.Events, res.Jobs[0].Fio.Read().TotalIOs, plain.Events, plain.Jobs[0].Fio.Read().TotalIOs)
	}
}
