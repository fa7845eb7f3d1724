package fio

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTimeValuesAsFio: time options read the way fio's str_to_decimal and its
// arithmetic lexer read them. A fractional plain value ("0.2s") was refused as an
// "unknown time suffix"; it is still refused, but the message says what fio would
// use (strtoll stops at the '.', the default unit applies: 0.2s is 0 s, an
// unlimited runtime). Inside parentheses an operand's suffix is a time unit
// ("(1m)" was read as 1 MiB seconds, "(2s)" was refused); a value of a
// seconds option with a fraction of a second is refused because fio keeps only
// whole seconds there.
func TestTimeValuesAsFio(t *testing.T) {
	type got struct{ Runtime, RampTime, ThinkTime time.Duration }
	for _, tt := range []struct {
		name, opt string
		want      got
		err       string // "" = accepted
	}{
		{"plain seconds", "runtime=60", got{Runtime: 60 * time.Second}, ""},
		{"plain ms", "runtime=500ms", got{Runtime: 500 * time.Millisecond}, ""},
		{"arith bare is seconds", "runtime=(2*3)", got{Runtime: 6 * time.Second}, ""},
		{"arith seconds suffix", "runtime=(2s)", got{Runtime: 2 * time.Second}, ""},
		{"arith m is minutes", "runtime=(1m)", got{Runtime: time.Minute}, ""},
		{"arith mixed units", "ramp_time=(2m+30s)", got{RampTime: 150 * time.Second}, ""},
		{"arith ms to whole s", "runtime=(1500ms*2)", got{Runtime: 3 * time.Second}, ""},
		{"arith usec option bare", "thinktime=(5*2)", got{ThinkTime: 10 * time.Microsecond}, ""},
		{"arith usec option ms", "thinktime=(1ms+500us)", got{ThinkTime: 1500 * time.Microsecond}, ""},
		{"fraction of a second", "runtime=(500ms)", got{}, `arithmetic "(500ms)" is 500ms: fio keeps only the whole seconds of an arithmetic value of this option, so it would use 0s; write it without parentheses (500ms)`},
		{"1.5 s in arith", "runtime=(1500ms)", got{}, "so it would use 1s; write it without parentheses (1500ms)"},
		{"size suffix in time", "runtime=(1k)", got{}, `unknown time suffix "k"; want us, ms, s, m (minutes), h or d`},
		{"fraction in arith", "runtime=(1.5*2)", got{}, `fractional number "1.5": blkmq's arithmetic is integer only`},
		{"arith negative", "runtime=(1-2)", got{}, "negative value not allowed"},
		{"arith over a year", "runtime=(400d)", got{}, "out of range [0, 8760h0m0s]"},
		{"arith overflow", "runtime=(9999999999999d)", got{}, "arithmetic overflows 64 bits"},
		// fio 3.33's get_mult_time: us/usec, ms/msec, s, m, h, d; any other unit
		// is microseconds there ("5sec" was 5 s here, 5 µs in fio)
		{"usec", "thinktime=5usec", got{ThinkTime: 5 * time.Microsecond}, ""},
		{"msec", "runtime=5msec", got{Runtime: 5 * time.Millisecond}, ""},
		{"upper case", "runtime=5S", got{Runtime: 5 * time.Second}, ""},
		{"sec", "runtime=5sec", got{}, `unknown time suffix "sec"; want us, ms, s, m, h or d (fio's get_mult_time reads any other unit as microseconds)`},
		{"min", "ramp_time=2min", got{}, `unknown time suffix "min"`},
		{"ns", "thinktime=500ns", got{}, `unknown time suffix "ns"`},
		// a blank before the unit: get_mult_time sees no unit
		{"blank, default unit", "runtime=5 s", got{Runtime: 5 * time.Second}, ""},
		{"blank, other unit", "thinktime=5 ms", got{}, `"5 ms": fio reads the number without the unit after the blank, so it would use 5µs; write 5ms`},
		{"blank, seconds option", "runtime=500 ms", got{}, "so it would use 8m20s; write 500ms"},
		{"fractional plain 0.2s", "runtime=0.2s", got{}, `fractional value "0.2s": fio reads only the integer part and ignores the unit after the '.', so it would use 0s; give a whole number of a smaller unit (e.g. 200ms for 0.2s)`},
		{"fractional plain 1.5", "ramp_time=1.5", got{}, "so it would use 1s"},
		{"fractional usec", "thinktime=1.5ms", got{}, "so it would use 1µs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randread\n"+tt.opt+"\n"), "t.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := specs[0]
			if diff := cmp.Diff(tt.want, got{s.Runtime, s.RampTime, s.ThinkTime}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFractionalSizes: a fractional size ("bs=1.5k") was refused as an "unknown
// size suffix"; the message now says fio would use the integer part in bytes
// (get_mult_bytes finds no letter after the digits).
func TestFractionalSizes(t *testing.T) {
	for _, tt := range []struct{ name, opt, err string }{
		{"bs", "bs=1.5k", `fractional value "1.5k": fio reads only the integer part and ignores the unit after the '.', so it would use 1; give a whole number of a smaller unit (e.g. 1536 for 1.5k)`},
		{"size", "size=0.5g", "so it would use 0"},
		{"iodepth", "iodepth=2.5", "so it would use 2"},
		{"bs arith", "bs=(0.5k)", `fractional number "0.5"`},
		// a blank before the suffix: fio's get_mult_bytes sees none (bs=4 k is 4 bytes)
		{"blank before suffix", "bs=4 k", `"4 k": fio reads the number without the suffix after the blank, so it would use 4; write 4k`},
		{"blank in size", "size=1 g", "so it would use 1; write 1g"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader("[a]\nrw=randread\n"+tt.opt+"\n"), "t.fio")
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
		})
	}
}

// TestAvgTimeAsFio: bwavgtime and iopsavgtime are integers of milliseconds read as
// sizes (FIO_OPT_INT without is_time). "250ms" was taken as 250 ms; fio reads it as
// 250 × 1024² ms.
func TestAvgTimeAsFio(t *testing.T) {
	for _, tt := range []struct {
		name, opt string
		want      time.Duration
		err       string // "" = accepted
	}{
		{"plain", "bwavgtime=250", 250 * time.Millisecond, ""},
		{"size suffix", "bwavgtime=1k", 1024 * time.Millisecond, ""},
		{"arith", "bwavgtime=(250*2)", 500 * time.Millisecond, ""},
		{"zero", "bwavgtime=0", 0, "out of range [1ms, 8760h0m0s]"},
		{"past a year", "bwavgtime=1t", 0, "out of range [1ms, 8760h0m0s]"},
		{"ms suffix", "iopsavgtime=250ms", 0, `an integer of milliseconds in fio (FIO_OPT_INT: a suffix multiplies it as a size, so "250ms" is not 250ms there); give the milliseconds as a number, e.g. 250`},
		{"s suffix", "bwavgtime=1s", 0, `so "1s" is not 1s there`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randread\n"+tt.opt+"\n"), "a.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := specs[0].BWAvgTime
			if strings.HasPrefix(tt.opt, "iops") {
				got = specs[0].IOPSAvgTime
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
