package stack_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// TestSubmitSyscallPerCall: dispatch.CPUCosts.SubmitSyscall is paid once per
// io_uring_enter / io_submit, whatever the number of I/Os it carries. One job on one
// CPU, a null device, CPU-bound: with iodepth_batch = iodepth_batch_complete_max = n
// each call carries n I/Os, so each I/O's CPU falls by (n−1)/n × SubmitSyscall against
// the table without the split; with n = 1 (fio's default) every call carries one I/O
// and the run is the same bit for bit.
func TestSubmitSyscallPerCall(t *testing.T) {
	run := func(t *testing.T, engine string, batch int, syscall sim.Time) (perIO float64, res *stack.Result) {
		t.Helper()
		c := dispatch.DefaultCPUCosts()
		c.SubmitSyscall = syscall
		cfg := stack.Config{
			NrCPUs: 1,
			Host:   stack.Host{CanQueue: 64, NrHwQueues: 1},
			LUNs:   []stack.LUN{{Device: nullDevice(2 * sim.Microsecond), QueueDepth: 64, Scheduler: "none"}},
			CPU:    dispatch.CPUModel{Costs: c},
			Seed:   1,
		}
		job := fmt.Sprintf("[j]\nioengine=%s\nfilename=/dev/sda\ndirect=1\nrw=randread\nbs=4k\niodepth=32\n"+
			"iodepth_batch=%d\niodepth_batch_complete_max=%d\nruntime=5ms\ntime_based\nfilesize=1G\n", engine, batch, batch)
		res, err := stack.Run(cfg, parse(t, job))
		if err != nil {
			t.Fatal(err)
		}
		var busy sim.Time
		for _, b := range res.CPUBusy {
			busy += b
		}
		if res.Queues[0].Completed < 100 {
			t.Fatalf("only %d I/Os completed", res.Queues[0].Completed)
		}
		return float64(busy) / float64(res.Queues[0].Completed), res
	}
	for _, tc := range []struct {
		name   string
		engine string
		batch  int
	}{
		{"io_uring/8-SQEs-per-enter", "io_uring", 8},
		{"libaio/8-iocbs-per-io_submit", "libaio", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, _ := run(t, tc.engine, tc.batch, 0)
			split, _ := run(t, tc.engine, tc.batch, 200)
			want := float64(tc.batch-1) / float64(tc.batch) * 200
			if got := whole - split; got < 0.8*want || got > 1.2*want {
				t.Errorf("CPU per I/O %.1f ns without the split, %.1f with: saves %.1f ns, want ≈ %.1f", whole, split, got, want)
			}
		})
	}
	t.Run("io_uring/1-SQE-per-enter-unchanged", func(t *testing.T) {
		_, a := run(t, "io_uring", 1, 0)
		_, b := run(t, "io_uring", 1, 200)
		if d := cmp.Diff(a.Queues[0], b.Queues[0]); d != "" {
			t.Errorf("queue stats moved (-without +with):\n%s", d)
		}
		if d := cmp.Diff(a.CPUBusy, b.CPUBusy); d != "" {
			t.Errorf("CPU busy moved (-without +with):\n%s", d)
		}
	})
}
