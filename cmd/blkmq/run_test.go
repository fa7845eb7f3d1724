package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const nullJob = "testdata/null.fio"

// nullDevice is a fast null_blk: 50 µs completions.
var nullDevice = []string{"--device", "null_blk completion_nsec=50000 irqmode=2 hw_queue_depth=32 submit_queues=2", "--cpus", "2"}

func args(a ...any) []string {
	var out []string
	for _, x := range a {
		switch v := x.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

func TestRunText(t *testing.T) {
	out, err := run(args("run", nullJob, nullDevice)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"reader: (groupid=0, jobs=1)", "  read: IOPS=", "writer: (groupid=0, jobs=1)", "  write: IOPS=",
		// fio's unit (nsec or usec) follows the latencies: both are its format
		"clat percentiles (", "Run status group 0 (all jobs):"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(v any) []string {
	m, _ := v.(map[string]any)
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// notComputed are the job keys the fio package omits because the model does not
// compute them (fio/json.go JobOutput: omitempty): fsync statistics, I/O depth
// distributions and latency-target fields.
var notComputed = map[string]bool{"sync": true, "iodepth_level": true, "iodepth_submit": true,
	"iodepth_complete": true, "latency_depth": true, "latency_target": true, "latency_percentile": true,
	"latency_window": true}

// missing returns the keys of want's object absent from got's, recursively for the
// fixed-layout objects (not the value-keyed percentile/bins maps or option maps).
func missing(path string, want, got any) []string {
	wm, ok := want.(map[string]any)
	if !ok {
		return nil
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return []string{path + " (not an object)"}
	}
	var out []string
	for _, k := range keysOf(wm) {
		switch k {
		case "percentile", "bins", "job options", "global options":
			continue
		}
		if notComputed[k] {
			continue
		}
		gv, ok := gm[k]
		if !ok {
			out = append(out, path+"/"+k)
			continue
		}
		out = append(out, missing(path+"/"+k, wm[k], gv)...)
	}
	return out
}

func TestRunJSONLayout(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fiojson", "fio-3.33-randread-libaio.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]any
	if err := json.Unmarshal(sample, &ref); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "json+"} {
		t.Run(format, func(t *testing.T) {
			out, err := run(args("run", nullJob, nullDevice, "--output-format", format)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			// Top level and the first job against the real fio sample's layout.
			top := map[string]any{}
			for k, v := range ref {
				if k != "jobs" && k != "disk_util" {
					top[k] = v
				}
			}
			if m := missing("", top, doc); len(m) > 0 {
				t.Errorf("top-level keys missing: %v", m)
			}
			jobs, _ := doc["jobs"].([]any)
			if len(jobs) != 3 { // reader ×2 (numjobs=2, no group_reporting) + writer
				t.Fatalf("%d jobs, want 3", len(jobs))
			}
			refJob := ref["jobs"].([]any)[0]
			if m := missing("jobs[0]", refJob, jobs[0]); len(m) > 0 {
				t.Errorf("job keys missing: %v", m)
			}
			clat := jobs[0].(map[string]any)["read"].(map[string]any)["clat_ns"].(map[string]any)
			if _, ok := clat["bins"]; ok != (format == "json+") {
				t.Errorf("clat_ns bins present = %v, want %v", ok, format == "json+")
			}
			if iops := jobs[0].(map[string]any)["read"].(map[string]any)["iops"].(float64); iops <= 0 {
				t.Errorf("read iops %v, want > 0", iops)
			}
		})
	}
}

func TestRunExplain(t *testing.T) {
	out, err := run(args("run", nullJob, "--kernel", "5.10", "--device", "scsi_debug delay=0 host_max_queue=64 no_rwlock=1",
		"--set", "queue/nr_requests=56", "--set", "device/queue_depth=15", "--explain")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"kernel                          = 5.10  (flags)",
		"host/can_queue                  = 64  (device scsi_debug (flags))",
		"host/host_tagset                = 1  (device scsi_debug (flags) (host_max_queue))",
		"queue/nr_requests               = 56  (flags)",
		"era/scsi_restart                = counter  (era 5.10)",
		"era/device_busy_counter         = 1  (era 5.10)",
		"system/nr_cpus                  = 4  (default)",
		"scsi_debug.no_rwlock",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain lacks %q:\n%s", want, out)
		}
	}
}

func TestRunConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "m.toml")
	text := "kernel = \"6.1\"\ncpus = 2\ndevices = [\"null_blk completion_nsec=50000 irqmode=2\"]\nset = [\"queue/nr_requests=16\"]\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run("run", nullJob, "--config", cfg, "--set", "queue/scheduler=none", "--explain")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"= 6.1  (config " + cfg + ")", "queue/nr_requests               = 16  (config " + cfg + ")",
		"queue/scheduler                 = none  (flags)"} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain lacks %q:\n%s", want, out)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.fio")
	if err := os.WriteFile(bad, []byte("[global]\nioengine=libaio\n\n[j]\nrw=randread\niodepth=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badToml := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badToml, []byte("kernel = \"6.1\"\nnr_requests = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"job-file-line-key", []string{"run", bad}, bad + ":6: [j] iodepth=0: "},
		{"no-job-file", []string{"run", filepath.Join(dir, "none.fio")}, "no such file"},
		{"output-format", []string{"run", nullJob, "--output-format", "xml"}, `--output-format "xml": allowed values are normal (text), json, json+`},
		{"unknown-set-key", []string{"run", nullJob, "--set", "queue/nr_reqs=4"}, `unknown key "queue/nr_reqs"; allowed: device/queue_depth,`},
		{"set-range", []string{"run", nullJob, "--set", "queue/nr_requests=0x"}, `queue/nr_requests=0x: allowed: an integer in [1, 2048]`},
		{"device-param", []string{"run", nullJob, "--device", "scsi_debug max_queue=1000"}, `scsi_debug parameter max_queue=1000: allowed: an integer in [1, 192]`},
		{"device-unknown-param", []string{"run", nullJob, "--device", "null_blk queue_depth=4"}, `unknown null_blk parameter "queue_depth"; allowed: completion_nsec, irqmode, hw_queue_depth,`},
		{"kernel", []string{"run", nullJob, "--kernel", "4.14"}, `kernel=4.14: allowed: MAJOR.MINOR in [4.15, 6.19]`},
		{"config-key", []string{"run", nullJob, "--config", badToml}, `config ` + badToml + `:2: unknown key "nr_requests"; allowed: kernel, cpus, host, devices, set`},
		{"no-args", []string{"run"}, "run: give a job file, or fio options"},
		{"runtime", []string{"run", nullJob, "--runtime", "-1s"}, "--runtime -1s: allowed: [0, 8760h0m0s] (0 = the job file's)"},
		// past a year the job's own check named "runtime 360000000000000000 ns", not the flag
		{"runtime-past-a-year", []string{"run", nullJob, "--runtime", "100000h"}, "--runtime 100000h0m0s: allowed: [0, 8760h0m0s]"},
		{"sweep-runtime-past-a-year", []string{"sweep", nullJob, "--device", "null_blk", "--vary", "queue/nr_requests=8,16", "--runtime", "9000h"}, "--runtime 9000h0m0s: allowed: [0, 8760h0m0s]"},
		// a value of the wrong type got strconv's text ("strconv.ParseInt: parsing \"1.5\": invalid syntax")
		{"cpus-fraction", []string{"run", nullJob, "--cpus", "1.5"}, `--cpus "1.5": want a whole number; --cpus: online CPUs (system/nr_cpus), [1, 4096]`},
		{"sweep-cpus-fraction", []string{"sweep", nullJob, "--vary", "queue/nr_requests=8,16", "--cpus", "1.5"}, `--cpus "1.5": want a whole number; --cpus: online CPUs`},
		{"replicas-fraction", []string{"run", nullJob, "--replicas", "1.5"}, `--replicas "1.5": want a whole number;`},
		{"seed-negative", []string{"run", nullJob, "--seed", "-1"}, `--seed "-1": want a whole number in [0, 18446744073709551615]`},
		{"runtime-no-unit", []string{"run", nullJob, "--runtime", "5"}, `--runtime "5": want a duration with its unit (ns, us, ms, s, m, h`},
		{"slowdown-word", []string{"run", nullJob, "--emulation-slowdown", "fast"}, `--emulation-slowdown "fast": want a number; --emulation-slowdown: multiply every CPU cost`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(tc.args...)
			if code := exitCode(err); code != 2 {
				t.Fatalf("exit %d (%v), want 2\n%s", code, err, out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestHelpListsSubcommands(t *testing.T) {
	out, err := run("--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run", "sweep", "claims", "version"} {
		if !strings.Contains(out, "  "+want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
	for _, sub := range []string{"run", "sweep"} {
		out, err := run(sub, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Examples:", "--device", "--set", "--kernel", "--config", "--seed", "--runtime"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s --help lacks %q", sub, want)
			}
		}
	}
}

// TestRunNoIOInWindow: a job that completes no I/O in its window (a 1 ms window on
// a seeking disk) gets a line saying so and where its I/Os were, not a bare header.
func TestRunNoIOInWindow(t *testing.T) {
	out, err := run("run", nullJob, "--device", "hdd", "--runtime", "1ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"blkmq: warning: job reader: no I/O completed in the 1ms measurement window: ",
		"blkmq: warning: job writer: no I/O completed in the 1ms measurement window: ",
		"blkmq: warning: by the end of the run: LUN 0: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A window with I/O gets no such line.
	out, err = run(args("run", nullJob, nullDevice, "--runtime", "10ms")...)
	if err != nil || strings.Contains(out, "no I/O completed") {
		t.Errorf("err %v; unexpected no-I/O line:\n%s", err, out)
	}
}

// TestRunMissingDevice: a job naming a device the machine lacks fails (exit 2) with
// the file, line and the devices that exist, in run and sweep, instead of running on
// the only LUN.
func TestRunMissingDevice(t *testing.T) {
	want := `testdata/sdz.fio:8: job r: filename=/dev/sdz names no modelled device; the devices are /dev/sda`
	for _, a := range [][]string{
		{"run", "testdata/sdz.fio", "--device", "scsi_debug"},
		{"sweep", "testdata/sdz.fio", "--device", "scsi_debug", "--vary", "tags=per-hctx,shared"},
	} {
		out, err := run(a...)
		if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err %v (exit %d), want exit 2 with %q\n%s", a, err, exitCode(err), want, out)
		}
	}
}
