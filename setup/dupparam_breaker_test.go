package setup

import (
	"strings"
	"testing"
)

// TestModuleParamTwiceWarns: a module parameter given twice (scsi_debug delay=1
// delay=2) was taken silently, the last value winning as the kernel's parse_args
// does (it sets each key=value in turn). It is still the last that wins, but the run
// now says so: one warning naming the parameter, both values and the winner. A
// parameter given once does not warn; a --host parameter twice warns too.
func TestModuleParamTwiceWarns(t *testing.T) {
	for _, tt := range []struct {
		d    Description
		want string // "" = no repeat warning
	}{
		{Description{Devices: []string{"scsi_debug delay=1 delay=2"}}, "scsi_debug delay given 2 times (1, then 2): the last, delay=2, wins"},
		{Description{Devices: []string{"null_blk irqmode=1 irqmode=2 irqmode=0"}}, "null_blk irqmode given 3 times (1, then 2, then 0): the last, irqmode=0, wins"},
		{Description{Devices: []string{"scsi_debug delay=1 max_queue=64"}}, ""},
		{Description{Devices: []string{"cloud"}, Host: "storvsc storvsc_ringbuffer_size=4096 storvsc_ringbuffer_size=8192"}, "storvsc storvsc_ringbuffer_size given 2 times"},
	} {
		r, err := tt.d.Resolve()
		if err != nil {
			t.Fatalf("%v: %v", tt.d, err)
		}
		var got []string
		for _, w := range r.Warnings {
			if strings.Contains(w, "given") && strings.Contains(w, "parse_args") {
				got = append(got, w)
			}
		}
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("%v: warned %q", tt.d, got)
		case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%v: warnings %q, want one containing %q", tt.d, r.Warnings, tt.want)
		}
	}
}
