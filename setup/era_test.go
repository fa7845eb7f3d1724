package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
)

// eraChanges is the package documentation's era table: the value of each switch
// before and from the release that changed it.
var eraChanges = []struct {
	key, before, since, after string
}{
	{"era/sw_queue_dequeue", "one-by-one", "4.19", "by-dispatch-busy"},
	{"era/host_busy_check", "1", "5.5", "0"},
	{"era/no_budget_rerun", "1", "5.8", "0"},
	{"era/scsi_restart", "every-completion", "5.10", "counter"},
	{"era/no_sched_batch", "1", "5.10", "0"},
	{"era/run_all_hctxs_with_sq_sched", "1", "5.12", "0"},
	{"era/device_busy_counter", "1", "5.13", "0"},
	{"era/default_elevator", "single-queue", "5.13", "single-queue-or-shared-tags"},
	{"era/max_plug_requests", "16", "5.16", "32"},
	{"sbitmap/wake_scheme", "countdown (v4.10-v6.1)", "6.2", "global (v6.2+, 4f8126bb2308)"},
	{"era/map_queues", "modulo", "6.3", "group-evenly"},
	{"era/no_tag_wait_barrier", "1", "6.8", "0"},
}

// prevRelease is the release before v ("5.10" -> "5.9", "5.0" -> "4.20").
func prevRelease(v string) string {
	switch v {
	case "5.0":
		return "4.20"
	case "6.0":
		return "5.19"
	}
	maj, mn := v[:1], v[2:]
	n := 0
	for _, c := range mn {
		n = n*10 + int(c-'0')
	}
	return maj + "." + itoa(n-1)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func eraValue(t *testing.T, kernel, key string) string {
	t.Helper()
	sw, err := EraSwitches(kernel)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sw {
		if s.Key == key {
			return s.Value
		}
	}
	t.Fatalf("no switch %s", key)
	return ""
}

func TestEraTable(t *testing.T) {
	for _, c := range eraChanges {
		t.Run(c.key+"@"+c.since, func(t *testing.T) {
			if got := eraValue(t, prevRelease(c.since), c.key); got != c.before {
				t.Errorf("%s at %s = %q, want %q", c.key, prevRelease(c.since), got, c.before)
			}
			if got := eraValue(t, c.since, c.key); got != c.after {
				t.Errorf("%s at %s = %q, want %q", c.key, c.since, got, c.after)
			}
			if got := eraValue(t, "", c.key); got != c.after {
				t.Errorf("%s current = %q, want %q", c.key, got, c.after)
			}
		})
	}
	// Switches that no release changes.
	for _, k := range []struct{ key, v string }{{"era/dev_resource", "if-blocked"}, {"era/budget_map_skip", "0"}} {
		for _, rel := range []string{"4.15", "5.10", "6.1", ""} {
			if got := eraValue(t, rel, k.key); got != k.v {
				t.Errorf("%s at %q = %q, want %q", k.key, rel, got, k.v)
			}
		}
	}
	if _, err := EraSwitches("4.14"); err == nil {
		t.Error("EraSwitches(4.14): no error")
	}
}

// TestKernelReleaseForms: uname -r and git-tag forms of a release select the rules of
// their MAJOR.MINOR, and --explain says what was given; malformed ones are rejected.
func TestKernelReleaseForms(t *testing.T) {
	tests := []struct {
		in, want, note string // want "" = rejected
	}{
		{"5.17", "5.17", ""},
		{"5.17.3", "5.17", `given as "5.17.3": only MAJOR.MINOR selects the rules`},
		{"v5.17", "5.17", `given as "v5.17": only MAJOR.MINOR selects the rules`},
		{"6.1.0-57-amd64", "6.1.192", `given as "6.1.0-57-amd64" (Debian ABI 57 = 6.1.192): mainline 6.1 plus 6 modelled backports`},
		{"6.1.192", "6.1.192", `given as "6.1.192": mainline 6.1 plus 6 modelled backports (see --explain's kernel/backport rows)`},
		{"6.1.15", "6.1.15", `given as "6.1.15": mainline 6.1 plus 0 modelled backports (see --explain's kernel/backport rows)`},
		{"6.1.0-45-amd64", "", ""},
		{"6.8-rc2", "6.8", `given as "6.8-rc2": only MAJOR.MINOR selects the rules`},
		{"5.17x", "", ""},
		{"5", "", ""},
		{"v", "", ""},
		{".5.17", "", ""},
		{"4.14.300", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			r, err := Description{Kernel: tc.in}.Resolve()
			if tc.want == "" {
				if err == nil {
					t.Fatalf("accepted as %q, want an error", r.Config.Kernel)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Config.Kernel != tc.want {
				t.Errorf("Config.Kernel %q, want %q", r.Config.Kernel, tc.want)
			}
			for _, st := range r.Settings {
				if st.Key == "kernel" && (st.Value != tc.want || st.Note != tc.note) {
					t.Errorf("setting %+v, want value %q note %q", st, tc.want, tc.note)
				}
			}
		})
	}
}

// TestKernelProfileAsyncDepth: a 6.1.y release that carries d47f9717e5cf (6.1.53
// to 6.1.83) resolves to mq-deadline's word-shift async_depth with an --explain
// row for the backport and no "not expressed" warning; the revert (6.1.84) and the
// tag-reservation fix (6.1.105) move the switch on.
func TestKernelProfileAsyncDepth(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		want   dispatch.DeadlineAsyncRule
		row    string // value of the kernel/backport d47f9717e5cf row, "" = none
	}{
		{"6.1.52", dispatch.DeadlineAsyncRawPerWord, ""},
		{"6.1.53", dispatch.DeadlineAsyncWordShift, "DeadlineAsyncDepth = word-shift"},
		{"6.1.0-19-amd64", dispatch.DeadlineAsyncWordShift, "DeadlineAsyncDepth = word-shift"}, // Debian ABI 19 = 6.1.82
		{"6.1.83", dispatch.DeadlineAsyncWordShift, "DeadlineAsyncDepth = word-shift"},
		{"6.1.84", dispatch.DeadlineAsyncRawPerWord, "DeadlineAsyncDepth = word-shift"},
		{"6.1.105", dispatch.DeadlineAsyncScaled, "DeadlineAsyncDepth = word-shift"},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			r, err := Description{Kernel: tc.kernel}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Options().DeadlineAsyncDepth; got != tc.want {
				t.Errorf("DeadlineAsyncDepth = %d, want %d", got, tc.want)
			}
			row := ""
			for _, st := range r.Settings {
				if st.Key == "kernel/backport d47f9717e5cf" {
					row = st.Value
				}
			}
			if row != tc.row {
				t.Errorf("kernel/backport d47f9717e5cf row %q, want %q", row, tc.row)
			}
			for _, w := range r.Warnings {
				if strings.Contains(w, "d47f9717e5cf") {
					t.Errorf("warning %q: the backport is modelled", w)
				}
			}
		})
	}
}
