package device_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestSSDQueueDepthScaling: IOPS grow linearly with queue depth up to the number of
// parallel units, then stay flat (the media units are the bottleneck).
func TestSSDQueueDepthScaling(t *testing.T) {
	p := device.SSDParams{
		Name: "ssd", ParallelUnits: 8, ControllerOverhead: sim.Microsecond,
		ReadLatency: 80 * sim.Microsecond, WriteLatency: 20 * sim.Microsecond,
		ChunkBytes: 16 << 10, InternalBytesPerSec: 4e9, LinkBytesPerSec: 4e9,
	}
	iops := map[int]float64{}
	for _, qd := range []int{1, 2, 4, 8, 16, 32, 64} {
		eng := sim.NewEngine()
		d, err := device.NewSSD(eng, p)
		if err != nil {
			t.Fatal(err)
		}
		g := newLoad(eng, d, qd, 1)
		g.run(10*sim.Millisecond, sim.Second)
		iops[qd] = g.iops()
	}
	t.Logf("4k random read IOPS by queue depth: %v", iops)
	for _, tc := range []struct {
		name string
		qd   int
		want float64
		tol  float64
	}{
		{"qd2-doubles", 2, 2 * iops[1], 0.02},
		{"qd4-x4", 4, 4 * iops[1], 0.03},
		{"qd8-x8", 8, 8 * iops[1], 0.05},
		{"qd16-flat", 16, iops[8], 0.05},
		{"qd32-flat", 32, iops[16], 0.01},
		{"qd64-flat", 64, iops[16], 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !within(iops[tc.qd], tc.want, tc.tol) {
				t.Errorf("QD%d: %.0f IOPS, want %.0f ± %.0f%%", tc.qd, iops[tc.qd], tc.want, 100*tc.tol)
			}
		})
	}
}

// TestSSDSRP002: the SRP target preset reproduces the two limits it was derived from
// (source 002): ~142.7K commands/s for unmergeable 4 KiB I/O, and 2.41 GB/s once
// requests are merged into large commands — so merging matters.
func TestSSDSRP002(t *testing.T) {
	for _, tc := range []struct {
		name     string
		op       device.Op
		size     int64
		wantIOPS float64 // 0 = skip
		wantBps  float64 // 0 = skip
	}{
		{"002/randread-4k-command-rate", device.OpRead, 4096, 1e9 / 7000, 0},
		{"002/randwrite-4k-command-rate", device.OpWrite, 4096, 1e9 / 7000, 0},
		{"002/merged-128k-read-link-bound", device.OpRead, 128 << 10, 0, 2.41e9},
		{"002/merged-512k-write-link-bound", device.OpWrite, 512 << 10, 0, 2.41e9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := sim.NewEngine()
			d, err := device.NewSSD(eng, device.ExampleSSDParams())
			if err != nil {
				t.Fatal(err)
			}
			g := newLoad(eng, d, 256, 1)
			g.op, g.size, g.span = tc.op, tc.size, 1<<40
			g.run(10*sim.Millisecond, 200*sim.Millisecond)
			if tc.wantIOPS > 0 && !within(g.iops(), tc.wantIOPS, 0.01) {
				t.Errorf("IOPS %.0f, want %.0f ± 1%%", g.iops(), tc.wantIOPS)
			}
			if tc.wantBps > 0 && !within(g.bps(), tc.wantBps, 0.01) {
				t.Errorf("bandwidth %.4g, want %.4g ± 1%%", g.bps(), tc.wantBps)
			}
		})
	}
}

func TestSSDMaxQueue(t *testing.T) {
	p := device.ExampleSSDParams()
	p.MaxQueue = 10
	eng := sim.NewEngine()
	d, _ := device.NewSSD(eng, p)
	g := newLoad(eng, d, 20, 1)
	g.run(sim.Millisecond, 10*sim.Millisecond)
	if g.maxIn != 10 || g.busy[device.Busy] == 0 {
		t.Fatal(fmt.Sprintf("peak in flight %d (want 10), busy answers %v", g.maxIn, g.busy))
	}
}
