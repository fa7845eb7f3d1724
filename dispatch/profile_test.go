package dispatch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sbitmap"
)

// TestKernelProfile: each profile's switches by release — mainline 6.1, the 6.1.y
// releases on either side of every backport, the Debian uname -r form of the guest
// the oracle boots, other lines (mainline rules with a note) and bad input.
func TestKernelProfile(t *testing.T) {
	type want struct {
		release    string
		wake       sbitmap.WakeScheme
		recalc     sbitmap.RecalcEra
		barrier    bool // NoTagWaitBarrier
		async      dispatch.DeadlineAsyncRule
		backports  []string
		unmodelled []string
	}
	mainline61 := want{"6.1", sbitmap.WakeCountdown, sbitmap.Recalc5_17, true, dispatch.DeadlineAsyncRawPerWord, nil, nil}
	all := []string{"4f8126bb2308", "b5fcf7871acb", "d47f9717e5cf", "5266caaf5660", "256aab46e316", "39823b47bbd4"}
	for _, tc := range []struct {
		given string
		want  want
	}{
		{"6.1", mainline61},
		{"v6.1", mainline61},
		{"6.1.15", want{"6.1.15", sbitmap.WakeCountdown, sbitmap.Recalc5_17, true, dispatch.DeadlineAsyncRawPerWord, nil, nil}},
		{"6.1.16", want{"6.1.16", sbitmap.WakeGlobal, sbitmap.Recalc6_2, true, dispatch.DeadlineAsyncRawPerWord, all[:2], nil}},
		{"6.1.52", want{"6.1.52", sbitmap.WakeGlobal, sbitmap.Recalc6_2, true, dispatch.DeadlineAsyncRawPerWord, all[:2], nil}},
		{"6.1.53", want{"6.1.53", sbitmap.WakeGlobal, sbitmap.Recalc6_2, true, dispatch.DeadlineAsyncWordShift, all[:3], nil}},
		{"6.1.60", want{"6.1.60", sbitmap.WakeGlobal, sbitmap.Recalc6_2, true, dispatch.DeadlineAsyncWordShift, all[:3], nil}},
		{"6.1.76", want{"6.1.76", sbitmap.WakeGlobal, sbitmap.Recalc6_2, true, dispatch.DeadlineAsyncWordShift, all[:3], nil}},
		{"6.1.77", want{"6.1.77", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncWordShift, all[:4], nil}},
		{"6.1.83", want{"6.1.83", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncWordShift, all[:4], nil}},
		{"6.1.84", want{"6.1.84", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncRawPerWord, all[:5], nil}},
		{"6.1.104", want{"6.1.104", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncRawPerWord, all[:5], nil}},
		{"6.1.105", want{"6.1.105", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncScaled, all, nil}},
		{"6.1.192", want{"6.1.192", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncScaled, all, nil}},
		{"6.1.0-57-amd64", want{"6.1.192", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncScaled, all, nil}},
		{"6.1.0-18-amd64", want{"6.1.76", sbitmap.WakeGlobal, sbitmap.Recalc6_2, true, dispatch.DeadlineAsyncWordShift, all[:3], nil}},
		{"6.1.0-6-cloud-amd64", want{"6.1.15", sbitmap.WakeCountdown, sbitmap.Recalc5_17, true, dispatch.DeadlineAsyncRawPerWord, nil, nil}},
		{"5.15.100", want{"5.15.100", sbitmap.WakeCountdown, sbitmap.Recalc5_17, true, dispatch.DeadlineAsyncRawPerWord, nil, nil}},
		{"6.8-rc2", want{"6.8", sbitmap.WakeGlobal, sbitmap.Recalc6_2, false, dispatch.DeadlineAsyncRawPerWord, nil, nil}},
	} {
		t.Run(tc.given, func(t *testing.T) {
			p, err := dispatch.KernelProfile(tc.given)
			if err != nil {
				t.Fatal(err)
			}
			ids := func(bs []dispatch.Backport) []string {
				var out []string
				for _, b := range bs {
					out = append(out, b.Commit)
				}
				return out
			}
			got := want{p.Release, p.WakeScheme, p.RecalcEra, p.Options.NoTagWaitBarrier, p.Options.DeadlineAsyncDepth, ids(p.Backports), ids(p.Unmodelled)}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("KernelProfile(%q) (-want +got):\n%s", tc.given, d)
			}
			o, err := dispatch.Kernel(tc.given)
			if err != nil || !cmp.Equal(o, p.Options) {
				t.Errorf("Kernel(%q) = %+v, %v; want the profile's options", tc.given, o, err)
			}
		})
	}
}

func TestKernelProfileErrors(t *testing.T) {
	for _, tc := range []struct{ given, want string }{
		{"6.1.0-45-amd64", "Debian ABI 45 has no known 6.1 stable release"},
		{"six", "want MAJOR.MINOR"},
		{"6", "want MAJOR.MINOR"},
		{"6.1.2.3", "want MAJOR.MINOR"},
		{"4.14.200", "out of range [4.15, 6.19]"},
		{"7.0", "out of range [4.15, 6.19]"},
	} {
		t.Run(tc.given, func(t *testing.T) {
			_, err := dispatch.KernelProfile(tc.given)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("KernelProfile(%q) error %v, want it to contain %q", tc.given, err, tc.want)
			}
			if _, err := dispatch.Kernel(tc.given); err == nil {
				t.Errorf("Kernel(%q) accepted", tc.given)
			}
		})
	}
}

// ExampleKernelProfile prints what Debian 12's kernel carries beyond mainline 6.1.
func ExampleKernelProfile() {
	p, err := dispatch.KernelProfile("6.1.0-57-amd64")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Release, "-", p.Note)
	for _, b := range p.Backports {
		fmt.Printf("%s %-18s = %s\n", b.Stable, b.Switch, b.Value)
	}
	// Output:
	// 6.1.192 - Debian ABI 57 = 6.1.192
	// 6.1.16 sbitmap WakeScheme = global
	// 6.1.16 sbitmap RecalcEra  = 6.2
	// 6.1.53 DeadlineAsyncDepth = word-shift
	// 6.1.77 NoTagWaitBarrier   = false
	// 6.1.84 DeadlineAsyncDepth = raw-per-word
	// 6.1.105 DeadlineAsyncDepth = scaled
}
