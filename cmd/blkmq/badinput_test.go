package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunBadInputTable drives `blkmq run` through newRootCmd with malformed job files,
// flags and settings. Each must exit with status 2 and exactly the given message
// (naming the file and line, the key or parameter, and the allowed values); none may
// run a simulation. %s in want is the job file's path.
func TestRunBadInputTable(t *testing.T) {
	const ok = "[j]\nruntime=1ms\ntime_based\n"
	tests := []struct {
		name string
		job  string
		args []string
		want string
	}{
		{"negative-iodepth", "[j]\nioengine=libaio\niodepth=-1\n", nil,
			"fio: %s:3: [j] iodepth=-1: negative value not allowed"},
		{"iodepth-0", "[global]\nioengine=libaio\n\n[j]\nrw=randread\niodepth=0\n", nil,
			"fio: %s:6: [j] iodepth=0: out of range [1, 65536]"},
		{"bs-not-sector-multiple", "[j]\nbs=1000\n", nil,
			"fio: %s:2: [j] bs=1000: not a multiple of 512"},
		{"bs-too-large", "[j]\nbs=2g\n", nil,
			"fio: %s:2: [j] bs=2g: out of range [512, 1073741824]"},
		{"size-below-bs", "[j]\nsize=1k\nbs=4k\n", nil,
			"fio: %s:2: [j] size=1k: smaller than bs 4096"},
		{"unknown-rw", "[j]\nrw=randomread\n", nil,
			"fio: %s:2: [j] rw=randomread: unknown pattern; want one of read, write, randread, randwrite, rw, readwrite, randrw"},
		{"rwmixread-over-100", "[j]\nrw=randrw\nrwmixread=101\n", nil,
			"fio: %s:3: [j] rwmixread=101: out of range [0, 100]"},
		{"numjobs-huge", "[j]\nnumjobs=100000\n", nil,
			"fio: %s:2: [j] numjobs=100000: out of range [1, 4096]"},
		{"instances-over-limit", "[j]\nnumjobs=4096\n[k]\n", nil,
			"fio: %s:3: [k] 4097 job instances exceed the limit of 4096"},
		{"unknown-option", "[j]\nfoo=1\n", nil,
			"fio: %s:2: [j] foo=1: unknown option"},
		{"option-outside-section", "ioengine=libaio\n", nil,
			"fio: %s:1: ioengine=libaio: option outside any section; start the file with [global] or [jobname]"},
		{"missing-job-section", "[global]\nioengine=libaio\n", nil,
			"fio: %s:1: no job sections; add a [jobname] section after [global]"},
		{"empty-job-file", "", nil,
			"fio: %s:1: no job sections; add a [jobname] section after [global]"},
		{"time-based-without-runtime", "[j]\ntime_based\n", nil,
			"fio: %s:2: [j] time_based: needs runtime > 0"},
		{"cpus-allowed-cpu-missing", "[j]\ncpus_allowed=7\nruntime=1ms\ntime_based\n", []string{"--cpus", "4"},
			"stack: job j.0: cpus_allowed CPU 7 out of range [0, 3]"},
		{"cpus-allowed-range-beyond-machine", "[j]\ncpus_allowed=2-9\nnumjobs=8\nruntime=1ms\ntime_based\n", []string{"--cpus", "4"},
			"stack: job j.0: cpus_allowed CPU 4 out of range [0, 3]"},
		{"target-matches-no-lun", "[j]\nfilename=/dev/sdz\nruntime=1ms\ntime_based\n", []string{"--device", "scsi_debug max_luns=2"},
			"setup: %s:1: job j: filename=/dev/sdz names no modelled device; the devices are /dev/sda, /dev/sdb (add a --device, or name one of them)"},
		{"size-beyond-hdd-capacity", "[j]\nsize=700g\n", []string{"--device", "hdd"},
			"setup: job j.0: offset+size end at byte 751619276800 of /dev/sda, beyond its capacity 600000000000 (jobs get consecutive regions; lower size= or numjobs)"},
		{"nr-requests-over-limit", ok, []string{"--set", "queue/nr_requests=4096"},
			"setup: flags: queue/nr_requests=4096: allowed: an integer in [1, 2048]"},
		{"nr-requests-over-can-queue-without-scheduler", ok, []string{"--device", "null_blk hw_queue_depth=4", "--set", "queue/scheduler=none", "--set", "queue/nr_requests=8"},
			"setup: queue/nr_requests=8: without a scheduler allowed: [1, host/can_queue 4] (driver tags only shrink)"},
		{"negative-queue-depth", ok, []string{"--set", "device/queue_depth=-1"},
			"setup: flags: device/queue_depth=-1: allowed: an integer in [1, 10000]"},
		{"queue-depth-over-can-queue", ok, []string{"--device", "null_blk hw_queue_depth=4", "--set", "device/queue_depth=8"},
			"setup: device/queue_depth=8: allowed: [1, min(host/can_queue 4, 10000)]"},
		{"unknown-scheduler", ok, []string{"--set", "queue/scheduler=kyber"},
			"setup: flags: queue/scheduler=kyber: kyber is a kernel I/O scheduler the model does not simulate; allowed: none, mq-deadline, default"},
		{"unknown-scheduler-in-job", "[j]\nioscheduler=bfq\nruntime=1ms\ntime_based\n", nil,
			"setup: job %s:1 ioscheduler: queue/scheduler=bfq: bfq is a kernel I/O scheduler the model does not simulate; allowed: none, mq-deadline, default"},
		{"unknown-device-key", ok, []string{"--device", "null_blk hw_queue_deph=4"},
			`setup: flags: --device "null_blk hw_queue_deph=4": unknown null_blk parameter "hw_queue_deph"; allowed: completion_nsec, irqmode, hw_queue_depth, submit_queues, poll_queues, nr_devices, shared_tags, shared_tag_bitmap, no_sched, mbps, queue_mode, max_sectors, gb, blocking, zoned`},
		{"unknown-device-kind", ok, []string{"--device", "virtio"},
			`setup: flags: --device "virtio": unknown device kind "virtio"; allowed: cloud, hdd, null_blk, nvme, scsi_debug, ssd`},
		{"device-param-range", ok, []string{"--device", "scsi_debug max_queue=1000"},
			`setup: flags: --device "scsi_debug max_queue=1000": scsi_debug parameter max_queue=1000: allowed: an integer in [1, 192]`},
		{"device-param-not-key-value", ok, []string{"--device", "null_blk irqmode"},
			`setup: flags: --device "null_blk irqmode": "irqmode": want key=value`},
		{"unknown-host-kind", ok, []string{"--host", "lpfc", "--device", "cloud"},
			`setup: flags: --host "lpfc": unknown host kind "lpfc"; allowed: generic, storvsc`},
		{"set-not-assignment", ok, []string{"--set", "queue/nr_requests"},
			`setup: flags: "queue/nr_requests": want key=value (e.g. queue/nr_requests=56)`},
		{"negative-cpus", ok, []string{"--cpus", "-2"},
			"--cpus -2: allowed: [1, 4096]"},
		{"zero-cpus", ok, []string{"--cpus", "0"},
			"--cpus 0: allowed: [1, 4096]"},
		{"cpus-over-limit", ok, []string{"--cpus", "5000"},
			"setup: flags: cpus: system/nr_cpus=5000: allowed: an integer in [1, 4096]"},
		{"kernel-before-blk-mq-budget", ok, []string{"--kernel", "4.14"},
			"setup: flags: kernel=4.14: allowed: MAJOR.MINOR in [4.15, 6.19] (the blk-mq SCSI budget era), a stable release (6.1.192: mainline plus its modelled backports) or a uname -r form (6.1.0-57-amd64, v5.17, 6.8-rc2), or current"},
		{"negative-seed", ok, []string{"--seed", "-1"},
			`--seed "-1": want a whole number in [0, 18446744073709551615]; --seed: seed of the fio workloads' random offsets and read/write mix (PCG); model timing jitter uses its own fixed stream`},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".fio")
			if err := os.WriteFile(path, []byte(tc.job), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(append([]string{"run", path}, tc.args...)...)
			if code := exitCode(err); code != 2 {
				t.Fatalf("case %d: exit %d (%v), want 2\n%s", i, code, err, out)
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", path)
			}
			if got := err.Error(); got != want {
				t.Errorf("error\n got: %s\nwant: %s", got, want)
			}
			if strings.Contains(out, "IOPS=") {
				t.Errorf("a simulation ran:\n%s", out)
			}
		})
	}
}

// TestRunPrintsClamps: a value the model caps is run, not rejected, and run prints a
// warning (resolver caps) or fio's note (sync engine depth) before the results; so is
// the note on a job left at fio's default buffered I/O.
func TestRunPrintsClamps(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		job  string
		args []string
		want string
	}{
		{"storvsc_max_hw_queues", "[j]\nioengine=libaio\niodepth=8\nruntime=50ms\ntime_based\n", []string{"--cpus", "2", "--host", "storvsc storvsc_max_hw_queues=64", "--device", "cloud"},
			"blkmq: warning: storvsc: storvsc_max_hw_queues 64 > 2 CPUs: capped, as the driver does\n"},
		{"sync-engine-iodepth", "[j]\nioengine=psync\ndirect=1\niodepth=16\nruntime=1ms\ntime_based\n", nil,
			"blkmq: note: job j: both iodepth >= 1 and synchronous I/O engine psync are selected, queue depth will be capped at 1 (fio's note)\n"},
		{"steadystate-without-ss-dur", "[j]\nioengine=libaio\ndirect=1\nsteadystate=iops:0%\nruntime=1ms\ntime_based\n", nil,
			"blkmq: note: job j: steadystate= is set but ss_dur is 0 (fio's default): steady state detection is off, as in fio; set ss_dur (>= 2 s) to detect it\n"},
		{"buffered-default", "[j]\nioengine=libaio\nruntime=1ms\ntime_based\n", nil,
			"blkmq: note: job j: neither direct= nor buffered= is set, so fio does buffered I/O (its default, direct=0); the model has no page cache and runs it as direct=1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".fio")
			if err := os.WriteFile(path, []byte(tc.job), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(append([]string{"run", path}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.HasPrefix(out, tc.want) || !strings.Contains(out, "IOPS=") {
				t.Errorf("output does not start with %q and run:\n%s", tc.want, out)
			}
		})
	}
}

// TestRunWatchdogExit1: a modelled hang stops with exit status 1 and the watchdog's
// message, after at most the watchdog's model time (1 h), instead of spinning. The
// hang is case R02 before v4.18 (stack TestR02StackMigratingWorkers): io_uring's
// io-wq workers migrate between hctxs with nr_requests 1 and strand a tag waiter.
// With v4.18's fix the same run completes. The workers move at random
// (system/sched_placement=random, as stack's test uses stack.PlaceRandom).
func TestRunWatchdogExit1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r02.fio")
	if err := os.WriteFile(path, []byte("[j]\ndirect=1\nioengine=io_uring\nrw=read\nbs=512\niodepth=49\nsize=28672\ncpus_allowed=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	machine := []string{"--cpus", "2", "--device", "null_blk completion_nsec=10000 irqmode=2 hw_queue_depth=49 no_sched=1",
		"--set", "host/nr_hw_queues=6", "--set", "queue/nr_requests=1",
		// the strand needs a worker to move; under the default placement (fair) the
		// workers of this idle 2-CPU machine stay on their CPU, so the deprecated
		// random placement stands for any migrating submitter
		"--set", "system/sched_placement=random"}
	t.Run("R02/pre-4.18-hang", func(t *testing.T) {
		// the strand needs a migration at the right moment: take the first seed that hangs
		var out string
		var err error
		for seed := 1; seed <= 4; seed++ {
			out, err = run(append([]string{"run", path, "--kernel", "4.17", "--seed", strconv.Itoa(seed)}, machine...)...)
			if err != nil {
				break
			}
		}
		if code := exitCode(err); code != 1 {
			t.Fatalf("exit %d (%v), want 1 for one of seeds 1-4\n%s", code, err, out)
		}
		want := "stack: watchdog: job j.0 did not finish within 1h0m0s of model time"
		if !strings.HasPrefix(err.Error(), want) || !strings.Contains(out, "blkmq: "+want) {
			t.Errorf("error %q / output %q: want the watchdog message %q printed", err, out, want)
		}
	})
	t.Run("R02/v4.18-completes", func(t *testing.T) {
		for seed := 1; seed <= 4; seed++ {
			out, err := run(append([]string{"run", path, "--kernel", "4.18", "--seed", strconv.Itoa(seed)}, machine...)...)
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, out)
			}
		}
	})
}

// TestSweepPrintsClamps: sweep prints each distinct resolver warning once, naming the
// first point that produced it.
func TestSweepPrintsClamps(t *testing.T) {
	out, err := run(args("sweep", nullJob, nullDevice, "--runtime", "5ms", "--vary", "host/nr_hw_queues=1,3,4")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"blkmq: warning: point host/nr_hw_queues=3: host/nr_hw_queues 3 > 2 CPUs: hctxs without a CPU get no I/O\n",
		"blkmq: warning: point host/nr_hw_queues=4: host/nr_hw_queues 4 > 2 CPUs: hctxs without a CPU get no I/O\n"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output has %d × %q:\n%s", strings.Count(out, want), want, out)
		}
	}
}

// TestParseVaryLargeRanges: ranges near the int64 limit give their values instead of
// overflowing into "more than 10000 values" (found with FuzzParseVary).
func TestParseVaryLargeRanges(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"x=4611686018427387904..9223372036854775807", []string{"4611686018427387904", "9223372036854775807"}},
		{"x=9223372036854775806..9223372036854775807:5", []string{"9223372036854775806"}},
		{"x=-9223372036854775808..9223372036854775807:9223372036854775807", []string{"-9223372036854775808", "-1", "9223372036854775806"}},
		{"x=3..3", []string{"3"}},
		{"x=1..100:40", []string{"1", "41", "81"}},
	}
	for _, tc := range tests {
		a, err := parseVary(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, a.values); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.in, diff)
		}
	}
}
