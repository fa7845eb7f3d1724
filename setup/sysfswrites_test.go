package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// TestSysfsWritesKey: run/sysfs_writes fills stack.Config.SysfsWrites in order; a
// malformed write names its position and the expected shape, and a write the stack
// refuses is reported with its field.
func TestSysfsWritesKey(t *testing.T) {
	dev := []string{"null_blk irqmode=2 completion_nsec=2000000"}
	ms := sim.Millisecond
	for _, tc := range []struct {
		name, set string
		want      []stack.SysfsWrite
		err       string
	}{
		{"unset", "", nil, ""},
		{"switch-and-back", "run/sysfs_writes=10ms queue/scheduler=mq-deadline, 20ms 0 queue/scheduler=none",
			[]stack.SysfsWrite{{At: 10 * ms, Attr: "queue/scheduler", Value: "mq-deadline"}, {At: 20 * ms, Attr: "queue/scheduler", Value: "none"}}, ""},
		{"nr-requests", "run/sysfs_writes=1s queue/nr_requests=8", []stack.SysfsWrite{{At: sim.Second, Attr: "queue/nr_requests", Value: "8"}}, ""},
		{"no-time", "run/sysfs_writes=queue/scheduler=none", nil, "want \"AT [LUN] ATTR=VALUE\""},
		{"bad-time", "run/sysfs_writes=soon queue/scheduler=none", nil, "want a duration"},
		{"no-value", "run/sysfs_writes=1ms queue/scheduler", nil, "want ATTR=VALUE"},
		{"bad-lun", "run/sysfs_writes=1ms 5 queue/scheduler=none", nil, "SysfsWrites[0].LUN 5 out of range"},
		{"bad-attr", "run/sysfs_writes=1ms queue/iostats=0", nil, "not one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var set []string
			if tc.set != "" {
				set = []string{tc.set}
			}
			r, err := Description{Devices: dev, Set: set}.Resolve()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.Config.SysfsWrites); diff != "" {
				t.Errorf("SysfsWrites (-want +got):\n%s", diff)
			}
		})
	}
}
