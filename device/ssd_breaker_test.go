package device_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestSSDBoundsBreaker checks that SSD parameters which would take unbounded memory
// (one free time per unit) or one chunk per byte are refused with the field and
// its range, before any allocation.
func TestSSDBoundsBreaker(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *device.SSDParams)
		want string
	}{
		{"units-huge", func(p *device.SSDParams) { p.ParallelUnits = 1 << 40 }, "ParallelUnits 1099511627776 out of range [1, 65536]"},
		{"units-max", func(p *device.SSDParams) { p.ParallelUnits = 1 << 16 }, ""},
		{"chunk-below-sector", func(p *device.SSDParams) { p.ChunkBytes = 1 }, "ChunkBytes 1 out of range [512, inf)"},
		{"chunk-sector", func(p *device.SSDParams) { p.ChunkBytes = 512 }, ""},
		// a per-command time near MaxInt64 saturated the clock: queued commands all
		// completed at the same instant
		{"controller-max-int", func(p *device.SSDParams) { p.ControllerOverhead = 1<<63 - 1 }, "ControllerOverhead 2562047h47m16.854775807s out of range [0, 1h0m0s]"},
		{"controller-an-hour", func(p *device.SSDParams) { p.ControllerOverhead = device.MaxCommandTime }, ""},
		{"read-latency-huge", func(p *device.SSDParams) { p.ReadLatency = device.MaxCommandTime + 1 }, "ReadLatency 1h0m0.000000001s out of range [0, 1h0m0s]"},
		{"write-latency-huge", func(p *device.SSDParams) { p.WriteLatency = 1 << 62 }, "WriteLatency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := device.ExampleSSDParams()
			tc.edit(&p)
			_, err := device.NewSSD(sim.NewEngine(), p)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("NewSSD: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewSSD: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestSSDUnitChoiceBreaker checks the unit heap picks as a scan of the units would:
// the earliest free unit, the lowest-numbered among equals. Two units, 1-chunk
// commands submitted at once: the first two start at once, the third waits for
// the first unit.
func TestSSDUnitChoiceBreaker(t *testing.T) {
	eng := sim.NewEngine()
	p := device.SSDParams{Name: "t", ParallelUnits: 2, ChunkBytes: 4096,
		ReadLatency: 100, InternalBytesPerSec: 2 * 4096e9 / 1000, LinkBytesPerSec: 1e18}
	d, err := device.NewSSD(eng, p)
	if err != nil {
		t.Fatal(err)
	}
	var done []sim.Time
	for range 3 {
		cmd := &device.Command{Op: device.OpRead, Length: 4096,
			Done: device.CompleterFunc(func(_ *device.Command, now sim.Time) { done = append(done, now) })}
		if st := d.Submit(cmd); st != device.Accepted {
			t.Fatalf("Submit: %v", st)
		}
	}
	eng.Run()
	// Each chunk: 100 ns latency + 1000 ns on its unit, then 1 ns on the serial link.
	want := []sim.Time{1101, 1102, 2201}
	if len(done) != len(want) {
		t.Fatalf("completions %v, want %v", done, want)
	}
	for i := range want {
		if done[i] != want[i] {
			t.Fatalf("completions %v, want %v", done, want)
		}
	}
}
