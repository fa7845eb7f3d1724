package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigRoundTrip(t *testing.T) {
	d := Description{Kernel: "5.17", CPUs: 16, Host: "storvsc storvsc_max_hw_queues=8",
		Devices: []string{"cloud iops=5000 mbps=200", "cloud iops=500"},
		Set:     []string{"queue/nr_requests=56", "device/queue_depth=15", "tags=shared"}}
	b, err := d.EncodeTOML()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, l.Desc); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, b)
	}
	a, err := d.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	c, err := ResolveLayers(l)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(summary(a), summary(c)); diff != "" {
		t.Errorf("resolved differently (-flags +config):\n%s", diff)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown-key", "kernel = \"6.1\"\nnr_requests = 56\n",
			`setup: config m.toml:2: unknown key "nr_requests"; allowed: kernel, cpus, host, devices, set`},
		{"syntax", "kernel = \"6.1\"\ncpus = = 3\n",
			`setup: config m.toml:2: expected value but found '=' instead`},
		{"kernel-unquoted", "cpus = 4\n\nkernel = 5.17 # 5.17 era\n",
			`setup: config m.toml:3: kernel: a TOML float, want a string: quote it (kernel = "5.17")`},
		{"kernel-integer", "kernel = 6\n",
			`setup: config m.toml:1: kernel: a TOML integer, want a string: quote it (kernel = "6")`},
		{"cpus-quoted", "cpus = \"4\"\n",
			`setup: config m.toml:1: cpus: a TOML string, want an integer in [1, 4096] without quotes (cpus = 4)`},
		{"devices-not-array", "devices = \"ssd\"\n",
			`setup: config m.toml:1: devices: a TOML string, want an array of quoted strings (devices = ["ssd"])`},
		{"set-numbers", "set = [1, 2]\n",
			`setup: config m.toml:1: set: a TOML array, want an array of quoted strings (set = ["queue/nr_requests=56"])`},
		{"bad-set-line", "kernel = \"6.1\"\nset = [\n  \"device/queue_depth=15\",\n  \"queue/nr_requests=9999\",\n]\n",
			`setup: config m.toml:4: queue/nr_requests=9999: allowed: an integer in [1, 2048]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseConfig([]byte(tc.text), "m.toml")
			if err == nil {
				_, err = ResolveLayers(l)
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConfigErrorLines: an error in a config file's kernel, cpus, host or devices
// value names the file and the key's line. Round 7's leftover: "cpus = -1" was
// refused as "setup: config m.toml: cpus: ..." without the line.
func TestConfigErrorLines(t *testing.T) {
	tests := []struct {
		name, text, prefix string
	}{
		{"R07/cpus-negative", "kernel = \"6.1\"\n# cpus below\ncpus = -1\n", "setup: config m.toml:3: cpus: system/nr_cpus=-1"},
		{"cpus-huge", "\ncpus = 5000\n", "setup: config m.toml:2: cpus: system/nr_cpus=5000"},
		{"cpus-after-set-mentioning-it", "set = [\"system/nr_cpus=2\"]\ncpus = -1\n", "setup: config m.toml:2: cpus: "},
		{"kernel-unknown", "\n\nkernel = \"9.9\"\n", "setup: config m.toml:3: kernel=9.9"},
		{"device-kind", "cpus = 2\ndevices = [\"floppy\"]\n", `setup: config m.toml:2: --device "floppy": unknown device kind "floppy"`},
		{"device-param", "cpus = 2\ndevices = [\n  \"null_blk hw_queue_depth=0\",\n]\n", `setup: config m.toml:3: --device "null_blk hw_queue_depth=0"`}, // the entry's line (breaker9; was the key's, 2)
		{"host-kind", "cpus = 2\nhost = \"sata\"\ndevices = [\"ssd\"]\n", `setup: config m.toml:2: --host "sata": unknown host kind "sata"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseConfig([]byte(tc.text), "m.toml")
			if err == nil {
				_, err = ResolveLayers(l)
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.prefix) {
				t.Fatalf("error %v, want it to start %q", err, tc.prefix)
			}
		})
	}
}
