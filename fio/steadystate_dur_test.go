package fio_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// TestSteadyStateDur: ss_dur defaults to 0, which disables steady state detection
// in fio 3.33 (HOWTO: "The default is 0 which disables steady state detection";
// steadystate_setup skips the job), so ss= without ss_dur is accepted and not
// Active; a window of one sample (0 < ss_dur < 2 s) is refused.
func TestSteadyStateDur(t *testing.T) {
	tests := []struct {
		name, job string
		active    bool
		err       string
	}{
		{"ss-without-ss-dur", "[j]\nsteadystate=iops:0%\n", false, ""},
		{"ss-dur-zero", "[j]\nss=iops:1%\nss_dur=0\n", false, ""},
		{"ss-dur-two-seconds", "[j]\nss=iops:1%\nss_dur=2\n", true, ""},
		{"ss-dur-one-second", "[j]\nss=iops:1%\nss_dur=1\n", false, "fio: e.fio:3: [j] ss_dur=1: steadystate= needs ss_dur 0 (detection off, the default) or at least 2 s"},
		{"no-ss", "[j]\nss_dur=10\n", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader(tc.job), "e.fio")
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("Parse: %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := specs[0].SteadyState.Active(); got != tc.active {
				t.Errorf("Active() = %v, want %v", got, tc.active)
			}
		})
	}
}
