package stack_test

import (
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// TestAIOPlugThresholdByEra: before v5.1 ("aio: only use blk plugs for > 2 depth
// submissions", AIO_PLUG_THRESHOLD) io_submit plugs every call, so a one-iocb
// submission to mq-deadline is inserted and its hctx run synchronously by the plug
// flush when io_submit returns (blk_finish_plug); from v5.1 on the one-iocb call is
// unplugged and blk_mq_submit_bio inserts the request and queues the run on kblockd.
// One libaio job at iodepth 1 (iodepth_batch_submit 1): every bio is one io_submit.
// The job file and machine are the same in every row; only the era's Options differ.
func TestAIOPlugThresholdByEra(t *testing.T) {
	type counts struct{ SyncRuns, AsyncRuns bool }
	plugged := counts{SyncRuns: true}
	unplugged := counts{AsyncRuns: true}
	for _, tc := range []struct {
		name, kernel string
		want         counts
	}{
		{"aio-plug/4.13-single-iocb-plugged", "4.13", plugged},
		{"aio-plug/4.15-single-iocb-plugged", "4.15", plugged},
		{"aio-plug/5.0-single-iocb-plugged", "5.0", plugged},
		{"aio-plug/5.1-single-iocb-unplugged", "5.1", unplugged},
		{"aio-plug/6.1-single-iocb-unplugged", "6.1", unplugged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := dispatch.Kernel(tc.kernel)
			if tc.kernel == "4.13" {
				o, err = dispatch.KernelPre415(tc.kernel)
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg := stack.Config{
				NrCPUs:  2,
				Host:    stack.Host{CanQueue: 64, NrHwQueues: 1},
				LUNs:    []stack.LUN{{Device: nullDevice(100 * sim.Microsecond), QueueDepth: 32, Scheduler: "mq-deadline"}},
				Kernel:  "4.15",
				Options: &o,
				Seed:    1,
			}
			job := "[j]\nioengine=libaio\nfilename=/dev/sda\ndirect=1\nrw=randread\nbs=4k\niodepth=1\ncpus_allowed=0\nruntime=10ms\ntime_based\nfilesize=1G\n"
			res, err := stack.Run(cfg, parse(t, job))
			if err != nil {
				t.Fatal(err)
			}
			q := res.Queues[0]
			if q.Bios < 50 {
				t.Fatalf("only %d bios submitted: the run does not exercise io_submit", q.Bios)
			}
			// every submission's run is either synchronous (plug flush) or on kblockd
			got := counts{SyncRuns: q.AsyncRuns == 0 && q.Runs >= q.Bios, AsyncRuns: q.AsyncRuns >= q.Bios}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("bios %d, runs %d, async runs %d (-want +got):\n%s", q.Bios, q.Runs, q.AsyncRuns, d)
			}
		})
	}
}
