package fio

import (
	"strings"
	"testing"
)

// TestNormalDeviationRange: fio's str_random_distribution_cb takes a normal
// deviation in [0, 100) percent and refuses 100 ("normal deviation out of range
// (0 <= input < 100.0)"); 100 was accepted.
func TestNormalDeviationRange(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want string // "" = accepted
	}{
		{"normal:0", ""},
		{"normal:99.99", ""},
		{"normal:100", "normal deviation must be in [0, 100) percent"},
		{"normal:-0.1", "normal deviation must be in [0, 100) percent"},
		{"normal:1e308", "normal deviation must be in [0, 100) percent"},
		{"normal:NaN", "normal needs a finite number"},
	} {
		_, err := Parse(strings.NewReader("[a]\nrw=randread\nrandom_distribution="+tt.v+"\n"), "n.fio")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.v, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want %q", tt.v, err, tt.want)
		}
	}
}
