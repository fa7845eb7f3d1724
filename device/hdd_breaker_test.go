package device_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestHDDBoundsBreaker checks that an HDD zone count that would allocate without
// bound, and an RPM whose revolution time rounds to 0, are refused with the field
// and its range.
func TestHDDBoundsBreaker(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *device.HDDParams)
		want string
	}{
		{"zones-huge", func(p *device.HDDParams) { p.Zones = 1 << 40 }, "Zones 1099511627776 out of range [1, 65536]"},
		{"zones-max", func(p *device.HDDParams) { p.Zones = 1 << 16 }, ""},
		{"rpm-huge", func(p *device.HDDParams) { p.RPM = math.MaxInt }, "RPM 9223372036854775807 out of range [1, 1000000]"},
		{"rpm-max", func(p *device.HDDParams) { p.RPM = 1_000_000 }, ""},
		// CommandOverhead near MaxInt64 wrapped the clock: the first Submit panicked
		// in sim ("At in the past: t=-2ns")
		{"overhead-max-int", func(p *device.HDDParams) { p.CommandOverhead = math.MaxInt64 }, "CommandOverhead 2562047h47m16.854775807s out of range [0, 1h0m0s]"},
		{"overhead-an-hour", func(p *device.HDDParams) { p.CommandOverhead = device.MaxCommandTime }, ""},
		{"full-stroke-huge", func(p *device.HDDParams) { p.FullStrokeSeek = math.MaxInt64 }, "FullStrokeSeek 2562047h47m16.854775807s out of range (AverageSeek 3.6ms, 1h0m0s]"},
		{"write-seek-extra-huge", func(p *device.HDDParams) { p.WriteSeekExtra = 1 << 62 }, "WriteSeekExtra"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := device.Cheetah15K3Params()
			tc.edit(&p)
			_, err := device.NewHDD(sim.NewEngine(), p)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("NewHDD: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewHDD: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
