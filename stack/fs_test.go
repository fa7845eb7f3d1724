package stack_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestIOUringTarget: io_uring's inline attempt only gets -EAGAIN (and punts to io-wq)
// where the bio carries REQ_NOWAIT — a block device file. On a file system (v5.9+,
// iomap) the submitting thread itself sleeps in blk_mq_get_tag: one sleeper per job,
// no would-block, and the sleep is fio slat (issue_time is stamped when io_uring_enter
// returns), not clat. Four driver tags on one hctx, a queue depth of 64, one job pinned.
func TestIOUringTarget(t *testing.T) {
	tests := []struct {
		name        string
		target      string
		wantPunts   bool
		wantSleepMx int // the most tasks of the job asleep at once: exact for fs, at least for /dev
		wantSlat    bool
	}{
		{"000/io_uring-blockdev-punts-to-io-wq", "filename=/dev/sdb", true, 2, false},
		{"000/io_uring-filesystem-blocks-inline", "directory=/mnt/test", false, 1, true},
		{"000/io_uring-filesystem-abs-filename-blocks-inline", "filename=/mnt/test/f", false, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Host = stack.Host{CanQueue: 4, NrHwQueues: 1}
			cfg.LUNs[0].QueueDepth = 4
			job := "[j]\nioengine=io_uring\nrw=randread\nbs=4k\ndirect=1\niodepth=64\ntime_based\nruntime=20ms\nsize=64M\ncpus_allowed=0\n" + tt.target + "\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if got := j.Wait.WouldBlock > 0; got != tt.wantPunts {
				t.Errorf("would-block submissions %d, want punts %v", j.Wait.WouldBlock, tt.wantPunts)
			}
			if tt.wantPunts && j.MaxSleepers < tt.wantSleepMx || !tt.wantPunts && j.MaxSleepers != tt.wantSleepMx {
				t.Errorf("max sleepers %d, want %d (%s)", j.MaxSleepers, tt.wantSleepMx, map[bool]string{true: "at least", false: "exactly"}[tt.wantPunts])
			}
			d := j.Fio.Read()
			if got := d.Slat.Mean > 1000; got != tt.wantSlat {
				t.Errorf("mean slat %.0f ns, want sleeping submissions in slat: %v", d.Slat.Mean, tt.wantSlat)
			}
			if d.TotalIOs == 0 {
				t.Error("no I/O completed")
			}
		})
	}
}

// TestPlacement: a lone unpinned fio thread on an idle machine stays on its CPU
// (PlaceFair: select_idle_sibling keeps a woken task on its idle previous CPU) and so
// submits through one hctx, as a pinned one does; under the deprecated PlaceRandom it
// moves on some wake-ups and submits through several.
func TestPlacement(t *testing.T) {
	tests := []struct {
		name      string
		pin       string
		place     stack.Placement
		wantHctxs func(n int) bool
		want      string
	}{
		{"000/unpinned-thread-stays-on-its-idle-cpu", "", stack.Placement{}, func(n int) bool { return n == 1 }, "exactly 1"},
		{"000/unpinned-thread-spreads-under-place-random", "", stack.Placement{Rule: stack.PlaceRandom}, func(n int) bool { return n > 1 }, "more than 1"},
		{"000/pinned-thread-stays-on-its-hctx", "cpus_allowed=2\n", stack.Placement{}, func(n int) bool { return n == 1 }, "exactly 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := "[j]\nioengine=libaio\nrw=randread\nbs=4k\ndirect=1\niodepth=8\ntime_based\nruntime=50ms\nsize=64M\n" + tt.pin
			cfg := baseConfig()
			cfg.Placement = tt.place
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, h := range res.Hctxs[0] {
				if h.Dispatched > 0 {
					n++
				}
			}
			if !tt.wantHctxs(n) {
				t.Errorf("%d hctxs dispatched the job's requests, want %s", n, tt.want)
			}
		})
	}
}

// TestConfigFSAndPlacement: Config.FS and Config.Placement reach the jobs, so the
// storvsc-000 sensitivity switches run from committed code. FS.BioNowait makes a
// file-system io_uring job punt to io-wq as on a block device; Placement.WakeMigrate
// < 0 keeps an unpinned thread on its first CPU (one hctx), 1 moves it at every wake-up.
func TestConfigFSAndPlacement(t *testing.T) {
	tests := []struct {
		name      string
		mod       func(c *stack.Config)
		job       string
		wantPunts bool
		wantHctxs func(n int) bool
	}{
		{"000/fs-default-blocks-inline", func(c *stack.Config) {},
			"ioengine=io_uring\ndirectory=/mnt/test\ncpus_allowed=0\n", false, func(n int) bool { return n == 1 }},
		{"000/fs-bio-nowait-punts-to-io-wq", func(c *stack.Config) { c.FS.BioNowait = true },
			"ioengine=io_uring\ndirectory=/mnt/test\ncpus_allowed=0\n", true, func(n int) bool { return n >= 1 }},
		{"000/placement-never-moves", func(c *stack.Config) { c.Placement.WakeMigrate = -1 },
			"ioengine=libaio\n", false, func(n int) bool { return n == 1 }},
		{"000/placement-always-moves", func(c *stack.Config) { c.Placement.WakeMigrate = 1 },
			"ioengine=libaio\n", false, func(n int) bool { return n > 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Host = stack.Host{CanQueue: 4, NrHwQueues: 4}
			cfg.LUNs[0].QueueDepth = 4
			tt.mod(&cfg)
			job := "[j]\nrw=randread\nbs=4k\ndirect=1\niodepth=64\ntime_based\nruntime=20ms\nsize=64M\n" + tt.job
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if got := j.Wait.WouldBlock > 0; got != tt.wantPunts {
				t.Errorf("would-block submissions %d, want punts %v", j.Wait.WouldBlock, tt.wantPunts)
			}
			n := 0
			for _, h := range res.Hctxs[0] {
				if h.Dispatched > 0 {
					n++
				}
			}
			if !tt.wantHctxs(n) {
				t.Errorf("%d hctxs dispatched the job's requests", n)
			}
		})
	}
	cfg := baseConfig()
	cfg.Placement.WakeMigrate = 1.5
	if err := cfg.Validate(); err == nil || err.Error() != "stack: Placement.WakeMigrate 1.5 out of range [0, 1] (0 = default, negative = never)" {
		t.Errorf("Validate() = %v", err)
	}
}

// TestPlaceFair: with the select_task_rq_fair rule (the default) three unpinned threads are
// placed without random draws (two runs give identical I/O counts, every job does
// I/O), and Validate rejects an unknown rule.
func TestPlaceFair(t *testing.T) {
	cfg := baseConfig()
	cfg.Placement.Rule = stack.PlaceFair
	specs := parse(t, "[global]\nioengine=libaio\nrw=randread\nbs=4k\ndirect=1\niodepth=8\ntime_based\nruntime=50ms\nsize=64M\n[j]\nnumjobs=3\n")
	a, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Jobs {
		x, y := a.Jobs[i].Fio.Read().TotalIOs, b.Jobs[i].Fio.Read().TotalIOs
		if x != y || x == 0 {
			t.Errorf("job %d: I/Os %d then %d: want equal and non-zero", i, x, y)
		}
	}
	cfg.Placement.Rule = 7
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Placement.Rule 7 out of range") {
		t.Errorf("Validate(Rule 7) = %v", err)
	}
}

// TestForkIdlestGroup: with Placement.ForkIdlestGroup on one LLC, fio's parent keeps
// CPU 0 while it forks, so four unpinned jobs on four CPUs start on CPUs 1, 2, 3 and
// (the lowest utilisation of the idle CPUs: the oldest sleeping child) 1 again; a job
// pinned to CPU 0 alone still starts there. Off, they start on CPUs 0-3. With the
// parent on CPU 2 (FioParentCPU 3) the group order starts after it: 3, 0, 1, 3.
func TestForkIdlestGroup(t *testing.T) {
	cfg := baseConfig()
	specs := parse(t, "[global]\nioengine=libaio\nrw=randread\nbs=4k\ndirect=1\niodepth=4\ntime_based\nruntime=5ms\nsize=64M\n[j]\nnumjobs=4\n[p]\ncpus_allowed=0\n")
	for _, tc := range []struct {
		on     bool
		parent int
		want   []int
	}{{false, 0, []int{0, 1, 2, 3, 0}}, {true, 0, []int{1, 2, 3, 1, 0}}, {true, 3, []int{3, 0, 1, 3, 0}}} {
		cfg.Placement.ForkIdlestGroup = tc.on
		cfg.Placement.FioParentCPU = tc.parent
		res, err := stack.Run(cfg, specs)
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range res.Jobs {
			if j.CPU != tc.want[i] {
				t.Errorf("ForkIdlestGroup %v, FioParentCPU %d: job %d started on CPU %d, want %d", tc.on, tc.parent, i, j.CPU, tc.want[i])
			}
		}
	}
}
