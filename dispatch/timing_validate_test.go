package dispatch

import (
	"strings"
	"testing"
)

// TestTimingValidate: HostConfig.Validate names the Timing field out of range and
// its range, not a dump of the struct.
func TestTimingValidate(t *testing.T) {
	tests := []struct {
		name string
		t    Timing
		want string // "" = valid
	}{
		{"zero-is-defaults", Timing{}, ""},
		{"explicit-pairs", Timing{KblockdMin: 1, KblockdMax: 2, WakeupMin: 3, WakeupMax: 3, ResourceDelay: 5}, ""},
		{"kblockd-min-negative", Timing{KblockdMin: -5}, "dispatch: Timing.KblockdMin -5ns out of range [0, 0s (Timing.KblockdMax)]"},
		{"kblockd-min-over-max", Timing{KblockdMin: 5, KblockdMax: 1}, "dispatch: Timing.KblockdMin 5ns out of range [0, 1ns (Timing.KblockdMax)]"},
		{"wakeup-min-without-max", Timing{WakeupMin: 10}, "dispatch: Timing.WakeupMin 10ns set without Timing.WakeupMax: a Max of 0 selects the default pair 5µs–30µs, Min included; set both"},
		{"wakeup-max-negative", Timing{WakeupMax: -1}, "dispatch: Timing.WakeupMax -1ns out of range [0 (= default), "},
		{"resource-delay-negative", Timing{ResourceDelay: -1}, "dispatch: Timing.ResourceDelay -1ns out of range [0 (= 3ms), "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 1, Timing: tc.t}.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Fatalf("Validate: %v, want prefix %q", err, tc.want)
			}
		})
	}
}
