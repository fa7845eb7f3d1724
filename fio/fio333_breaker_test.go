package fio

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFio333Options: options fio 3.33 has are refused or accepted as fio does,
// not as "unknown option". Before: bs_unaligned, unit_base, userspace_reap, nowait,
// disk_util, rwmixcycle and ~110 others were "unknown option" (some with a wrong
// "did you mean"); direct=2 and a bare "direct" were taken as true where fio
// refuses them (FIO_OPT_BOOL: a value is required, at most 1); significant_figures=20
// was ignored where fio refuses it ([1, 10]).
func TestFio333Options(t *testing.T) {
	for _, tt := range []struct {
		name, opt string
		err       string // "" = accepted
		note      string // the warning of an accepted option, "" = none
	}{
		{"bool one", "direct=1", "", ""},
		{"bool zero", "direct=0", "", "buffered I/O is not modelled"},
		{"bool two", "direct=2", `direct=2: 2 out of range [0, 1] (fio: "max value out of range: 2 (1 max)")`, ""},
		{"bool bare", "direct", `direct: a boolean option of fio needs a value (fio: "Option direct requires an argument"); write direct=1 or direct=0`, ""},
		{"bool empty", "invalidate=", "a boolean option of fio needs a value", ""},
		{"bool alias", "disable_bw=5", "5 out of range [0, 1]", ""},
		{"str_set bare", "time_based", "time_based: needs runtime > 0", ""},
		{"str_set any number", "norandommap=7", "", ""},
		{"not modelled", "bs_unaligned=1", "bs_unaligned=1: fio option not modelled by blkmq", ""},
		{"not modelled engine option", "userspace_reap=1", "fio option not modelled by blkmq", ""},
		{"not modelled unit_base", "unit_base=8", "fio option not modelled by blkmq", ""},
		{"hard deprecated", "rwmixcycle=5", `rwmixcycle=5: deprecated: fio 3.33 refuses it ("Option rwmixcycle is deprecated")`, ""},
		{"soft deprecated", "verifysort=1", "", `deprecated in fio 3.33, which prints "Option verifysort is deprecated" and ignores it; so does the model`},
		{"significant_figures in range", "significant_figures=10", "", ""},
		{"significant_figures past", "significant_figures=20", "significant_figures=20: out of range [1, 10]", ""},
		{"dedupe_percentage past", "dedupe_percentage=101", "out of range [0, 100]", ""},
		{"still unknown", "bogus_option=1", "bogus_option=1: unknown option", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randread\n"+tt.opt+"\n"), "o.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, u := range specs[0].Unmodelled {
				notes = append(notes, u.Why)
			}
			var want []string
			if tt.note != "" {
				want = []string{tt.note}
			}
			if tt.note != "" && len(notes) == 1 && strings.Contains(notes[0], tt.note) {
				notes = want
			}
			if diff := cmp.Diff(want, notes); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRWPatternsOfFio: rw= values fio 3.33 takes and the model does not are refused
// as not modelled; they were "unknown pattern".
func TestRWPatternsOfFio(t *testing.T) {
	for _, tt := range []struct{ name, v, err string }{
		{"random modifier", "randread:8", `the offset modifier ":8" of rw=randread is not modelled by blkmq (fio: a new random offset every 8 I/Os); give rw=randread alone`},
		{"sequential hole", "read:4k", `the offset modifier ":4k" of rw=read is not modelled by blkmq (fio: a hole of 4k after each I/O)`},
		{"trim", "randtrim", "rw=randtrim: trim workloads are not modelled by blkmq"},
		{"unknown", "sideways", "unknown pattern; want one of read"},
		{"unknown with colon", "sideways:8", "unknown pattern"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader("[a]\nrw="+tt.v+"\n"), "rw.fio")
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
		})
	}
}

// TestArgsDashes: fio's getopt_long_only takes -key and --key; "---rw=read" was
// taken as rw=read.
func TestArgsDashes(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		err  string // "" = accepted
	}{
		{"two dashes", []string{"--name=a", "--rw=read"}, ""},
		{"one dash", []string{"-name=a", "-rw=read"}, ""},
		{"three dashes", []string{"--name=a", "---rw=read"}, `fio: <args>:2: unrecognized option "---rw=read": give -key=value or --key=value`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseArgs(tt.args)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.err, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
