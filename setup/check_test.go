package setup_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/setup"
	"github.com/blkmq/blkmq/stack"
)

// TestConfigExplicitZero: a --config key given with the value that means "not set"
// is an error naming the file, line and key, as --cpus 0 is; omitting it gives the
// default.
func TestConfigExplicitZero(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"cpus-0", "kernel = \"5.17\"\ncpus = 0\n", "setup: config m.toml:2: cpus: allowed: an integer in [1, 4096]; omit the key for the default"},
		{"kernel-empty", "kernel = \"\"\n", `setup: config m.toml:1: kernel: allowed: MAJOR.MINOR in [4.15, 6.19] or "current"; omit the key for the default`},
		{"host-empty", "host = \"\"\n", `setup: config m.toml:1: host: allowed: "KIND key=value ..." (storvsc, generic); omit the key for the default`},
		{"devices-empty", "devices = []\n", `setup: config m.toml:1: devices: allowed: at least one "KIND key=value ..."; omit the key for the default`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := setup.ParseConfig([]byte(tc.toml), "m.toml")
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant  %s", err, tc.want)
			}
		})
	}
	l, err := setup.ParseConfig([]byte("kernel = \"5.17\"\n"), "m.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := setup.ResolveLayers(l)
	if err != nil || r.Config.NrCPUs != setup.DefaultCPUs {
		t.Errorf("cpus omitted: %v, NrCPUs %v, want the default %d", err, r, setup.DefaultCPUs)
	}
}

// TestResolveChecksWhatTheRunChecks: a description the resolver accepts is one the
// run accepts (stack.Check, the run's own checks), and what the run would reject is
// rejected at parse time naming the setting and why.
func TestResolveChecksWhatTheRunChecks(t *testing.T) {
	t.Run("null_blk-hw_queue_depth-10240", func(t *testing.T) {
		r, err := setup.Description{Devices: []string{"null_blk hw_queue_depth=10240"}}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if err := stack.Check(r.Config, nil); err != nil {
			t.Fatalf("resolved, then rejected by the run's check: %v", err)
		}
		if got := r.Config.Host.DefaultQueueDepth(); got != 10000 {
			t.Errorf("queue_depth %d, want 10000 (SCSI_MAX_QUEUE_DEPTH)", got)
		}
		if !strings.Contains(strings.Join(r.Warnings, "\n"), "capped at SCSI_MAX_QUEUE_DEPTH 10000") {
			t.Errorf("no warning about the cap: %q", r.Warnings)
		}
	})
	t.Run("null_blk-nr_requests-over-tags", func(t *testing.T) {
		_, err := setup.Description{Set: []string{"queue/nr_requests=256"}}.Resolve()
		want := "setup: queue/nr_requests=256: without a scheduler allowed: [1, host/can_queue 64] (driver tags only shrink; queue/scheduler is none, the kernel default here)"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant  %s", err, want)
		}
	})
}

// TestEchoedValuesClipped: a huge bad value is echoed as its first 64 bytes and its
// length, in every message that repeats a value.
func TestEchoedValuesClipped(t *testing.T) {
	big := strings.Repeat("9", 1<<20)
	tests := []struct {
		name string
		d    setup.Description
	}{
		{"set-value", setup.Description{Set: []string{"queue/nr_requests=" + big}}},
		{"set-key", setup.Description{Set: []string{big + "=1"}}},
		{"set-no-equals", setup.Description{Set: []string{big}}},
		{"device-param-value", setup.Description{Devices: []string{"null_blk hw_queue_depth=" + big}}},
		{"device-param-name", setup.Description{Devices: []string{"null_blk " + big + "=1"}}},
		{"device-kind", setup.Description{Devices: []string{big}}},
		{"host-kind", setup.Description{Host: big, Devices: []string{"cloud"}}},
		{"kernel", setup.Description{Kernel: big}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.d.Resolve()
			if err == nil {
				t.Fatal("accepted")
			}
			// The value is cut to 64 bytes plus its length; the rest of the message (the
			// allowed keys) does not depend on the value.
			if msg := err.Error(); strings.Contains(msg, big[:65]) || len(msg) > 4096 || !strings.Contains(msg, "… (") {
				t.Errorf("message of %d bytes, want the value clipped to 64 bytes and its length: %.300s", len(msg), msg)
			}
		})
	}
}
