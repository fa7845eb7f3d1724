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

// TestNullBlkZoneParamsInert: null_blk's zone_size, zone_capacity, zone_nr_conv,
// zone_max_open and zone_max_active are 6.1 module parameters that act only with
// zoned=1 (refused); they were called unknown, and are now accepted without effect
// (and listed as such by --explain and the run's warnings).
func TestNullBlkZoneParamsInert(t *testing.T) {
	for _, p := range []string{"zone_size=256", "zone_capacity=128", "zone_nr_conv=1", "zone_max_open=4", "zone_max_active=4"} {
		t.Run(p, func(t *testing.T) {
			r, err := Description{Devices: []string{"null_blk " + p}}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			key := "null_blk." + strings.SplitN(p, "=", 2)[0]
			found := false
			for _, st := range r.Settings {
				if st.Key == key {
					found = true
					if !strings.Contains(st.Note, "no effect in the model") {
						t.Errorf("%s: note %q, want it marked without effect", key, st.Note)
					}
				}
			}
			if !found {
				t.Errorf("no setting %s", key)
			}
		})
	}
	if _, err := (Description{Devices: []string{"null_blk zoned=1 zone_size=256"}}).Resolve(); err == nil || !strings.Contains(err.Error(), "zoned=1: not modelled") {
		t.Errorf("zoned=1: %v, want it refused", err)
	}
}

// TestScsiDebugRealParams: 6.1 scsi_debug's zbc, zone_*, opts, poll_queues and
// medium_error_* were called unknown. Those without effect at their defaults are
// accepted (zone_* and medium_error_* act only with zbc= or an opts= bit); a value
// that would change the disk is refused as not modelled.
func TestScsiDebugRealParams(t *testing.T) {
	for _, tt := range []struct{ name, param, want string }{
		{"zbc none", "zbc=none", ""},
		{"zbc zero", "zbc=0", ""},
		{"zbc managed", "zbc=host-managed", "scsi_debug parameter zbc=host-managed: a zoned scsi_debug disk is not modelled; allowed: none, 0"},
		{"opts zero", "opts=0", ""},
		{"opts noise", "opts=1", "scsi_debug parameter opts=1: error and timeout injection (SDEBUG_OPT_*) is not modelled; allowed: 0"},
		{"poll_queues zero", "poll_queues=0", ""},
		{"poll_queues two", "poll_queues=2", "a polled hctx (REQ_POLLED I/O) is not modelled; allowed: 0"},
		{"zone size inert", "zone_size_mb=4", ""},
		{"medium error inert", "medium_error_count=10", ""},
		{"made-up", "turbo=1", `unknown scsi_debug parameter "turbo"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Description{Devices: []string{"scsi_debug " + tt.param}}.Resolve()
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
