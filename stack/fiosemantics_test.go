package stack_test

import (
	"math"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// semConfig is a small machine for the fio-semantics tests: 4 CPUs, one LUN on a
// null device with a fixed latency, no CPU costs (so figures are exact).
func semConfig(delay sim.Time) stack.Config {
	cfg := stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 256, NrHwQueues: 1, CmdPerLun: 256},
		LUNs:   []stack.LUN{{Device: nullDevice(delay), QueueDepth: 256, Scheduler: "none"}},
		Kernel: "6.1",
		Seed:   1,
	}
	cfg.CPU.Off = true
	return cfg
}

func runJob(t *testing.T, cfg stack.Config, job string) *stack.Result {
	t.Helper()
	res, err := stack.Run(cfg, parse(t, job))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func iops(r stack.JobResult, d fio.Dir) float64 { return r.Fio.Dirs[d].IOPS }

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

// rate_iops=1000 on a device that could do far more gives 1000 IOPS ± 1 %
// (fio's usec_for_io, linear), and the poisson process gives the same mean.
func TestRateIOPS(t *testing.T) {
	for _, tc := range []struct{ name, extra string }{
		{"linear", ""},
		{"poisson", "rate_process=poisson\n"},
		{"libaio-qd8", "ioengine=libaio\niodepth=8\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runJob(t, semConfig(50*sim.Microsecond), "[r]\nrw=randread\nrate_iops=1000\nruntime=2\ntime_based\n"+tc.extra)
			got := iops(res.Jobs[0], fio.DirRead)
			tol := 0.01
			if tc.name == "poisson" {
				tol = 0.05 // 2000 exponential gaps: sd of the mean ≈ 2.2 %
			}
			if !within(got, 1000, tol) {
				t.Errorf("rate_iops=1000 (%s): %.1f IOPS, want 1000 ± %.0f %%", tc.name, got, tol*100)
			}
		})
	}
	// rate= in bytes/s: 4 MiB/s of 4 KiB I/Os is 1024 IOPS
	res := runJob(t, semConfig(50*sim.Microsecond), "[r]\nrw=read\nrate=4m\nruntime=2\ntime_based\n")
	if got := res.Jobs[0].Fio.Dirs[fio.DirRead].BW; !within(got, 4<<20, 0.01) {
		t.Errorf("rate=4m: %.0f B/s, want 4194304 ± 1 %%", got)
	}
	// per direction: rate_iops=200,100 on randrw
	res = runJob(t, semConfig(50*sim.Microsecond), "[m]\nrw=randrw\nrate_iops=200,100\nruntime=4\ntime_based\n")
	r, w := iops(res.Jobs[0], fio.DirRead), iops(res.Jobs[0], fio.DirWrite)
	if !within(r, 200, 0.02) || !within(w, 100, 0.02) {
		t.Errorf("rate_iops=200,100 randrw: read %.1f write %.1f IOPS, want 200 and 100 ± 2 %%", r, w)
	}
}

// rate_min above what the device gives stops the job with a reason.
func TestRateMinNotMet(t *testing.T) {
	// QD1 on a 1 ms device: 1000 IOPS at most; rate_iops_min=5000 cannot hold
	res := runJob(t, semConfig(sim.Millisecond), "[r]\nrw=randread\nrate_iops_min=5000\nruntime=5\ntime_based\n")
	j := res.Jobs[0]
	if j.Stopped == "" || j.Fio.Window > 3*1e9 {
		t.Errorf("rate_iops_min=5000 on a 1000-IOPS device: stopped %q after %v; want an early stop naming rate_iops_min", j.Stopped, j.Fio.Window)
	}
}

// A stonewalled phase runs alone: its IOPS equal its IOPS run by itself, and the
// phases do not overlap.
func TestStonewall(t *testing.T) {
	skipUnderRace(t)
	cfg := semConfig(100 * sim.Microsecond)
	const a = "[a]\nrw=randread\nioengine=libaio\niodepth=4\nruntime=1\ntime_based\n"
	const b = "[b]\nrw=randwrite\nioengine=libaio\niodepth=16\nruntime=1\ntime_based\n"
	alone := runJob(t, cfg, b)
	both := runJob(t, cfg, a+b+"stonewall\n")
	bAlone, bWalled := iops(alone.Jobs[0], fio.DirWrite), iops(both.Jobs[1], fio.DirWrite)
	if !within(bWalled, bAlone, 0.01) {
		t.Errorf("stonewalled phase b: %.0f IOPS, alone %.0f: want equal within 1 %%", bWalled, bAlone)
	}
	if both.Jobs[1].Spec.GroupID != 1 {
		t.Errorf("stonewall: group %d, want 1", both.Jobs[1].Spec.GroupID)
	}
	// the second phase ends about one runtime after the first
	if both.End < 2*sim.Second {
		t.Errorf("stonewall: run ended at %v, want after both 1 s phases", both.End)
	}
	// wait_for: c waits for a only, so b runs with a and c after it
	w := runJob(t, cfg, a+b+"[c]\nrw=read\nruntime=1\ntime_based\nwait_for=a\n")
	if w.End < 2*sim.Second || w.End > 2100*sim.Millisecond {
		t.Errorf("wait_for=a: run ended at %v, want ≈ 2 s", w.End)
	}
}

// exitall: the short job's end stops the long one.
func TestExitAll(t *testing.T) {
	res := runJob(t, semConfig(100*sim.Microsecond), "[short]\nrw=read\nruntime=200ms\ntime_based\nexitall\n[long]\nrw=read\nruntime=10\ntime_based\n")
	if res.End > 300*sim.Millisecond || res.Jobs[1].Stopped == "" {
		t.Errorf("exitall: run ended at %v, long job stopped %q; want ≈ 200 ms and a reason", res.End, res.Jobs[1].Stopped)
	}
}

// thinktime=1ms every 10 I/Os on a 100 µs QD1 device: 10 I/Os take 1 ms, then 1 ms
// of think: half the IOPS.
func TestThinkTime(t *testing.T) {
	cfg := semConfig(100 * sim.Microsecond)
	base := iops(runJob(t, cfg, "[t]\nrw=randread\nruntime=1\ntime_based\n").Jobs[0], fio.DirRead)
	think := iops(runJob(t, cfg, "[t]\nrw=randread\nruntime=1\ntime_based\nthinktime=1ms\nthinktime_blocks=10\n").Jobs[0], fio.DirRead)
	// each I/O: 100 µs device + the reap delay (5–30 µs); 10 I/Os then 1 ms
	per := 1 / base
	want := 10 / (10*per + 1e-3)
	if !within(think, want, 0.03) {
		t.Errorf("thinktime=1ms/10: %.0f IOPS (alone %.0f), want %.0f ± 3 %%", think, base, want)
	}
}

// bssplit and bsrange: the mean I/O size follows the split.
func TestBlockSizeMixes(t *testing.T) {
	cfg := semConfig(20 * sim.Microsecond)
	res := runJob(t, cfg, "[s]\nrw=randread\nbssplit=4k/75:64k/25\nruntime=1\ntime_based\n")
	d := res.Jobs[0].Fio.Dirs[fio.DirRead]
	mean := float64(d.IOBytes) / float64(d.TotalIOs)
	if want := 0.75*4096 + 0.25*65536; !within(mean, want, 0.03) {
		t.Errorf("bssplit=4k/75:64k/25: mean I/O %.0f B, want %.0f ± 3 %%", mean, want)
	}
	res = runJob(t, cfg, "[r]\nrw=read\nbsrange=4k-16k\nruntime=1\ntime_based\n")
	d = res.Jobs[0].Fio.Dirs[fio.DirRead]
	mean = float64(d.IOBytes) / float64(d.TotalIOs)
	// fio: min + max × U, aligned down to min, capped at max: 4k w.p. 1/4 (U < 1/4 →
	// [4k, 8k) → 4k), 8k 1/4, 12k 1/4, 16k 1/4 (U ≥ 3/4 → ≥ 16k, capped)
	if want := (4.0 + 8 + 12 + 16) / 4 * 1024; !within(mean, want, 0.03) {
		t.Errorf("bsrange=4k-16k: mean I/O %.0f B, want %.0f ± 3 %%", mean, want)
	}
	// bs=R,W
	res = runJob(t, cfg, "[m]\nrw=randrw\nbs=4k,16k\nruntime=500ms\ntime_based\n")
	d, w := res.Jobs[0].Fio.Dirs[fio.DirRead], res.Jobs[0].Fio.Dirs[fio.DirWrite]
	if d.IOBytes != d.TotalIOs*4096 || w.IOBytes != w.TotalIOs*16384 {
		t.Errorf("bs=4k,16k: read %d B / %d, write %d B / %d", d.IOBytes, d.TotalIOs, w.IOBytes, w.TotalIOs)
	}
}

// number_ios and io_size end a job early.
func TestIOCounts(t *testing.T) {
	cfg := semConfig(20 * sim.Microsecond)
	res := runJob(t, cfg, "[n]\nrw=randread\nnumber_ios=500\nsize=1g\n")
	if n := res.Jobs[0].Fio.Dirs[fio.DirRead].TotalIOs; n != 500 {
		t.Errorf("number_ios=500: %d I/Os", n)
	}
	res = runJob(t, cfg, "[s]\nrw=read\nio_size=1m\nsize=1g\n")
	if b := res.Jobs[0].Fio.Dirs[fio.DirRead].IOBytes; b != 1<<20 {
		t.Errorf("io_size=1m: %d bytes", b)
	}
	res = runJob(t, cfg, "[l]\nrw=read\nsize=256k\nloops=3\n")
	if b := res.Jobs[0].Fio.Dirs[fio.DirRead].IOBytes; b != 3*256<<10 {
		t.Errorf("size=256k loops=3: %d bytes", b)
	}
}

// startdelay: the job starts late and its window follows.
func TestStartDelay(t *testing.T) {
	res := runJob(t, semConfig(20*sim.Microsecond), "[d]\nrw=read\nstartdelay=500ms\nruntime=500ms\ntime_based\n")
	if res.End < sim.Second {
		t.Errorf("startdelay=500ms runtime=500ms: run ended at %v, want ≥ 1 s", res.End)
	}
}

// randseed= fixes a job's workload stream: the run's Seed no longer changes
// its offsets, and another randseed does. The offsets show in a small device's
// merges: a random reader over 64 KiB of 4 KiB blocks at QD16 is the probe (the
// mean latency differs with the offset sequence on mq-deadline's sorted queue).
func TestRandSeed(t *testing.T) {
	cfg := semConfig(100 * sim.Microsecond)
	cfg.LUNs[0].Scheduler = "mq-deadline"
	job := func(seed string) string {
		return "[r]\nrw=randread\nioengine=libaio\niodepth=16\nsize=64k\nnumber_ios=2000\n" + seed
	}
	sig := func(seed uint64, extra string) float64 {
		c := cfg
		c.Seed = seed
		r := runJob(t, c, job(extra))
		return r.Jobs[0].Fio.Dirs[fio.DirRead].Clat.Mean + float64(r.Queues[0].Dispatched)
	}
	a1, a2 := sig(1, "randseed=42\n"), sig(2, "randseed=42\n")
	if a1 != a2 {
		t.Errorf("randseed=42 with Seed 1 and 2: %v vs %v, want identical", a1, a2)
	}
	if b := sig(1, "randseed=43\n"); b == a1 {
		t.Errorf("randseed=42 and 43 gave the same run (%v)", b)
	}
	if n1, n2 := sig(1, ""), sig(2, ""); n1 == n2 {
		t.Errorf("without randseed, Seed 1 and 2 gave the same run (%v)", n1)
	}
}
