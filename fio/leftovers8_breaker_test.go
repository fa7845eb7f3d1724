package fio

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBSSplitAsFio: bssplit= as fio 3.33's split_parse_ddir reads it. A share of
// 0 is atoi's 0, which it stores as "none given" (-1U): bssplit=4k/0 is bs=4k,
// and "4k/50:8k/0" gives 8k the other 50 %; both used to be refused ("add up to
// 0, want 100"). fio stops at an empty entry, so "4k/50::8k/50" is 4k alone
// there (the model read both), and a fractional share is read by atoi.
func TestBSSplitAsFio(t *testing.T) {
	for _, tt := range []struct {
		name, opt string
		want      []BSSplit
		err       string // "" = accepted
	}{
		{"R07/bssplit-4k-slash-0", "bssplit=4k/0", []BSSplit{{4096, 100}}, ""},
		{"one entry no share", "bssplit=4k", []BSSplit{{4096, 100}}, ""},
		{"zero share takes the rest", "bssplit=4k/50:8k/0", []BSSplit{{4096, 50}, {8192, 50}}, ""},
		{"two zero shares split the rest", "bssplit=4k/0:8k/0", []BSSplit{{4096, 50}, {8192, 50}}, ""},
		{"zero share after 100", "bssplit=4k/100:8k/0", []BSSplit{{4096, 100}, {8192, 0}}, ""},
		{"plain split", "bssplit=4k/25:64k/75", []BSSplit{{4096, 25}, {65536, 75}}, ""},
		{"trailing colon", "bssplit=4k/25:64k/75:", []BSSplit{{4096, 25}, {65536, 75}}, ""},
		{"empty entry inside", "bssplit=4k/50::8k/50", nil, `empty entry: fio 3.33 stops reading the split there (options.c split_parse_ddir) and ignores "8k/50"`},
		{"leading colon", "bssplit=:4k/100", nil, `ignores "4k/100"`},
		{"fractional share", "bssplit=4k/33.5:8k/66.5", nil, `fractional percentage "33.5": fio 3.33 reads it with atoi (options.c split_parse_ddir), so it would use 33`},
		{"empty value", "bssplit=", nil, "empty split"},
		{"over 100", "bssplit=4k/60:8k/60", nil, "add up to 120"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := parseOption(t, tt.opt, tt.err)
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, s.BSSplit); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestStartDelayRange: startdelay=LO-HI is a range in fio 3.33 (off1 and off2 of
// the option; fixup_options draws each job's delay with rand_between). It used to
// be refused as an unknown time suffix "-5".
func TestStartDelayRange(t *testing.T) {
	type got struct{ Lo, Hi time.Duration }
	for _, tt := range []struct {
		name, opt string
		want      got
		err       string
	}{
		{"R07/startdelay-1-5", "startdelay=1-5", got{time.Second, 5 * time.Second}, ""},
		{"colon range", "startdelay=1:5", got{time.Second, 5 * time.Second}, ""},
		{"comma range", "startdelay=1,5", got{time.Second, 5 * time.Second}, ""},
		{"units", "startdelay=500ms-2s", got{500 * time.Millisecond, 2 * time.Second}, ""},
		{"same ends", "startdelay=3-3", got{3 * time.Second, 0}, ""},
		{"one value", "startdelay=2", got{2 * time.Second, 0}, ""},
		{"arithmetic", "startdelay=(1+2)", got{3 * time.Second, 0}, ""},
		{"reversed", "startdelay=5-1", got{}, "range 5s-1s is reversed"},
		{"three parts", "startdelay=1-2-3", got{}, `drops "3" without a word`},
		{"negative", "startdelay=-1", got{}, "negative"},
		{"bad high", "startdelay=1-x", got{}, `high delay "x"`},
		{"paren with dash", "startdelay=(5-1)", got{}, "even inside parentheses"},
		{"too wide for fio", "startdelay=0-2h", got{}, "fio's rand_between draws the span as a 32-bit number of microseconds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := parseOption(t, tt.opt, tt.err)
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, got{s.StartDelay, s.StartDelayHigh}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
