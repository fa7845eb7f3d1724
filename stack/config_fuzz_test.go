package stack_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// fuzzBytes decodes fuzzer bytes into config values; past the end it reads zeros.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) u8() int {
	if len(f.b) == 0 {
		return 0
	}
	v := f.b[0]
	f.b = f.b[1:]
	return int(v)
}

func (f *fuzzBytes) u16() int { return f.u8()<<8 | f.u8() }

// intIn returns a value in [lo, hi] most of the time and, when the top bits of the
// next 16-bit word are all set, an unchecked signed value (often out of range), so
// that Validate's rejections are exercised too.
func (f *fuzzBytes) intIn(lo, hi int) int {
	v := f.u16()
	if v>>12 == 0xf {
		return int(int16(v))<<(v&3) + v&1 // any sign, around and beyond the ranges
	}
	return lo + v%(hi-lo+1)
}

func (f *fuzzBytes) pick(choices ...string) string { return choices[f.u8()%len(choices)] }

// fuzzLimits bound a fuzzed run: model time (the watchdog of size-bound jobs and the
// runtime of time-bound ones) and the commands a device accepts before the engine is
// stopped.
const (
	fuzzWatchdog    = 10 * sim.Second
	fuzzMaxCommands = 50_000
)

// capped wraps a device and stops the engine after fuzzMaxCommands accepted
// commands: the I/O-count bound of a fuzzed run.
type capped struct {
	device.Device
	eng *sim.Engine
	n   *int
}

func (c capped) Submit(cmd *device.Command) device.Status {
	st := c.Device.Submit(cmd)
	if st == device.Accepted {
		if *c.n++; *c.n >= fuzzMaxCommands {
			c.eng.Stop()
		}
	}
	return st
}

// fuzzDevice builds one of the device models from fuzzed values.
func fuzzDevice(f *fuzzBytes, name string, accepted *int) func(*sim.Engine) (device.Device, error) {
	kind := f.u8() % 5
	delay := sim.Time(f.intIn(0, 1000)) * sim.Microsecond
	busy := []float64{0, 0, 0.01, 0.2}[f.u8()%4]
	return func(eng *sim.Engine) (device.Device, error) {
		var d device.Device
		var err error
		switch kind {
		case 0, 1:
			d, err = device.NewNull(eng, device.NullParams{Name: name, CompletionNsec: delay,
				BusyProbability: busy, BusyStatus: device.Busy + device.Status(kind), Seed: 7})
		case 2:
			p := device.AzureP30Params()
			p.Name = name
			d, err = device.NewThrottled(eng, p)
		case 3:
			p := device.ExampleSSDParams()
			p.Name = name
			d, err = device.NewSSD(eng, p)
		default:
			p := device.Cheetah15K7Params()
			p.Name = name
			d, err = device.NewHDD(eng, p)
		}
		if err != nil {
			return nil, err
		}
		return capped{d, eng, accepted}, nil
	}
}

// fuzzConfig builds a Config and a job file from fuzzed bytes.
func fuzzConfig(data []byte, accepted *int) (stack.Config, string) {
	f := &fuzzBytes{data}
	cfg := stack.Config{
		NrCPUs: f.intIn(1, 8),
		Host: stack.Host{CanQueue: f.intIn(1, 128), NrHwQueues: f.intIn(0, 8), CmdPerLun: f.intIn(0, 64),
			HostTagset: f.u8()%2 == 1, HctxShareTags: f.u8()%4 == 1},
		Kernel:   f.pick("", "", "4.15", "4.19", "5.9", "5.10", "5.17", "6.1", "6.8", "6.19", "3.10", "5", "x.y"),
		Seed:     uint64(f.u16()),
		Watchdog: fuzzWatchdog,
	}
	cfg.JitterSeed = cfg.Seed // one fuzzed seed varies both the workload and the jitter
	if f.u8()%4 == 0 {
		opts, _ := dispatch.Kernel("5.9")
		opts.NoTagWaitBarrier = f.u8()%2 == 1
		cfg.Options = &opts
	}
	if f.u8()%8 == 0 {
		cfg.Submit = stack.SubmitTiming{ReapMin: sim.Time(f.intIn(0, 50)) * sim.Microsecond,
			ReapMax: sim.Time(f.intIn(0, 50)) * sim.Microsecond, WorkerStep: sim.Time(f.intIn(0, 10)) * sim.Microsecond,
			WorkersOnOwnerCPU: f.u8()%2 == 1, StickyWorkers: f.u8()%2 == 1}
	}
	nLUN := 1 + f.u8()%3
	for i := range nLUN {
		name := string(rune('a' + i))
		cfg.LUNs = append(cfg.LUNs, stack.LUN{Name: name, Device: fuzzDevice(f, name, accepted),
			QueueDepth: f.intIn(0, 64), NrRequests: f.intIn(0, 256),
			Scheduler:    f.pick("", "none", "mq-deadline", "kyber"),
			MaxSectorsKB: []int{0, 0, 4, 128, 1280, 3, 40000}[f.u8()%7]})
	}
	var job strings.Builder
	timeBased := f.u8()%2 == 0
	fmt.Fprintf(&job, "[global]\ndirect=1\n")
	if timeBased {
		fmt.Fprintf(&job, "time_based\nruntime=%dus\n", 100+f.u8()*20)
	}
	for i := range 1 + f.u8()%3 {
		bs := []int{512, 4096, 65536, 1 << 20}[f.u8()%4]
		depth := 1 + f.u8()%64
		fmt.Fprintf(&job, "[j%d]\nfilename=%c\nioengine=%s\nrw=%s\nbs=%d\niodepth=%d\niodepth_batch_submit=%d\niodepth_batch_complete_min=%d\nnumjobs=%d\n",
			i, 'a'+f.u8()%nLUN, f.pick("psync", "libaio", "io_uring"), f.pick("read", "write", "randread", "randwrite", "rw", "randrw"),
			bs, depth, 1+f.u8()%8, f.u8()%(depth+1), 1+f.u8()%4)
		if !timeBased {
			fmt.Fprintf(&job, "size=%d\n", bs*(1+f.u8()%64))
		}
		if c := f.u8(); c%4 == 0 {
			fmt.Fprintf(&job, "cpus_allowed=%d\n", c%12)
		}
	}
	return cfg, job.String()
}

// currentKernel reports whether cfg runs under the current kernel's rules, in which no
// modelled hang bug remains.
func currentKernel(cfg stack.Config) bool {
	return cfg.Options == nil && (cfg.Kernel == "" || cfg.Kernel == "6.8" || cfg.Kernel == "6.19")
}

// stackFields are the Config field names a Validate or Run rejection must name one of.
var stackFields = []string{"NrCPUs", "Host.", "LUNs", "Kernel", "Submit", "job ", "no fio jobs", "specs[", "Timing", "Watchdog"}

// FuzzConfig builds a stack Config and an fio job file from fuzzed bytes (CPUs,
// host, up to 3 LUNs of every device model, queue depths, nr_requests, scheduler,
// kernel era, submit timing, engines, depths and batches, size- or time-bound jobs).
// An invalid Config must be rejected by Validate and Run with an error naming the
// field; a valid one must run without panic within bounded model time (a size-bound
// job gets a 10 s watchdog, which a job of at most 64 I/Os must never hit under the
// current kernel's rules: that would be a model hang; older eras have modelled hangs) and a bounded number of commands (the engine is stopped
// after 50,000 accepted commands). Seeds: stack/testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x04\x00\x40\x00\x02\x00\x20\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x20\x00\x40\x02\x00\x00"))
	f.Add([]byte("\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x01\x00\x01\x03\x01\x01\x02\x01\x05\x00\x01\x08\x00"))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("\x00\x02\x00\x01\x00\x02\x00\x01\x01\x00\x07\x00\x05\x00\x00\x01\x01\x00\x00\x00\x00\x00\x01\x00\x01\x00\x00\x01\x01\x02\x02\x10\x02\x04\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		accepted := 0
		cfg, job := fuzzConfig(data, &accepted)
		verr := cfg.Validate()
		specs, perr := fio.Parse(strings.NewReader(job), "fuzz.fio")
		if perr != nil {
			t.Fatalf("generated job file rejected: %v\n%s", perr, job)
		}
		res, err := stack.Run(cfg, specs)
		if verr != nil {
			if err == nil || err.Error() != verr.Error() {
				t.Fatalf("Validate: %v, but Run: %v", verr, err)
			}
		}
		if err != nil {
			msg := err.Error()
			var werr *stack.WatchdogError
			if errors.As(err, &werr) {
				// Older eras model kernel hangs faithfully (R02 before v4.18, R07 before
				// v6.8, R15 before v5.8, ...): a hang is a failure only under the current
				// kernel's rules.
				if accepted < fuzzMaxCommands && currentKernel(cfg) {
					t.Fatalf("hang: %v\n%+v\n%s", err, cfg, job)
				}
				return
			}
			named := false
			for _, w := range stackFields {
				named = named || strings.Contains(msg, w)
			}
			if !strings.HasPrefix(msg, "stack: ") || !named {
				t.Fatalf("rejection names no field: %q", msg)
			}
			return
		}
		if len(res.Jobs) != len(specs) {
			t.Fatalf("%d results for %d jobs", len(res.Jobs), len(specs))
		}
		for _, j := range res.Jobs {
			if msg := resultProblem(j); msg != "" {
				t.Fatalf("job %s: %s\n%+v\n%s", j.Spec.Instance(), msg, cfg, job)
			}
		}
	})
}

// resultProblem returns what is wrong with a job's figures ("" if nothing): counts
// and latencies must be non-negative and finite, min <= mean <= max, bytes = I/Os × bs,
// and the wait breakdown non-negative.
func resultProblem(j stack.JobResult) string {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) || x < 0 }
	for _, d := range []*fio.DirStats{j.Fio.Read(), j.Fio.Write()} {
		if d.TotalIOs < 0 || d.IOBytes != d.TotalIOs*j.Spec.BlockSize || bad(d.IOPS) || bad(d.BW) {
			return fmt.Sprintf("counts %d I/Os, %d bytes, IOPS %v, BW %v", d.TotalIOs, d.IOBytes, d.IOPS, d.BW)
		}
		c := d.Clat
		if c.N > 0 && (c.Min < 0 || float64(c.Min) > c.Mean+1 || c.Mean > float64(c.Max)+1 || bad(c.Stddev)) {
			return fmt.Sprintf("clat min %d mean %v max %d stddev %v", c.Min, c.Mean, c.Max, c.Stddev)
		}
	}
	w := j.Wait
	for _, x := range []float64{w.TagWait, w.Queued, w.DispatchList, w.Device, w.SleptLatency, w.DirectLatency} {
		if bad(x) {
			return fmt.Sprintf("wait breakdown %+v", w)
		}
	}
	return ""
}
