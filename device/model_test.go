package device_test

import (
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// model builds one device of every kind for the cross-model tests.
type model struct {
	name  string
	build func(eng *sim.Engine, seed uint64) device.Device
	op    device.Op
	size  int64
	seq   bool
	depth int
	win   sim.Time
	think sim.Time // between a completion and the slot's next submission
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func models() []model {
	return []model{
		{"null_blk", func(e *sim.Engine, s uint64) device.Device { return must(device.NewNull(e, device.NullBlkParams())) }, device.OpRead, 4096, false, 16, 50 * sim.Millisecond, 5 * sim.Microsecond},
		{"null-busy-mbps", func(e *sim.Engine, s uint64) device.Device {
			return must(device.NewNull(e, device.NullParams{Name: "n", CompletionNsec: 20 * sim.Microsecond, MaxQueue: 12, MBps: 500, BusyProbability: 0.05, BusyStatus: device.Busy, Seed: s}))
		}, device.OpWrite, 16 << 10, false, 16, 100 * sim.Millisecond, 0},
		{"throttled-000", func(e *sim.Engine, s uint64) device.Device {
			return must(device.NewThrottled(e, device.AzureP30Params()))
		}, device.OpRead, 16 << 10, false, 15, 10 * sim.Second, sim.Millisecond},
		{"ssd-srp-002", func(e *sim.Engine, s uint64) device.Device { return must(device.NewSSD(e, device.ExampleSSDParams())) }, device.OpRead, 4096, false, 64, 50 * sim.Millisecond, 300 * sim.Microsecond},
		{"hdd-15k7-tcq", func(e *sim.Engine, s uint64) device.Device { return must(device.NewHDD(e, device.Cheetah15K7Params())) }, device.OpRead, 4096, false, 16, 20 * sim.Second, 2 * sim.Millisecond},
		{"hdd-15k7-wce-seq", func(e *sim.Engine, s uint64) device.Device {
			p := device.Cheetah15K7Params()
			p.WriteCache = true
			return must(device.NewHDD(e, p))
		}, device.OpWrite, 64 << 10, true, 4, 2 * sim.Second, 0},
		{"host-over-ssd", func(e *sim.Engine, s uint64) device.Device {
			h := must(device.NewHost(e, device.HostParams{Name: "hba", CanQueue: 24, CommandCost: 3 * sim.Microsecond}))
			return h.Attach(must(device.NewSSD(e, device.ExampleSSDParams())))
		}, device.OpRead, 4096, false, 32, 50 * sim.Millisecond, 50 * sim.Microsecond},
	}
}

func (m model) load(seed uint64) (*sim.Engine, *loadGen) {
	eng := sim.NewEngine()
	g := newLoad(eng, m.build(eng, seed), m.depth, seed)
	g.op, g.size, g.seq, g.think = m.op, m.size, m.seq, m.think
	if strings.HasPrefix(m.name, "hdd") {
		g.span = 600e9
	}
	return eng, g
}

// TestLittlesLaw: for every model, the time-average number in flight equals throughput
// × mean latency (Little's law) within 1%, and the device's InFlight always matches the
// submitter's own count.
func TestLittlesLaw(t *testing.T) {
	for _, m := range models() {
		t.Run(m.name, func(t *testing.T) {
			_, g := m.load(1)
			g.run(m.win/10, m.win)
			l, lw := g.meanInFlight(), g.iops()*g.meanLat()/1e9
			t.Logf("L=%.3f λ=%.0f/s W=%v (%d completions)", l, g.iops(), sim.Time(g.meanLat()), g.done)
			if g.done < 1000 {
				t.Fatalf("only %d completions in the window", g.done)
			}
			if !within(l, lw, 0.01) {
				t.Errorf("mean in flight %.4f, throughput × mean latency %.4f: off by more than 1%%", l, lw)
			}
			if g.badInFlight != 0 {
				t.Errorf("InFlight() disagreed with accepted-minus-completed %d times", g.badInFlight)
			}
		})
	}
}

// TestDeterministicTrace: the same seed gives the same completion trace bit for bit;
// another seed gives another trace.
func TestDeterministicTrace(t *testing.T) {
	for _, m := range models() {
		t.Run(m.name, func(t *testing.T) {
			trace := func(seed uint64) [3]uint64 {
				eng, g := m.load(seed)
				g.run(0, m.win/5)
				return [3]uint64{g.h.sum, uint64(g.done), eng.Fired()}
			}
			a, b := trace(7), trace(7)
			if d := gocmp.Diff(a, b); d != "" {
				t.Fatalf("same seed, different traces (-first +second):\n%s", d)
			}
			if m.seq {
				return // nothing random: seeds cannot differ
			}
			if c := trace(8); c[0] == a[0] {
				t.Fatalf("seeds 7 and 8 gave the same trace hash %#x", a[0])
			}
		})
	}
}

// TestNoAllocSteadyState: once warm, running a model allocates nothing per command.
func TestNoAllocSteadyState(t *testing.T) {
	for _, m := range models() {
		t.Run(m.name, func(t *testing.T) {
			eng, g := m.load(1)
			g.run(0, m.win/20)
			step := m.win / 2000
			before := g.done
			allocs := testing.AllocsPerRun(50, func() {
				g.winEnd += step
				eng.RunUntil(g.winEnd)
			})
			if g.done == before {
				t.Fatal("no completions while measuring")
			}
			if allocs != 0 {
				t.Errorf("%v allocations per run of %v (%d completions in all)", allocs, step, g.done-before)
			}
		})
	}
}

// TestPresetsValid: every preset passes its own validation.
func TestPresetsValid(t *testing.T) {
	for name, err := range map[string]error{
		"NullBlkParams":     device.NullBlkParams().Validate(),
		"ScsiDebugParams":   device.ScsiDebugParams().Validate(),
		"AzureP30Params":    device.AzureP30Params().Validate(),
		"ExampleSSDParams":  device.ExampleSSDParams().Validate(),
		"Cheetah15K7Params": device.Cheetah15K7Params().Validate(),
		"Cheetah15K3Params": device.Cheetah15K3Params().Validate(),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestInvalidParams: constructors reject bad parameters with an error naming the field.
func TestInvalidParams(t *testing.T) {
	eng := sim.NewEngine()
	null := func(f func(*device.NullParams)) error {
		p := device.NullBlkParams()
		f(&p)
		_, err := device.NewNull(eng, p)
		return err
	}
	thr := func(f func(*device.ThrottledParams)) error {
		p := device.AzureP30Params()
		f(&p)
		_, err := device.NewThrottled(eng, p)
		return err
	}
	ssd := func(f func(*device.SSDParams)) error {
		p := device.ExampleSSDParams()
		f(&p)
		_, err := device.NewSSD(eng, p)
		return err
	}
	hdd := func(f func(*device.HDDParams)) error {
		p := device.Cheetah15K7Params()
		f(&p)
		_, err := device.NewHDD(eng, p)
		return err
	}
	host := func(f func(*device.HostParams)) error {
		p := device.HostParams{Name: "h", CanQueue: 1}
		f(&p)
		_, err := device.NewHost(eng, p)
		return err
	}
	for _, tc := range []struct {
		name  string
		err   error
		field string
	}{
		{"null/negative-latency", null(func(p *device.NullParams) { p.CompletionNsec = -1 }), "CompletionNsec"},
		{"null/negative-max-queue", null(func(p *device.NullParams) { p.MaxQueue = -1 }), "MaxQueue"},
		{"null/negative-mbps", null(func(p *device.NullParams) { p.MBps = -5 }), "MBps"},
		{"null/busy-probability-1", null(func(p *device.NullParams) { p.BusyProbability = 1 }), "BusyProbability"},
		{"null/busy-status-accepted", null(func(p *device.NullParams) { p.BusyProbability = 0.1 }), "BusyStatus"},
		{"throttled/zero-iops", thr(func(p *device.ThrottledParams) { p.IOPS = 0 }), "IOPS"},
		{"throttled/tiny-iops", thr(func(p *device.ThrottledParams) { p.IOPS = 1e-300 }), "IOPS"},
		{"throttled/tiny-bandwidth", thr(func(p *device.ThrottledParams) { p.BandwidthBytesPerSec = 1e-300 }), "BandwidthBytesPerSec"},
		{"throttled/zero-burst", thr(func(p *device.ThrottledParams) { p.IOPSBurst = 0 }), "IOPSBurst"},
		{"throttled/zero-bandwidth", thr(func(p *device.ThrottledParams) { p.BandwidthBytesPerSec = 0 }), "BandwidthBytesPerSec"},
		{"throttled/zero-bw-burst", thr(func(p *device.ThrottledParams) { p.BandwidthBurstBytes = 0 }), "BandwidthBurstBytes"},
		{"throttled/negative-unit", thr(func(p *device.ThrottledParams) { p.IOPSUnitBytes = -1 }), "IOPSUnitBytes"},
		{"throttled/negative-latency", thr(func(p *device.ThrottledParams) { p.BaseLatency = -sim.Millisecond }), "BaseLatency"},
		{"throttled/negative-outstanding", thr(func(p *device.ThrottledParams) { p.MaxOutstanding = -1 }), "MaxOutstanding"},
		{"ssd/zero-units", ssd(func(p *device.SSDParams) { p.ParallelUnits = 0 }), "ParallelUnits"},
		{"ssd/negative-overhead", ssd(func(p *device.SSDParams) { p.ControllerOverhead = -1 }), "ControllerOverhead"},
		{"ssd/negative-read-latency", ssd(func(p *device.SSDParams) { p.ReadLatency = -1 }), "ReadLatency"},
		{"ssd/negative-write-latency", ssd(func(p *device.SSDParams) { p.WriteLatency = -1 }), "WriteLatency"},
		{"ssd/zero-chunk", ssd(func(p *device.SSDParams) { p.ChunkBytes = 0 }), "ChunkBytes"},
		{"ssd/zero-internal", ssd(func(p *device.SSDParams) { p.InternalBytesPerSec = 0 }), "InternalBytesPerSec"},
		{"ssd/zero-link", ssd(func(p *device.SSDParams) { p.LinkBytesPerSec = 0 }), "LinkBytesPerSec"},
		{"hdd/zero-rpm", hdd(func(p *device.HDDParams) { p.RPM = 0 }), "RPM"},
		{"hdd/zero-capacity", hdd(func(p *device.HDDParams) { p.CapacityBytes = 0 }), "CapacityBytes"},
		{"hdd/zero-track-to-track", hdd(func(p *device.HDDParams) { p.TrackToTrackSeek = 0 }), "TrackToTrackSeek"},
		{"hdd/average-below-t2t", hdd(func(p *device.HDDParams) { p.AverageSeek = 100 * sim.Microsecond }), "AverageSeek"},
		{"hdd/full-below-average", hdd(func(p *device.HDDParams) { p.FullStrokeSeek = 3 * sim.Millisecond }), "FullStrokeSeek"},
		{"hdd/average-unreachable", hdd(func(p *device.HDDParams) { p.AverageSeek = 6 * sim.Millisecond }), "AverageSeek"},
		{"hdd/negative-write-extra", hdd(func(p *device.HDDParams) { p.WriteSeekExtra = -1 }), "WriteSeekExtra"},
		{"hdd/zero-inner-rate", hdd(func(p *device.HDDParams) { p.InnerBytesPerSec = 0 }), "InnerBytesPerSec"},
		{"hdd/outer-below-inner", hdd(func(p *device.HDDParams) { p.OuterBytesPerSec = 1e6 }), "OuterBytesPerSec"},
		{"hdd/zero-zones", hdd(func(p *device.HDDParams) { p.Zones = 0 }), "Zones"},
		{"hdd/negative-overhead", hdd(func(p *device.HDDParams) { p.CommandOverhead = -1 }), "CommandOverhead"},
		{"hdd/cache-without-size", hdd(func(p *device.HDDParams) { p.WriteCache, p.WriteCacheBytes = true, 0 }), "WriteCacheBytes"},
		{"hdd/zero-interface", hdd(func(p *device.HDDParams) { p.InterfaceBytesPerSec = 0 }), "InterfaceBytesPerSec"},
		{"hdd/negative-max-queue", hdd(func(p *device.HDDParams) { p.MaxQueue = -1 }), "MaxQueue"},
		{"hdd/negative-aging", hdd(func(p *device.HDDParams) { p.AgingLimit = -1 }), "AgingLimit"},
		{"host/zero-can_queue", host(func(p *device.HostParams) { p.CanQueue = 0 }), "CanQueue"},
		{"host/negative-cost", host(func(p *device.HostParams) { p.CommandCost = -1 }), "CommandCost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatalf("no error, want one naming %s", tc.field)
			}
			if !strings.Contains(tc.err.Error(), tc.field+" ") || !strings.Contains(tc.err.Error(), "out of range") && !strings.Contains(tc.err.Error(), "must be") {
				t.Fatalf("error %q does not name field %s with its range", tc.err, tc.field)
			}
		})
	}
}

// TestSubmitMisusePanics: malformed commands are programming errors.
func TestSubmitMisusePanics(t *testing.T) {
	eng := sim.NewEngine()
	d := must(device.NewNull(eng, device.NullBlkParams()))
	done := device.CompleterFunc(func(*device.Command, sim.Time) {})
	for _, tc := range []struct {
		name string
		cmd  device.Command
	}{
		{"nil-done", device.Command{Length: 4096}},
		{"zero-length", device.Command{Done: done}},
		{"negative-offset", device.Command{Offset: -1, Length: 4096, Done: done}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			d.Submit(&tc.cmd)
		})
	}
}
