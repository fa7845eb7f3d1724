package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/oracle"
)

const refIndex = "../../testdata/kernel/configs.json"

func TestValidateBadInput(t *testing.T) {
	job := "testdata/null.fio"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no-job", []string{"validate", "--device", "null_blk"}, "need a job file"},
		{"no-device", []string{"validate", job}, "--device is required"},
		{"cloud", []string{"validate", job, "--device", "cloud iops=5000"}, `device kind "cloud" has no kernel counterpart`},
		{"host-key", []string{"validate", job, "--device", "null_blk", "--set", "tags=shared"}, `setting "tags" has no sysfs file`},
		{"format", []string{"validate", job, "--device", "null_blk", "--output-format", "xml"}, `--output-format "xml"`},
		{"runtime", []string{"validate", job, "--device", "null_blk", "--runtime", "1500ms"}, "whole seconds"},
		{"overhead", []string{"validate", job, "--device", "null_blk", "--emulation-overhead", "soon"}, "--emulation-overhead \"soon\""},
		{"slowdown", []string{"validate", job, "--device", "null_blk", "--emulation-slowdown", "0.5"}, "--emulation-slowdown \"0.5\": allowed: auto, auto-gross, or a number in [1, 1000]"},
		// the gross factor is a VM calibration rule; the committed one is selected by BLKMQ_ORACLE_SLOWDOWN_NET
		{"slowdown-gross-reference", []string{"validate", "--reference", refIndex, "--case", "000-small-none", "--emulation-slowdown", "auto-gross"}, "--emulation-slowdown auto-gross applies to a job run in the VM"},
		// a negative or zero timeout was silently 300s, a fraction was cut to whole seconds
		{"timeout-negative", []string{"validate", job, "--device", "null_blk", "--timeout", "-1s"}, "--timeout -1s: allowed: whole seconds in [1s, 24h]"},
		{"timeout-zero", []string{"validate", job, "--device", "null_blk", "--timeout", "0s"}, "--timeout 0s: allowed"},
		{"timeout-fraction", []string{"validate", job, "--device", "null_blk", "--timeout", "1500ms"}, "--timeout 1.5s: allowed"},
		// chrt -f refuses a priority outside 1..99 only once the VM starts
		{"rt-priority-negative", []string{"validate", job, "--device", "null_blk", "--rt-priority", "-5"}, "--rt-priority -5: allowed: [0, 99]"},
		{"rt-priority-high", []string{"validate", job, "--device", "null_blk", "--rt-priority", "100"}, "--rt-priority 100: allowed: [0, 99]"},
		// the flag's type error was strconv's text
		{"cpus-fraction", []string{"validate", job, "--device", "null_blk", "--cpus", "1.5"}, `--cpus "1.5": want a whole number`},
		{"case-alone", []string{"validate", job, "--device", "null_blk", "--case", "x"}, "--case needs --reference"},
		{"reference-and-job", []string{"validate", job, "--reference", refIndex}, "--reference takes no job file"},
		{"unknown-case", []string{"validate", "--reference", refIndex, "--case", "nope"}, `--case "nope": no such case`},
		// LoadIndex reads the whole file: /dev/zero took memory without end
		{"reference-device", []string{"validate", "--reference", "/dev/zero"}, "--reference /dev/zero: not a regular file"},
		{"reference-dir", []string{"validate", "--reference", "testdata"}, "--reference testdata: not a regular file"},
		{"reference-missing", []string{"validate", "--reference", "no-such.json"}, "--reference: stat no-such.json: no such file or directory"},
		{"model-rejects", []string{"validate", job, "--device", "null_blk hw_queue_depth=0"}, "hw_queue_depth=0"},
		{"wake-switch", []string{"validate", job, "--device", "null_blk", "--emulation-wake-switch", "2ms"}, `--emulation-wake-switch "2ms": allowed: on, off, or a duration in [1ns, 1ms]`},
		// 0 used to be read as on (1us): Switch 0 is the model's default, so a
		// user asking for a free switch silently got 1us
		{"wake-switch-zero", []string{"validate", job, "--device", "null_blk", "--emulation-wake-switch", "0"}, `--emulation-wake-switch "0": allowed: on, off, or a duration in [1ns, 1ms] (e.g. 1us); 0 is refused`},
		{"wake-switch-sub-ns", []string{"validate", job, "--device", "null_blk", "--emulation-wake-switch", "0.4ns"}, `--emulation-wake-switch "0.4ns": allowed: on, off, or a duration in [1ns, 1ms]`},
		// within the flag's native [1ns, 1ms] but above 1 ms once scaled: refused
		// before any run (it was exit 1 from inside the overhead calibration)
		{"wake-switch-scaled-ref", []string{"validate", "--reference", refIndex, "--case", "000-small-none", "--emulation-wake-switch", "500us"},
			"--emulation-wake-switch: stack: emulation: switch cost 500µs × slowdown 18.04"},
		{"wake-switch-scaled-fixed", []string{"validate", "--reference", refIndex, "--case", "000-small-none", "--emulation-slowdown", "74", "--emulation-wake-switch", "1ms"},
			"allowed at this slowdown: [0, 13.513µs]"},
		{"wake-switch-scaled-job", []string{"validate", job, "--device", "null_blk", "--emulation-slowdown", "100", "--emulation-wake-switch", "11us"},
			"allowed at this slowdown: [0, 10µs]"},
		// allowed even scaled (42us × 22.5 < 1ms), but the model is then slower than
		// the guest at queue depth 1 without any overhead: a choice of the user, so
		// exit 2 naming the flag (it was exit 1, the status of a model failure)
		{"wake-switch-calibration-unfit", []string{"validate", "--reference", refIndex, "--case", "000-small-none", "--emulation-wake-switch", "42us"},
			"--emulation-wake-switch 42us: oracle: calibration case calib-scsi_debug: oracle: calibration: kernel clat mean 4.234 ms below the model's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(tt.args...)
			if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v (exit %d), want exit 2 with %q", err, exitCode(err), tt.want)
			}
		})
	}
}

// TestValidateMissingHarness: with an empty cache the command names the fix
// (the model side runs first and passes).
func TestValidateMissingHarness(t *testing.T) {
	want := "build-guest"
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		want = "apt-get install qemu-system-x86"
	}
	_, err := run("validate", "testdata/null.fio", "--device", "null_blk irqmode=2 completion_nsec=1000000",
		"--cache", t.TempDir(), "--runtime", "1s")
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v (exit %d), want exit 2 naming %q", err, exitCode(err), want)
	}
}

func TestValidateReference(t *testing.T) {
	out, err := run("validate", "--reference", refIndex, "--case", "nb-randread")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"rr read IOPS", "clat mean (ms)", "device commands/s", "emulation overhead", "emulation slowdown", "kernel nullb0: scheduler none"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// a case with a known miss (000-small-none's WAL passes since round 12's
	// oracle.DefaultIRQPreempt)
	out, err = run("validate", "--reference", refIndex, "--case", "000-uring-shared", "--output-format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var doc struct {
		Comparisons []struct {
			Case     string  `json:"case"`
			Overhead int64   `json:"emulation_overhead_ns"`
			Slowdown float64 `json:"emulation_slowdown"`
			Rows     []struct {
				Key       string   `json:"key"`
				RelErr    *float64 `json:"rel_err"`
				KnownMiss string   `json:"known_miss"`
			} `json:"rows"`
		} `json:"comparisons"`
		Failed int `json:"failed_rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if len(doc.Comparisons) != 1 || doc.Comparisons[0].Case != "000-uring-shared" || doc.Failed != 0 || doc.Comparisons[0].Overhead <= 0 ||
		doc.Comparisons[0].Slowdown <= 1 {
		t.Fatalf("unexpected document: %+v", doc)
	}
	misses := 0
	for _, r := range doc.Comparisons[0].Rows {
		if r.KnownMiss != "" {
			misses++
		}
	}
	if misses == 0 {
		t.Errorf("000-uring-shared: no known-miss rows in the JSON")
	}
}

// TestValidateHelpDevSentence: the help explains the ${DEV} placeholders in a whole
// sentence (it once read "${DEV}... in the job name the new disks").
func TestValidateHelpDevSentence(t *testing.T) {
	out, err := run("validate", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "in the job name the new disks") {
		t.Errorf("garbled ${DEV} sentence still in the help:\n%s", out)
	}
	for _, want := range []string{"In the job file, write ${DEV} for the first new disk", "filename=${DEV}"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

// TestValidateReferenceTooLarge: an index past maxReferenceBytes is refused by
// its size before it is read (a sparse file, so the test writes nothing).
func TestValidateReferenceTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxReferenceBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = run("validate", "--reference", p)
	want := fmt.Sprintf("%d bytes, larger than the %d allowed for an index", maxReferenceBytes+1, maxReferenceBytes)
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v (exit %d), want exit 2 with %q", err, exitCode(err), want)
	}
}

// TestValidateWrongGuest: a guest built for another kernel than the references'
// (stale apt lists once built 6.1.0-48-amd64 against 6.1.0-57-amd64 references) is
// refused before any VM run, exit 2, naming both releases and the rebuild; it ran,
// and the model compared 6.1.192's profile with another kernel.
func TestValidateWrongGuest(t *testing.T) {
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Skip("qemu-system-x86_64 not installed: validate stops at the missing QEMU first")
	}
	for _, tt := range []struct{ name, release, want string }{
		{"stale-apt-6.1.0-48", "6.1.0-48-amd64", "the guest runs kernel 6.1.0-48-amd64, the references were measured on 6.1.0-57-amd64"},
		{"no-release-file", "", "release missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"kernel": "x", "initrd.cpio": "x"}
			if tt.release != "" {
				files["release"] = tt.release + "\n"
			}
			for f, text := range files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := run("validate", "testdata/null.fio", "--device", "null_blk irqmode=2 completion_nsec=1000000",
				"--cache", dir, "--runtime", "1s")
			if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v (exit %d), want exit 2 with %q", err, exitCode(err), tt.want)
			}
		})
	}
}

// TestValidateNoGuest: validate on a machine where the guest was never built (an
// empty --cache) stops before any VM run with exit 2 and an error that wraps
// oracle.ErrNoGuest (oracle.ErrNoQEMU where QEMU is not installed), naming the
// command that builds it; it neither hangs nor boots anything. README and
// `validate --help` document the status.
func TestValidateNoGuest(t *testing.T) {
	dir := t.TempDir()
	_, err := run("validate", "testdata/null.fio", "--device", "null_blk irqmode=2 completion_nsec=1000000",
		"--cache", dir, "--runtime", "1s")
	want, text := oracle.ErrNoGuest, "blkmq validate --build-guest"
	if _, lerr := exec.LookPath("qemu-system-x86_64"); lerr != nil {
		want, text = oracle.ErrNoQEMU, "apt-get install qemu-system-x86"
	}
	if exitCode(err) != 2 || !errors.Is(err, want) || !strings.Contains(err.Error(), text) {
		t.Fatalf("err %v (exit %d), want exit 2 wrapping %v and naming %q", err, exitCode(err), want, text)
	}
}
