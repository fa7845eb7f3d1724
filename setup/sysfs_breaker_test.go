package setup

import (
	"strings"
	"testing"
)

// TestRealSysfsNotUnknown: a 6.1 queue attribute the model does not simulate
// (rq_affinity, nomerges, ...) and the kernel's other schedulers (bfq, kyber)
// were called unknown or merely out of range; they are refused as not simulated.
func TestRealSysfsNotUnknown(t *testing.T) {
	for _, tt := range []struct{ name, set, want string }{
		{"rq_affinity", "queue/rq_affinity=2", "setup: flags: queue/rq_affinity is a sysfs attribute of /sys/block/DEV/queue/ (6.1 block/blk-sysfs.c) that the model does not simulate; allowed: "},
		{"nomerges", "queue/nomerges=2", "queue/nomerges is a sysfs attribute"},
		{"made-up", "queue/bogus=1", `unknown key "queue/bogus"; allowed: `},
		{"bfq", "queue/scheduler=bfq", "queue/scheduler=bfq: bfq is a kernel I/O scheduler the model does not simulate; allowed: none, mq-deadline, default"},
		{"kyber bracketed", "queue/scheduler=[kyber]", "kyber is a kernel I/O scheduler the model does not simulate"},
		{"made-up scheduler", "queue/scheduler=cfq", "queue/scheduler=cfq: allowed: none, mq-deadline, default"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ResolveLayers(Layer{Name: "flags", Desc: Description{Set: []string{tt.set}}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
