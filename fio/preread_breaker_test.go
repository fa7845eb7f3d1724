package fio_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// TestPreReadIsWarned: pre_read=1 makes fio read the job's region once before the
// job starts (filesetup.c pre_read_files); the model skips that pass, so the option
// is "accepted but not modelled" (a warning, an error under --strict), where it was
// silently ignored. pre_read=0 stays silent.
func TestPreReadIsWarned(t *testing.T) {
	for _, tc := range []struct {
		opt  string
		warn bool
	}{{"pre_read=1", true}, {"pre_read=0", false}} {
		specs, err := fio.Parse(strings.NewReader("[a]\nrw=randread\nsize=1m\n"+tc.opt+"\n"), "t.fio")
		if err != nil {
			t.Fatalf("%s: %v", tc.opt, err)
		}
		w := fio.Warnings(specs)
		got := len(w) == 1 && strings.Contains(w[0], "pre_read") && strings.Contains(w[0], "skips that pass")
		if got != tc.warn || !tc.warn && len(w) != 0 {
			t.Errorf("%s: warnings %q, want a pre_read warning: %v", tc.opt, w, tc.warn)
		}
	}
	if _, err := fio.Parse(strings.NewReader("[a]\nrw=read\npre_read=maybe\n"), "t.fio"); err == nil || !strings.Contains(err.Error(), "pre_read") {
		t.Errorf("pre_read=maybe: err %v, want an error naming pre_read", err)
	}
}
