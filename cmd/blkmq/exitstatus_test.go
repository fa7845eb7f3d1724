package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/stack"
)

// TestExitStatusFromErrorType: the exit status comes from the error's type, never
// from its text. A job named [watchdog] (its name is in every message about it) keeps
// exit 0 when it runs, 2 when its input is bad, and the status of a real modelled hang
// is 1 whatever the job is called.
func TestExitStatusFromErrorType(t *testing.T) {
	dir := t.TempDir()
	write := func(name, job string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(job), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hang := "direct=1\nioengine=io_uring\nrw=read\nbs=512\niodepth=49\nsize=28672\ncpus_allowed=0\n"
	hangMachine := []string{"--cpus", "2", "--device", "null_blk completion_nsec=10000 irqmode=2 hw_queue_depth=49 no_sched=1",
		"--set", "host/nr_hw_queues=6", "--set", "queue/nr_requests=1", "--kernel", "4.17",
		// the R02 strand needs a migrating io-wq worker: the deprecated random placement
		"--set", "system/sched_placement=random"}
	tests := []struct {
		name string
		job  string
		args []string
		want int
	}{
		{"watchdog-named-job-runs", "[watchdog]\nruntime=1ms\ntime_based\n", nil, 0},
		{"watchdog-named-job-bad-cpu", "[watchdog]\ncpus_allowed=7\nruntime=1ms\ntime_based\n", []string{"--cpus", "4"}, 2},
		{"watchdog-named-job-over-memory", "[watchdog]\nioengine=libaio\niodepth=65536\nnumjobs=64\nruntime=1ms\ntime_based\n", []string{"--max-memory", "64m"}, 2},
		{"watchdog-named-job-bad-setting", "[watchdog]\nruntime=1ms\ntime_based\n", []string{"--set", "queue/nr_requests=4096"}, 2},
		{"hang-named-plainly", "[j]\n" + hang, hangMachine, 1},
		{"hang-named-watchdog", "[watchdog]\n" + hang, hangMachine, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := write(tc.name+".fio", tc.job)
			var code int
			var out string
			var err error
			// the R02 strand needs a migration at the right moment: seeds 1-4, first hang
			for seed := 1; seed <= 4; seed++ {
				out, err = run(append([]string{"run", path, "--seed", fmt.Sprint(seed)}, tc.args...)...)
				if code = exitCode(err); code != 0 || tc.want != 1 {
					break
				}
			}
			if code != tc.want {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, tc.want, out)
			}
			var we *stack.WatchdogError
			if errors.As(err, &we) != (tc.want == 1) {
				t.Errorf("error %v: WatchdogError %v, want %v", err, we != nil, tc.want == 1)
			}
			if code != 0 && !strings.Contains(out, "blkmq: ") {
				t.Errorf("the error is not printed:\n%s", out)
			}
		})
	}
}

// TestHugeValuesClipped: a 1 MB bad value, in a job file, a --set or a --device, is
// echoed as its first 64 bytes and its length, with exit 2.
func TestHugeValuesClipped(t *testing.T) {
	big := strings.Repeat("9", 1<<20)
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.fio")
	bad := filepath.Join(dir, "bad.fio")
	if err := os.WriteFile(ok, []byte("[j]\nruntime=1ms\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("[j]\nbs="+big+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", bad},
		{"run", ok, "--set", "queue/nr_requests=" + big},
		{"run", ok, "--device", "null_blk hw_queue_depth=" + big},
		{"run", ok, "--device", big},
	} {
		out, err := run(args...)
		if exitCode(err) != 2 || len(out) > 600 || !strings.Contains(out, "… (1048") {
			t.Errorf("%.40q: exit %d, %d bytes of output, want exit 2 and the value clipped: %.300s", args, exitCode(err), len(out), out)
		}
	}
}
