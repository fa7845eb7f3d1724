package device_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

func TestNull(t *testing.T) {
	for _, tc := range []struct {
		name      string
		p         device.NullParams
		depth     int
		wantLat   sim.Time // every latency exactly; 0 = skip
		wantMaxIn int
		wantBusy  device.Status // status expected when full (-1 = none)
		wantBps   float64       // 0 = skip
		think     sim.Time
	}{
		{"null_blk/completion_nsec-exact", device.NullBlkParams(), 8, 10 * sim.Microsecond, 8, -1, 0, 0},
		{"scsi_debug/delay-1-jiffy-hz250", device.ScsiDebugParams(), 16, 4 * sim.Millisecond, 16, -1, 0, 0},
		{"scsi_debug/max_queue-enforced", device.ScsiDebugParams(), 300, 4 * sim.Millisecond, 192, device.HostBusy, 0, 0},
		{"max_queue-busy", device.NullParams{Name: "n", CompletionNsec: 50 * sim.Microsecond, MaxQueue: 4}, 6, 50 * sim.Microsecond, 4, device.Busy, 0, 0},
		{"delay-0", device.NullParams{Name: "n"}, 4, 0, 4, -1, 0, sim.Microsecond},
		{"null_blk/mbps-cap", device.NullParams{Name: "n", CompletionNsec: sim.Microsecond, MBps: 100}, 16, 0, 16, -1, 100 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := sim.NewEngine()
			d, err := device.NewNull(eng, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			g := newLoad(eng, d, tc.depth, 1)
			g.keepLats = tc.wantLat > 0 || tc.think > 0
			g.think = tc.think
			g.size = 64 << 10
			g.run(10*sim.Millisecond, 200*sim.Millisecond)
			if g.done == 0 {
				t.Fatal("no completions")
			}
			if g.keepLats {
				for i, l := range g.lats {
					if l != tc.wantLat {
						t.Fatalf("completion %d latency %v, want exactly %v", i, l, tc.wantLat)
					}
				}
			}
			if g.maxIn != tc.wantMaxIn {
				t.Errorf("peak in flight %d, want %d", g.maxIn, tc.wantMaxIn)
			}
			want := map[device.Status]int{}
			if tc.wantBusy >= 0 {
				want[tc.wantBusy] = g.busy[tc.wantBusy]
				if want[tc.wantBusy] == 0 {
					t.Errorf("no %v answer above max_queue", tc.wantBusy)
				}
			}
			if d := gocmp.Diff(want, g.busy); d != "" {
				t.Errorf("busy answers (-want +got):\n%s", d)
			}
			if tc.wantBps > 0 && !within(g.bps(), tc.wantBps, 0.01) {
				t.Errorf("bandwidth %.4g B/s, want %.4g ± 1%%", g.bps(), tc.wantBps)
			}
		})
	}
}

func TestNullRandomBusyAndStuck(t *testing.T) {
	eng := sim.NewEngine()
	// Cases R08-like LLD: 1% host busy, 50 µs completions.
	d, err := device.NewNull(eng, device.NullParams{Name: "lld", CompletionNsec: 50 * sim.Microsecond,
		BusyProbability: 0.01, BusyStatus: device.HostBusy, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	g := newLoad(eng, d, 32, 1)
	g.run(0, 100*sim.Millisecond)
	frac := float64(g.busy[device.HostBusy]) / float64(int64(g.busy[device.HostBusy])+g.done)
	if frac < 0.008 || frac > 0.012 {
		t.Errorf("host-busy fraction %.4f, want 0.01 ± 0.002", frac)
	}
	// Stuck: nothing completes while held; everything completes on release.
	d.SetStuck(true)
	before := g.done
	eng.RunUntil(eng.Now() + 10*sim.Millisecond)
	g.accumulate(eng.Now())
	if g.done != before || d.InFlight() != 32 {
		t.Fatalf("stuck device completed %d commands, in flight %d", g.done-before, d.InFlight())
	}
	g.winEnd = sim.MaxTime
	d.SetStuck(false)
	eng.RunUntil(eng.Now() + sim.Millisecond)
	if g.done <= before {
		t.Fatal("no completion after release")
	}
}

// TestNullRandomDelay: scsi_debug random=1 draws each delay from [0, CompletionNsec),
// completes out of submission order, and repeats bit for bit with the same seed.
func TestNullRandomDelay(t *testing.T) {
	run := func() []sim.Time {
		eng := sim.NewEngine()
		d, err := device.NewNull(eng, device.NullParams{Name: "sd", CompletionNsec: 3 * sim.Millisecond, RandomDelay: true, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		var got []sim.Time
		order := []uint64{}
		done := device.CompleterFunc(func(c *device.Command, now sim.Time) {
			got = append(got, now-c.Submitted)
			order = append(order, c.ID)
		})
		cmds := make([]device.Command, 200)
		for i := range cmds {
			cmds[i] = device.Command{Op: device.OpRead, Length: 4096, Done: done, ID: uint64(i)}
			if st := d.Submit(&cmds[i]); st != device.Accepted {
				t.Fatalf("submit %d: %v", i, st)
			}
		}
		eng.Run()
		if len(got) != len(cmds) || d.InFlight() != 0 {
			t.Fatalf("%d completions, %d in flight", len(got), d.InFlight())
		}
		inOrder := true
		for i := range order {
			inOrder = inOrder && order[i] == uint64(i)
		}
		if inOrder {
			t.Error("random delays completed in submission order")
		}
		return got
	}
	a, b := run(), run()
	var sum sim.Time
	for i, l := range a {
		if l < 0 || l >= 3*sim.Millisecond {
			t.Fatalf("latency %v outside [0, 3 ms)", l)
		}
		if l != b[i] {
			t.Fatal("not deterministic")
		}
		sum += l
	}
	if mean := sum / sim.Time(len(a)); mean < sim.Millisecond || mean > 2*sim.Millisecond {
		t.Errorf("mean latency %v, want about 1.5 ms", mean)
	}
}
