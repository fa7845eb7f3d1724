package device_test

import (
	"math"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestThrottledSaturated(t *testing.T) {
	p := device.AzureP30Params()
	fastBW := p
	fastBW.BandwidthBytesPerSec = 10e9
	fastBW.BandwidthBurstBytes = 10e6
	for _, tc := range []struct {
		name     string
		p        device.ThrottledParams
		op       device.Op
		size     int64
		wantIOPS float64
		wantBps  float64
	}{
		// 16 KiB random reads (source 000's read_hogs): the IOPS cap binds.
		{"000/iops-cap-16k-randread", p, device.OpRead, 16 << 10, 5000, 5000 * 16 << 10},
		// 8 KiB writes (source 000's wal): same cap.
		{"000/iops-cap-8k-write", p, device.OpWrite, 8 << 10, 5000, 5000 * 8 << 10},
		// 1 MiB: 200 MB/s / 1 MiB = 190.7 I/O per s; the IOPS cost 4 × 190.7 < 5000, so
		// the bandwidth cap binds.
		{"000/bandwidth-cap-1m", p, device.OpRead, 1 << 20, 200e6 / (1 << 20), 200e6},
		// 512 KiB with a loose bandwidth cap: each I/O costs ceil(512/256) = 2 tokens.
		{"iops-unit-512k-costs-2", fastBW, device.OpRead, 512 << 10, 2500, 2500 * 512 << 10},
		// 256 KiB + 1 byte costs 2 tokens as well.
		{"iops-unit-256k+1-costs-2", fastBW, device.OpRead, 256<<10 + 1, 2500, 2500 * (256<<10 + 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := sim.NewEngine()
			d, err := device.NewThrottled(eng, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			g := newLoad(eng, d, 64, 1)
			g.op, g.size, g.span = tc.op, tc.size, 1<<40
			g.run(sim.Second, 10*sim.Second)
			if !within(g.iops(), tc.wantIOPS, 0.01) {
				t.Errorf("IOPS %.1f, want %.1f ± 1%%", g.iops(), tc.wantIOPS)
			}
			if !within(g.bps(), tc.wantBps, 0.01) {
				t.Errorf("bandwidth %.4g B/s, want %.4g ± 1%%", g.bps(), tc.wantBps)
			}
			if len(g.busy) != 0 {
				t.Errorf("busy answers %v without an outstanding limit", g.busy)
			}
		})
	}
}

func TestThrottledBurstAndLatency(t *testing.T) {
	eng := sim.NewEngine()
	p := device.AzureP30Params()
	d, err := device.NewThrottled(eng, p)
	if err != nil {
		t.Fatal(err)
	}
	// A full bucket admits IOPSBurst commands at once; the next waits 1/IOPS.
	var got []sim.Time
	done := device.CompleterFunc(func(c *device.Command, now sim.Time) { got = append(got, now) })
	cmds := make([]device.Command, int(p.IOPSBurst)+2)
	for i := range cmds {
		cmds[i] = device.Command{Op: device.OpRead, Length: 4096, Done: done}
		if st := d.Submit(&cmds[i]); st != device.Accepted {
			t.Fatalf("Submit %d = %v", i, st)
		}
	}
	eng.Run()
	n := int(p.IOPSBurst)
	if got[0] != p.BaseLatency || got[n-1] != p.BaseLatency {
		t.Fatalf("burst completions at %v and %v, want %v", got[0], got[n-1], p.BaseLatency)
	}
	if want := p.BaseLatency + 200*sim.Microsecond; got[n] != want || got[n+1] != want+200*sim.Microsecond {
		t.Fatalf("after the burst: %v, %v; want %v, %v", got[n], got[n+1], want, want+200*sim.Microsecond)
	}
}

func TestThrottledOutstandingLimit(t *testing.T) {
	eng := sim.NewEngine()
	p := device.AzureP30Params()
	p.MaxOutstanding = 15
	d, _ := device.NewThrottled(eng, p)
	g := newLoad(eng, d, 40, 1)
	g.run(100*sim.Millisecond, sim.Second)
	if g.maxIn != 15 {
		t.Errorf("peak in flight %d, want MaxOutstanding 15", g.maxIn)
	}
	if g.busy[device.Busy] == 0 {
		t.Error("no Busy answer with 40 submitters and MaxOutstanding 15")
	}
	if !within(g.iops(), 5000, 0.01) {
		t.Errorf("IOPS %.1f, want 5000 ± 1%%", g.iops())
	}
}

func TestThrottledStuck(t *testing.T) {
	eng := sim.NewEngine()
	d, _ := device.NewThrottled(eng, device.AzureP30Params())
	g := newLoad(eng, d, 8, 1)
	g.run(0, 100*sim.Millisecond)
	d.SetStuck(true)
	before := g.done
	g.winEnd = sim.MaxTime
	eng.RunUntil(eng.Now() + 50*sim.Millisecond)
	if g.done != before || d.InFlight() != 8 {
		t.Fatalf("stuck disk completed %d, in flight %d", g.done-before, d.InFlight())
	}
	d.SetStuck(false)
	eng.RunUntil(eng.Now() + sim.Millisecond)
	if g.done < before+8 {
		t.Fatalf("after release only %d completions, want the 8 held ones", g.done-before)
	}
}
