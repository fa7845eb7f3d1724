package device_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestSSDRates: a transfer rate below 1 byte/s is refused, naming the field and the
// range (a tiny rate made the per-byte time +Inf and the completion time wrap
// negative); at the slowest accepted rate a large command completes at or before
// sim.MaxTime, never before it was submitted.
func TestSSDRates(t *testing.T) {
	tests := []struct {
		name           string
		internal, link float64
		units          int
		want           string // "" = accepted
	}{
		{"internal-1e-300", 1e-300, 2.41e9, 64, `device: ssd "example-ssd": InternalBytesPerSec 1e-300 out of range [1, inf)`},
		{"internal-half-byte", 0.5, 2.41e9, 64, `InternalBytesPerSec 0.5 out of range [1, inf)`},
		{"link-1e-300", 8e9, 1e-300, 64, `device: ssd "example-ssd": LinkBytesPerSec 1e-300 out of range [1, inf)`},
		{"link-zero", 8e9, 0, 64, `LinkBytesPerSec 0 out of range [1, inf)`},
		{"slowest-internal-many-units", 1, 2.41e9, 1 << 16, ""},
		{"slowest-link", 8e9, 1, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := device.ExampleSSDParams()
			p.InternalBytesPerSec, p.LinkBytesPerSec, p.ParallelUnits = tc.internal, tc.link, tc.units
			p.ChunkBytes = 1 << 30 // one chunk: the whole command on one unit
			eng := sim.NewEngine()
			d, err := device.NewSSD(eng, p)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("NewSSD: %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSSD: %v", err)
			}
			done := sim.Time(-1)
			cmd := &device.Command{Op: device.OpRead, Length: 1 << 30,
				Done: device.CompleterFunc(func(_ *device.Command, now sim.Time) { done = now })}
			if st := d.Submit(cmd); st != device.Accepted {
				t.Fatalf("Submit: %v", st)
			}
			eng.Run()
			if done < cmd.Submitted {
				t.Fatalf("completed at %d, before its submission at %d (wrapped)", done, cmd.Submitted)
			}
		})
	}
}
