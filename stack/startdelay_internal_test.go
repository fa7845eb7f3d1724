package stack

import (
	"strings"
	"testing"
	"time"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// startDelays places the job file's jobs on a null_blk machine and returns each
// job's start delay as drawn (newJob).
func startDelays(t *testing.T, text string, seed uint64) []time.Duration {
	t.Helper()
	cfg := Config{
		NrCPUs: 2,
		Host:   Host{CanQueue: 64, NrHwQueues: 2, CmdPerLun: 64, Driver: DriverNullBlk},
		LUNs: []LUN{{Name: "/dev/nullb0", Scheduler: "none", Device: func(eng *sim.Engine) (device.Device, error) {
			return device.NewNull(eng, device.NullParams{Name: "null", CompletionNsec: 2 * sim.Millisecond})
		}}},
		Seed: seed,
	}
	specs, err := fio.Parse(strings.NewReader(text), "sd.fio")
	if err != nil {
		t.Fatal(err)
	}
	if err := validateRun(&cfg, specs); err != nil {
		t.Fatal(err)
	}
	r := &runner{cfg: cfg, eng: sim.NewEngine(), rnd: sim.NewRand(cfg.jitterSeed()), sub: cfg.Submit.withDefaults()}
	if err := r.assemble(); err != nil {
		t.Fatal(err)
	}
	if err := r.placeJobs(specs); err != nil {
		t.Fatal(err)
	}
	var out []time.Duration
	for _, j := range r.jobs {
		out = append(out, j.spec.StartDelay)
	}
	return out
}

// TestStartDelayRangeDraw: startdelay=LO-HI gives each job a delay in [LO, HI]
// (fio's fixup_options draws one per job with rand_between), the same for the same
// seed; a single value is kept as given.
func TestStartDelayRangeDraw(t *testing.T) {
	const text = "[global]\nrw=randread\nsize=1m\nstartdelay=1-3\n[a]\nnumjobs=4\n[b]\nstartdelay=2\n"
	a := startDelays(t, text, 1)
	if len(a) != 5 {
		t.Fatalf("%d jobs, want 5", len(a))
	}
	seen := map[time.Duration]bool{}
	for i, d := range a[:4] {
		if d < time.Second || d > 3*time.Second || d%time.Microsecond != 0 {
			t.Errorf("job %d: delay %v outside [1s, 3s] or not whole µs", i, d)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Errorf("the four clones drew the same delay %v", a[0])
	}
	if a[4] != 2*time.Second {
		t.Errorf("startdelay=2: %v", a[4])
	}
	b := startDelays(t, text, 1)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("job %d: %v then %v with the same seed", i, a[i], b[i])
		}
	}
}
