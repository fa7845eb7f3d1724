package device_test

import (
	"math"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// TestScsiDebugDelayEdgesBreaker: a negative or overflowing delay never yields a
// negative completion time.
func TestScsiDebugDelayEdgesBreaker(t *testing.T) {
	tests := []struct {
		name         string
		jiffies, hz  int
		ndelay, want sim.Time
	}{
		{"one-jiffy-hz250", 1, 250, 0, 4 * sim.Millisecond},
		{"ndelay-wins", 5, 250, 1000, 1000},
		{"tiny-minus-1", -1, 250, 0, 0},
		{"tiny-minus-2", -2, 250, 0, 0},
		{"hz-0", 1, 0, 0, 0},
		{"overflow-saturates", math.MaxInt, 1, 0, math.MaxInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := device.ScsiDebugDelay(tc.jiffies, tc.ndelay, tc.hz); got != tc.want {
				t.Fatalf("ScsiDebugDelay(%d, %d, %d) = %d, want %d", tc.jiffies, tc.ndelay, tc.hz, got, tc.want)
			}
		})
	}
}
