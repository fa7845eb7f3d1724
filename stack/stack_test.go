package stack_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

func nullDevice(delay sim.Time) func(*sim.Engine) (device.Device, error) {
	return func(eng *sim.Engine) (device.Device, error) {
		return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: delay})
	}
}

func baseConfig() stack.Config {
	return stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 64, NrHwQueues: 4},
		LUNs:   []stack.LUN{{Device: nullDevice(100 * sim.Microsecond), QueueDepth: 32}},
		Seed:   1,
	}
}

func parse(t *testing.T, job string) []fio.Spec {
	t.Helper()
	specs, err := fio.Parse(strings.NewReader(job), "test.fio")
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(c *stack.Config)
		field string
		want  string
	}{
		{"nr-cpus", func(c *stack.Config) { c.NrCPUs = 0 }, "NrCPUs", "stack: NrCPUs 0 out of range [1, 4096]"},
		{"can-queue", func(c *stack.Config) { c.Host.CanQueue = 20000 }, "Host.CanQueue", "stack: Host.CanQueue 20000 out of range [1, 10240]"},
		{"nr-hw-queues", func(c *stack.Config) { c.Host.NrHwQueues = -1 }, "Host.NrHwQueues", "stack: Host.NrHwQueues -1 out of range [0 (= 1), 4096]"},
		{"second-host", func(c *stack.Config) { c.Hosts = []stack.Host{{CanQueue: 0}} }, "Hosts[0].CanQueue", "stack: Hosts[0].CanQueue 0 out of range [1, 10240]"},
		{"no-luns", func(c *stack.Config) { c.LUNs = nil }, "LUNs", "stack: LUNs: need at least one LUN"},
		{"lun-host", func(c *stack.Config) { c.LUNs[0].Host = 3 }, "LUNs[0].Host", "stack: LUNs[0].Host 3 out of range [0, 0]"},
		{"queue-depth", func(c *stack.Config) { c.LUNs[0].QueueDepth = 65 }, "LUNs[0].QueueDepth", "stack: LUNs[0].QueueDepth 65 out of range [0 (= cmd_per_lun), 64]"},
		{"nr-requests", func(c *stack.Config) { c.LUNs[0].NrRequests = 4096 }, "LUNs[0].NrRequests", "stack: LUNs[0].NrRequests 4096 out of range [0 (= default), 2048]"},
		{"scheduler", func(c *stack.Config) { c.LUNs[0].Scheduler = "kyber" }, "LUNs[0].Scheduler", "stack: LUNs[0].Scheduler \"kyber\" not one of \"\", \"none\", \"mq-deadline\""},
		{"max-sectors", func(c *stack.Config) { c.LUNs[0].MaxSectorsKB = 2 }, "LUNs[0].MaxSectorsKB", "stack: LUNs[0].MaxSectorsKB 2 out of range [4, 32767] or 0"},
		{"kernel", func(c *stack.Config) { c.Kernel = "3.10" }, "Kernel", "stack: Kernel: dispatch: kernel version \"3.10\" out of range [4.15, 6.19]"},
		{"device", func(c *stack.Config) { c.LUNs[0].Device = nil }, "LUNs[0].Device", "stack: LUNs[0].Device is nil"},
		{"migration-cost", func(c *stack.Config) { c.Placement.MigrationCost = -1 }, "Placement.MigrationCost", "stack: Placement.MigrationCost -1 ns out of range [0, 1e9] (0 = default)"},
		{"tick", func(c *stack.Config) { c.Placement.Tick = 2 * sim.Second }, "Placement.Tick", "stack: Placement.Tick 2000000000 ns out of range [0, 1e9] (0 = default)"},
		{"reap-min", func(c *stack.Config) { c.Submit.ReapMin = -1 }, "Submit.ReapMin", "stack: Submit.ReapMin -1ns out of range [0, Submit.ReapMax]"},
		{"reap-max", func(c *stack.Config) { c.Submit.ReapMin, c.Submit.ReapMax = 5, 4 }, "Submit.ReapMax", "stack: Submit.ReapMax 4ns out of range [Submit.ReapMin 5ns, +inf)"},
		{"reap-submit-delay", func(c *stack.Config) { c.Submit.ReapSubmitDelay = 11 * sim.Millisecond }, "Submit.ReapSubmitDelay", "stack: Submit.ReapSubmitDelay 11ms out of range [0, 10ms]"},
		{"worker-step", func(c *stack.Config) { c.Submit.WorkerStep = -1 }, "Submit.WorkerStep", "stack: Submit.WorkerStep -1ns out of range [0, +inf)"},
		{"ok", func(c *stack.Config) {}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := baseConfig()
			tt.mod(&c)
			err := c.Validate()
			got, field := "", ""
			if err != nil {
				got = err.Error()
				var ce *stack.ConfigError
				if !errors.As(err, &ce) {
					t.Fatalf("Validate() = %T, want *stack.ConfigError", err)
				}
				field = ce.Field
			}
			if got != tt.want || field != tt.field {
				t.Errorf("Validate() = %q (Field %q), want %q (Field %q)", got, field, tt.want, tt.field)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	specs := parse(t, "[j]\nrw=randread\ncpus_allowed=7\nruntime=10ms\ntime_based\n")
	_, err := stack.Run(baseConfig(), specs)
	if err == nil || err.Error() != "stack: job j.0: cpus_allowed CPU 7 out of range [0, 3]" {
		t.Errorf("err = %v", err)
	}
	if _, err := stack.Run(baseConfig(), nil); err == nil {
		t.Error("no error for no jobs")
	}
}

const mixedJob = `
[global]
ioengine=io_uring
direct=1
runtime=200ms
time_based
filesize=1G

[rand]
rw=randread
bs=4k
iodepth=64
numjobs=3

[seq]
rw=write
bs=8k
iodepth=4
ioengine=libaio
`

type summary struct {
	Name            string
	IOs             int64
	IOPS, ClatMean  float64
	P99             int64
	TagWait, Queued float64
}

func summarize(res *stack.Result) []summary {
	var out []summary
	for _, j := range res.Jobs {
		d := j.Fio.Read()
		if j.Fio.Write().TotalIOs > 0 {
			d = j.Fio.Write()
		}
		out = append(out, summary{j.Spec.Instance(), d.TotalIOs, d.IOPS, d.Clat.Mean, d.Clat.Percentile(99), j.Wait.TagWait, j.Wait.Queued})
	}
	return out
}

// TestDeterminism: the same Config and seed give identical results; another seed
// differs.
func TestDeterminism(t *testing.T) {
	skipUnderRace(t)
	specs := parse(t, mixedJob)
	cfg := baseConfig()
	cfg.LUNs[0].NrRequests = 16
	cfg.Kernel = "5.17"
	run := func(seed uint64) []summary {
		c := cfg
		c.Seed = seed
		res, err := stack.Run(c, specs)
		if err != nil {
			t.Fatal(err)
		}
		return summarize(res)
	}
	a, b := run(3), run(3)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different results (-a +b):\n%s", diff)
	}
	if cmp.Equal(a, run(4)) {
		t.Errorf("seeds 3 and 4 gave identical results")
	}
}

// TestLittlesLaw: with a Null device and a job that keeps iodepth I/Os in flight, IOPS
// × mean lat (slat + clat, from fio's start_time to the reap) = iodepth, and clat
// includes the wake-up delay before the reap (fio stamps completions when it reaps
// them: io_u.c io_u_queued_complete → init_icd → io_completed).
func TestLittlesLaw(t *testing.T) {
	tests := []struct {
		name   string
		engine string
		depth  int
	}{
		{"libaio-qd8", "libaio", 8},
		{"io_uring-qd16", "io_uring", 16},
		{"psync", "psync", 1},
		{"libaio-qd16-batch8-plugged", "libaio\niodepth_batch_submit=8", 16},
		{"libaio-qd16-complete-batch4", "libaio\niodepth_batch_complete_min=4\niodepth_batch_complete_max=8", 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := "[j]\nrw=randread\nbs=4k\ndirect=1\nruntime=500ms\ntime_based\nfilesize=1G\nioengine=" + tt.engine +
				"\niodepth=" + itoa(tt.depth) + "\n"
			// CPU costs off: with them, an io_u freed by a reap also waits in fio's free
			// list while the thread's CPU finishes earlier work (stack's paced submit
			// loop), time that fio's lat does not count.
			cfg := baseConfig()
			cfg.CPU.Off = true
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			d := res.Jobs[0].Fio.Read()
			inFlight := d.IOPS * d.Lat.Mean / 1e9
			if math.Abs(inFlight-float64(tt.depth))/float64(tt.depth) > 0.02 {
				t.Errorf("IOPS %.0f × lat %.0f ns = %.2f, want %d ± 2%%", d.IOPS, d.Lat.Mean, inFlight, tt.depth)
			}
			// device 100 µs + the reap wake-up (SubmitTiming.ReapMin 5 µs at least)
			if d.Clat.Mean < 105e3 {
				t.Errorf("mean clat %.0f ns below the device delay 100 µs + the 5 µs minimum reap delay", d.Clat.Mean)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestIOEngineTagWaiters (fs/aio.c, io_uring/io-wq.c submission contexts): on a host whose per-hctx tags are
// far smaller than the job's depth, a libaio job has at most one task asleep on tags
// and, pinned to one CPU, allocates only from its own hctx; an io_uring job punts to
// up to min(sq_entries, 4 × CPUs) io-wq workers that sleep on tags and spill over the
// other CPUs' hctxs.
func TestIOEngineTagWaiters(t *testing.T) {
	tests := []struct {
		name         string
		engine       string
		wantMaxSleep int // exact for libaio, lower bound for io_uring
		wantSpill    bool
	}{
		{"libaio-one-waiter-no-spill", "libaio", 1, false},
		{"io_uring-workers-spill", "io_uring", 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.LUNs[0].NrRequests = 4
			cfg.LUNs[0].Scheduler = "none"
			cfg.LUNs[0].QueueDepth = 8
			job := "[j]\nrw=randread\nbs=4k\ndirect=1\nruntime=100ms\ntime_based\nfilesize=1G\ncpus_allowed=0\niodepth=64\nioengine=" + tt.engine + "\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if tt.engine == "libaio" && j.MaxSleepers != tt.wantMaxSleep || j.MaxSleepers < tt.wantMaxSleep {
				t.Errorf("max sleepers = %d, want %d", j.MaxSleepers, tt.wantMaxSleep)
			}
			if max := 4 * cfg.NrCPUs; j.MaxSleepers > max {
				t.Errorf("max sleepers %d above the io-wq bound %d", j.MaxSleepers, max)
			}
			spill := false
			for i, h := range res.Hctxs[0] {
				if i != 0 && h.Dispatched > 0 {
					spill = true
				}
			}
			if spill != tt.wantSpill {
				t.Errorf("dispatched through other hctxs = %v, want %v (%+v)", spill, tt.wantSpill, res.Hctxs[0])
			}
		})
	}
}

// TestIOWQBlockdevWrites (io_uring/io_uring.c io_prep_async_work): an io_uring
// write job on a block device file whose depth exceeds its tags punts its writes to
// io-wq unhashed, so several workers sleep on tags at once; with the pre-round-8 rule
// (SubmitTiming.IOPrepAsyncWorkHashAll) one worker runs them one at a time.
func TestIOWQBlockdevWrites(t *testing.T) {
	tests := []struct {
		name      string
		hashAll   bool
		wantSleep int // lower bound; exact when hashAll
	}{
		{"blockdev-writes-unhashed", false, 2},
		{"hash-all-one-worker", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.LUNs[0].NrRequests = 4
			cfg.LUNs[0].Scheduler = "none"
			cfg.LUNs[0].QueueDepth = 8
			cfg.Submit.IOPrepAsyncWorkHashAll = tt.hashAll
			job := "[j]\nrw=randwrite\nbs=4k\ndirect=1\nruntime=100ms\ntime_based\nfilesize=1G\ncpus_allowed=0\niodepth=16\nioengine=io_uring\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			got := res.Jobs[0].MaxSleepers
			if tt.hashAll && got != tt.wantSleep || got < tt.wantSleep {
				t.Errorf("max sleepers = %d, want %d (hashAll %v)", got, tt.wantSleep, tt.hashAll)
			}
		})
	}
}

// TestSizeBoundJob: a job without runtime stops after filesize bytes; a watchdog too
// short for it reports an error instead of waiting.
func TestSizeBoundJob(t *testing.T) {
	specs := parse(t, "[j]\nrw=write\nbs=64k\nfilesize=64m\nioengine=libaio\niodepth=4\ndirect=1\n")
	res, err := stack.Run(baseConfig(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Jobs[0].Fio.Write().IOBytes, int64(64<<20); got != want {
		t.Errorf("bytes written %d, want %d", got, want)
	}
	// a watchdog shorter than the job: the job progresses, so the run goes on past it
	// (the watchdog scales with the job's size) and gives the same result
	cfg := baseConfig()
	cfg.Watchdog = sim.Millisecond
	short, err := stack.Run(cfg, specs)
	if err != nil {
		t.Fatalf("1 ms watchdog: %v", err)
	}
	if got, want := short.Jobs[0].Fio.Write().IOBytes, int64(64<<20); got != want {
		t.Errorf("1 ms watchdog: bytes written %d, want %d", got, want)
	}
}
