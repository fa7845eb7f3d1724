package main

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseVary: any --vary text either is rejected with an error quoting it, or gives
// a key and 1..maxSweepPoints non-empty values; a range gives strictly increasing
// integers within [LO, HI] that start at LO and end at HI (powers of two) or stay below
// HI+STEP (with a step). Never a panic or a hang.
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"queue/nr_requests=8..256", "queue/nr_requests=1..100:7", "tags=per-hctx,shared",
		"x=..", "x=5..1", "x=0..4", "x=1..9223372036854775807", "x=4611686018427387904..9223372036854775807",
		"x=-9223372036854775808..9223372036854775807:9223372036854775807", "=1,2", "x=1,,2", "x=1..10:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseVary(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--vary "+strconv.Quote(s)) {
				t.Fatalf("error does not quote the flag: %v", err)
			}
			return
		}
		if a.key == "" || len(a.values) == 0 || len(a.values) > maxSweepPoints {
			t.Fatalf("key %q with %d values", a.key, len(a.values))
		}
		_, v, _ := strings.Cut(s, "=")
		lo, hi, isRange := strings.Cut(strings.TrimSpace(v), "..")
		for i, x := range a.values {
			if strings.TrimSpace(x) == "" {
				t.Fatalf("empty value %d", i)
			}
			if !isRange {
				continue
			}
			n, err := strconv.Atoi(x)
			if err != nil {
				t.Fatalf("range value %q not an integer", x)
			}
			if i > 0 {
				if p, _ := strconv.Atoi(a.values[i-1]); n <= p {
					t.Fatalf("range values not increasing: %v", a.values)
				}
			}
			l, _ := strconv.Atoi(lo)
			if n < l {
				t.Fatalf("value %d below LO %d", n, l)
			}
		}
		if isRange && !strings.Contains(hi, ":") {
			l, _ := strconv.Atoi(lo)
			h, _ := strconv.Atoi(hi)
			if a.values[0] != strconv.Itoa(l) || a.values[len(a.values)-1] != strconv.Itoa(h) {
				t.Fatalf("range %q gives %v: want it to start at LO and end at HI", v, a.values)
			}
		}
	})
}
