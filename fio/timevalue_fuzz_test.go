package fio

import (
	"testing"
	"time"
)

// FuzzTimeValue: parseDuration never panics and, when it accepts a value, returns
// a duration in [0, MaxDuration], whatever the arithmetic and units.
func FuzzTimeValue(f *testing.F) {
	for _, s := range []string{"60", "0.2s", "(2m+30s)", "(1500ms)", "(1k)", "(9999999999999d)",
		"(1-2)", "(2^62*1s)", "((((1))))", "(0x10s)", "(-(-5))", "(5%0)", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, def := range []time.Duration{time.Second, time.Millisecond, time.Microsecond} {
			d, err := parseDuration(s, def)
			if err == nil && (d < 0 || d > MaxDuration) {
				t.Fatalf("parseDuration(%q, %v) = %v, outside [0, %v]", s, def, d, MaxDuration)
			}
		}
	})
}
