package setup_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/setup"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fieldWords are the words a rejection must contain at least one of: a --set key, a
// device or host kind, a description field (kernel, cpus, config), or the
// "parameter" / "key=value" wording of a malformed description. An error naming none
// of them does not tell the user what to fix.
func fieldWords() []string {
	w := []string{"kernel", "cpus", "config", "parameter", "key=value", "--device", "--host", "description", "queue_depth", "nr_requests"}
	for _, k := range setup.Keys() {
		w = append(w, k.Name)
	}
	w = append(w, setup.DeviceKinds()...)
	return append(w, setup.HostKinds()...)
}

// checkRejection fails t unless err is a setup error naming a field.
func checkRejection(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "setup: ") {
		t.Fatalf("error without the setup: prefix: %q", msg)
	}
	for _, w := range fieldWords() {
		if strings.Contains(msg, w) {
			return
		}
	}
	t.Fatalf("error names no field, key or parameter: %q", msg)
}

// checkResolved fails t unless a resolved machine is a valid stack.Config whose
// settings list has a value and a source for every key.
func checkResolved(t *testing.T, r *setup.Resolved) {
	t.Helper()
	if err := r.Config.Validate(); err != nil {
		t.Fatalf("resolved config fails stack Validate: %v", err)
	}
	if len(r.LUNs) != len(r.Config.LUNs) || len(r.Capacity) != len(r.LUNs) {
		t.Fatalf("%d LUN names, %d capacities for %d LUNs", len(r.LUNs), len(r.Capacity), len(r.Config.LUNs))
	}
	for _, s := range r.Settings {
		if s.Source == "" {
			t.Fatalf("setting %s has no source", s.Key)
		}
	}
}

// FuzzParseConfig: any --config text either fails with an error naming the file
// (and line or key), or gives a Description that round-trips through EncodeTOML and
// resolves (or is rejected with a field-naming error). Never a panic.
// Seeds: setup/testdata/fuzz/FuzzParseConfig and the ones below.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("kernel = \"5.17\"\ncpus = 16\ndevices = [\"cloud iops=5000 mbps=200\"]\nset = [\"queue/nr_requests=56\", \"device/queue_depth=15\"]\n"))
	f.Add([]byte("kernel = \"6.1\"\ncpus = 2\ndevices = [\"null_blk completion_nsec=50000 irqmode=2\"]\nset = [\"queue/nr_requests=16\"]\n"))
	f.Add([]byte("host = \"generic can_queue=128 nr_hw_queues=2\"\ndevices = [\"hdd model=cheetah-15k3 tcq=1\", \"ssd\"]\n"))
	f.Add([]byte("cpus = -1\n"))
	f.Add([]byte("nr_requests = 5\n"))
	f.Add([]byte("set = [\"tags\"]\n"))
	f.Add([]byte("[machine]\ncpus = 4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := setup.ParseConfig(data, "fuzz.toml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "setup: config fuzz.toml") {
				t.Fatalf("config error does not name the file: %q", err)
			}
			return
		}
		r, err := setup.ResolveLayers(l)
		if err != nil {
			checkRejection(t, err)
		} else {
			checkResolved(t, r)
		}
		b, err := l.Desc.EncodeTOML()
		if err != nil {
			return // e.g. invalid UTF-8 in a string: nothing to round-trip
		}
		again, err := setup.ParseConfig(b, "again.toml")
		if err != nil {
			t.Fatalf("EncodeTOML output does not parse: %v\n%s", err, b)
		}
		if diff := cmp.Diff(l.Desc, again.Desc, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}

// FuzzResolve drives the --kernel, --cpus, --host, --device and --set parsers: any
// input resolves to a valid stack.Config or is rejected with a setup error naming
// the key, parameter or field. Never a panic. The set argument holds several
// assignments separated by newlines, as repeated --set flags.
// Seeds: setup/testdata/fuzz/FuzzResolve and the ones below.
func FuzzResolve(f *testing.F) {
	f.Add("", 0, "", "", "")
	f.Add("5.17", 16, "", "cloud", "queue/nr_requests=56\ndevice/queue_depth=15")
	f.Add("", 2, "", "scsi_debug delay=0 no_rwlock=1 host_max_queue=192 submit_queues=2", "")
	f.Add("", 16, "", "modprobe scsi_debug scsi_debug.max_queue=64 max_luns=2 submit_queues=32", "tags=shared")
	f.Add("", 8, "", "null_blk completion_nsec=200000 irqmode=2 hw_queue_depth=32 submit_queues=4 shared_tags=1 nr_devices=2 shared_tag_bitmap=1 no_sched=1 max_sectors=256", "")
	f.Add("", 0, "generic can_queue=128 nr_hw_queues=2", "hdd model=cheetah-15k3 tcq=1 aging_ms=250", "host/host_tagset=1\nhost/cmd_per_lun=32")
	f.Add("6.8", 4, "storvsc storvsc_max_hw_queues=2", "cloud iops=500 latency_us=-1", "queue/scheduler=[mq-deadline]")
	f.Add("4.14", -3, "storvsc", "scsi_debug", "device/queue_depth=1000")
	f.Add("", 0, "", "ssd parallel_units=0", "queue/nr_requests=4096\nera/map_queues=modulo")
	f.Fuzz(func(t *testing.T, kernel string, cpus int, host, device, set string) {
		d := setup.Description{Kernel: kernel, CPUs: cpus, Host: host}
		if device != "" {
			d.Devices = strings.Split(device, "\n")
		}
		if set != "" {
			d.Set = strings.Split(set, "\n")
		}
		r, err := d.Resolve()
		if err != nil {
			checkRejection(t, err)
			return
		}
		checkResolved(t, r)
		if strings.Contains(r.Explain(), "%!") {
			t.Fatalf("Explain has a formatting error:\n%s", r.Explain())
		}
	})
}
