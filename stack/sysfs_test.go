package stack_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// sysfsJob: one libaio random reader at iodepth 32 for 30 ms of a 100 µs device on
// the 4-queue host of baseConfig (scheduler none by default): 32 requests in flight.
const sysfsJob = "[r]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\nfilesize=1G\nruntime=30ms\ntime_based\n"

// TestSysfsWritesValidate: each bad write is refused before the run with a
// *ConfigError naming the write's field and the allowed values; the kernel's own
// refusals (-EINVAL) name the bound.
func TestSysfsWritesValidate(t *testing.T) {
	ms := sim.Millisecond
	tests := []struct {
		name   string
		writes []stack.SysfsWrite
		field  string
		want   string
	}{
		{"negative-time", []stack.SysfsWrite{{At: -1, Attr: stack.SysfsScheduler, Value: "none"}}, "SysfsWrites[0].At", "out of range [0, end of the run)"},
		{"past-the-run", []stack.SysfsWrite{{At: 30 * ms, Attr: stack.SysfsScheduler, Value: "none"}}, "SysfsWrites[0].At", "at or past the end of the run (30000000 ns)"},
		{"lun-out-of-range", []stack.SysfsWrite{{LUN: 1, Attr: stack.SysfsScheduler, Value: "none"}}, "SysfsWrites[0].LUN", "out of range [0, 0]"},
		{"unknown-attr", []stack.SysfsWrite{{Attr: "queue/rotational", Value: "0"}}, "SysfsWrites[0].Attr", `not one of "queue/scheduler", "queue/nr_requests", "device/queue_depth"`},
		{"queue-depth-over-can-queue", []stack.SysfsWrite{{Attr: stack.SysfsQueueDepth, Value: "65"}}, "SysfsWrites[0].Value", "queue_depth 65 out of range [1, 64] (sdev_store_queue_depth"},
		{"queue-depth-zero", []stack.SysfsWrite{{Attr: stack.SysfsQueueDepth, Value: "0"}}, "SysfsWrites[0].Value", "-EINVAL"},
		{"queue-depth-not-a-number", []stack.SysfsWrite{{Attr: stack.SysfsQueueDepth, Value: "deep"}}, "SysfsWrites[0].Value", "queue_depth 0 out of range"},
		{"unknown-elevator", []stack.SysfsWrite{{Attr: stack.SysfsScheduler, Value: "bfq"}}, "SysfsWrites[0].Value", "-EINVAL"},
		{"nr-requests-not-a-number", []stack.SysfsWrite{{Attr: stack.SysfsNrRequests, Value: "-1"}}, "SysfsWrites[0].Value", "-EINVAL (queue_var_store"},
		{"nr-requests-over-uint", []stack.SysfsWrite{{Attr: stack.SysfsNrRequests, Value: "4294967296"}}, "SysfsWrites[0].Value", "-EINVAL"},
		{"nr-requests-over-queue-depth-without-elevator", []stack.SysfsWrite{{Attr: stack.SysfsNrRequests, Value: "65"}}, "SysfsWrites[0].Value", "nr_requests 65 out of range [4, 64] with none"},
		{"nr-requests-over-max-sched-rq", []stack.SysfsWrite{
			{At: ms, Attr: stack.SysfsScheduler, Value: "mq-deadline\n"},
			{At: 2 * ms, Attr: stack.SysfsNrRequests, Value: "2049"}}, "SysfsWrites[1].Value", "nr_requests 2049 out of range [4, 2048] with an elevator"},
		{"order-is-by-time", []stack.SysfsWrite{
			{At: 2 * ms, Attr: stack.SysfsNrRequests, Value: "2048"},
			{At: ms, Attr: stack.SysfsScheduler, Value: "none"}}, "SysfsWrites[0].Value", "out of range [4, 64] with none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.SysfsWrites = tt.writes
			_, err := stack.Run(cfg, parse(t, sysfsJob))
			var ce *stack.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *ConfigError", err)
			}
			if ce.Field != tt.field || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q (field %q), want field %q and %q", err, ce.Field, tt.field, tt.want)
			}
		})
	}
	t.Run("small-nr-requests-raised-to-4", func(t *testing.T) {
		cfg := baseConfig()
		cfg.SysfsWrites = []stack.SysfsWrite{{At: sim.Millisecond, Attr: stack.SysfsNrRequests, Value: "1\n"}}
		res, err := stack.Run(cfg, parse(t, sysfsJob))
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Sysfs[0].Outcome; !res.Sysfs[0].Done || o.Value != "4" || !o.Froze {
			t.Errorf("outcome %+v, want nr_requests 4 stored with a freeze", o)
		}
	})
}

// switchRun runs sysfsJob with none → mq-deadline at 10 ms and back to none at 20 ms.
func switchRun(t *testing.T) *stack.Result {
	t.Helper()
	cfg := baseConfig()
	cfg.SysfsWrites = []stack.SysfsWrite{
		{At: 10 * sim.Millisecond, Attr: stack.SysfsScheduler, Value: "mq-deadline\n"},
		{At: 20 * sim.Millisecond, Attr: stack.SysfsScheduler, Value: "none\n"},
	}
	res, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSysfsSchedulerSwitchInFlight: the switch finds 32 requests in flight; each
// freeze lasts until they have drained (about one device time, 100 µs), the
// submitter sleeps in blk_queue_enter meanwhile, and while mq-deadline runs the
// requests are inserted into the elevator instead of issued directly
// (blk_mq_try_issue_directly), so a third of the run's I/Os are not direct issues.
func TestSysfsSchedulerSwitchInFlight(t *testing.T) {
	base, err := stack.Run(baseConfig(), parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	res := switchRun(t)
	if res.Schedulers[0] != "none" {
		t.Errorf("scheduler at the end %q, want none", res.Schedulers[0])
	}
	for i, s := range res.Sysfs {
		o := s.Outcome
		if !s.Done || !o.Froze || o.Note != "" || o.Drain <= 0 || o.Drain > 2*sim.Millisecond {
			t.Errorf("write %d: %+v, want done with a freeze of (0, 2 ms] and no note", i, s)
		}
	}
	f := res.Freezes[0]
	if f.Freezes != 2 || f.ElevatorSwitches != 2 || f.InFlightAtFreeze < 2*16 || f.EnterWaits == 0 || f.FrozenTime < f.DrainTime || f.DrainTime <= 0 {
		t.Errorf("freeze counters %+v: want 2 freezes and switches, ≥ 16 requests in flight at each, a waiting submitter", f)
	}
	q, bq := res.Queues[0], base.Queues[0]
	if q.DirectIssues*10 > bq.DirectIssues*8 || q.DirectIssues*10 < bq.DirectIssues*5 {
		t.Errorf("direct issues %d with 10 ms of mq-deadline in 30 ms, %d without: want about 2/3", q.DirectIssues, bq.DirectIssues)
	}
	t.Logf("direct issues %d (none throughout %d); freezes %+v; writes %+v", q.DirectIssues, bq.DirectIssues, f, res.Sysfs)
}

// TestSysfsWritesDeterministic: the same config and seed give the same result with
// writes.
func TestSysfsWritesDeterministic(t *testing.T) {
	a, b := switchRun(t), switchRun(t)
	if diff := cmp.Diff(a.Queues, b.Queues); diff != "" {
		t.Errorf("queue counters (-a +b):\n%s", diff)
	}
	if diff := cmp.Diff(a.Sysfs, b.Sysfs); diff != "" {
		t.Errorf("writes (-a +b):\n%s", diff)
	}
	if diff := cmp.Diff(a.Freezes, b.Freezes); diff != "" {
		t.Errorf("freezes (-a +b):\n%s", diff)
	}
	if a.Jobs[0].Fio.Read().TotalIOs != b.Jobs[0].Fio.Read().TotalIOs {
		t.Errorf("I/Os %d and %d", a.Jobs[0].Fio.Read().TotalIOs, b.Jobs[0].Fio.Read().TotalIOs)
	}
}

// TestSysfsNrRequestsShrinksInFlight: nr_requests 8 under mq-deadline keeps at most
// 8 requests allocated (the scheduler tags resized by blk_mq_tag_update_depth), so
// the 100 µs device completes fewer I/Os than with the default 128.
func TestSysfsNrRequestsShrinksInFlight(t *testing.T) {
	cfg := baseConfig()
	cfg.LUNs[0].Scheduler = "mq-deadline"
	base, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	cfg.SysfsWrites = []stack.SysfsWrite{{At: 5 * sim.Millisecond, Attr: stack.SysfsNrRequests, Value: "8"}}
	res, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Freezes[0]; f.NrRequestsUpdates != 1 || f.Freezes != 1 {
		t.Errorf("freezes %+v, want one update", f)
	}
	n, nb := res.Jobs[0].Fio.Read().TotalIOs, base.Jobs[0].Fio.Read().TotalIOs
	if n*10 > nb*6 {
		t.Errorf("I/Os %d with nr_requests 8 from 5 ms, %d with 128: want well under", n, nb)
	}
	t.Logf("I/Os %d (nr_requests 128 throughout: %d)", n, nb)
}

// TestSysfsNoOpWrites: naming the running elevator, or the current nr_requests,
// returns without a freeze, as elevator_change and blk_mq_update_nr_requests do.
func TestSysfsNoOpWrites(t *testing.T) {
	cfg := baseConfig()
	cfg.SysfsWrites = []stack.SysfsWrite{
		{At: sim.Millisecond, Attr: stack.SysfsScheduler, Value: "none"},
		{At: sim.Millisecond, Attr: stack.SysfsNrRequests, Value: "64"},
	}
	res, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res.Sysfs {
		if !s.Done || s.Outcome.Froze || !strings.HasPrefix(s.Outcome.Note, "no change") {
			t.Errorf("write %d: %+v, want a no-op", i, s)
		}
	}
	if f := res.Freezes[0]; f != (dispatch.FreezeStats{Stores: 2}) {
		t.Errorf("freezes %+v, want none", f)
	}
}

// TestSysfsIOUringNowaitPunts: io_uring's inline REQ_NOWAIT submission finds the
// frozen queue and gets -EAGAIN from blk_queue_enter; the I/O is punted to io-wq,
// whose worker sleeps there until the unfreeze. The run completes.
func TestSysfsIOUringNowaitPunts(t *testing.T) {
	cfg := baseConfig()
	cfg.SysfsWrites = []stack.SysfsWrite{{At: 10 * sim.Millisecond, Attr: stack.SysfsScheduler, Value: "mq-deadline"}}
	job := strings.Replace(sysfsJob, "libaio", "io_uring", 1)
	res, err := stack.Run(cfg, parse(t, job))
	if err != nil {
		t.Fatal(err)
	}
	f := res.Freezes[0]
	if f.EnterNowait == 0 || f.ElevatorSwitches != 1 || res.Schedulers[0] != "mq-deadline" {
		t.Errorf("freezes %+v, scheduler %s: want REQ_NOWAIT refusals and one switch to mq-deadline", f, res.Schedulers[0])
	}
	if res.Jobs[0].Wait.WouldBlock == 0 {
		t.Errorf("no -EAGAIN counted by the job")
	}
	t.Logf("freezes %+v, job would-block %d", f, res.Jobs[0].Wait.WouldBlock)
}

// TestSysfsStoresSerialise: two writes at the same time run one after the other
// (q->sysfs_lock): the second, nr_requests 16 under the new mq-deadline, starts
// with the first and returns after it; its bound is the elevator's.
func TestSysfsStoresSerialise(t *testing.T) {
	cfg := baseConfig()
	ms := sim.Millisecond
	cfg.SysfsWrites = []stack.SysfsWrite{
		{At: 10 * ms, Attr: stack.SysfsScheduler, Value: "mq-deadline"},
		{At: 10 * ms, Attr: stack.SysfsNrRequests, Value: "100"},
	}
	res, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Sysfs[0].Outcome, res.Sysfs[1].Outcome
	if !res.Sysfs[1].Done || b.Start != 10*ms || b.End < a.End || !b.Froze || b.Note != "" {
		t.Errorf("second write %+v after the first %+v: want it to start at 10 ms and return after the first", b, a)
	}
	if f := res.Freezes[0]; f.Freezes != 2 || f.ElevatorSwitches != 1 || f.NrRequestsUpdates != 1 {
		t.Errorf("freezes %+v, want two, one switch and one update", f)
	}
}

// TestSysfsNoWritesUnchanged: an empty SysfsWrites leaves Result.Sysfs and
// Result.Freezes nil (the Result of a run without writes is as before).
func TestSysfsNoWritesUnchanged(t *testing.T) {
	res, err := stack.Run(baseConfig(), parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	if res.Sysfs != nil || res.Freezes != nil {
		t.Errorf("Sysfs %v, Freezes %v: want nil", res.Sysfs, res.Freezes)
	}
}

// TestSysfsQueueDepthShrinksInFlight: device/queue_depth 8 from 5 ms (hex, as
// simple_strtoul reads it) resizes the budget map at once, without a freeze: at
// most 8 commands in flight from then on, so the 100 µs device completes fewer
// I/Os than at 32; a depth above what scsi_device_max_queue_depth allows is
// never reached because the store refuses more than can_queue.
func TestSysfsQueueDepthShrinksInFlight(t *testing.T) {
	cfg := baseConfig()
	base, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	cfg.SysfsWrites = []stack.SysfsWrite{{At: 5 * sim.Millisecond, Attr: stack.SysfsQueueDepth, Value: "0x8\n"}}
	res, err := stack.Run(cfg, parse(t, sysfsJob))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Sysfs[0].Outcome
	if !res.Sysfs[0].Done || o.Value != "8" || o.Froze || o.End != o.Start || o.Note != "" {
		t.Errorf("outcome %+v, want queue_depth 8 at once without a freeze", o)
	}
	if f := res.Freezes[0]; f.Freezes != 0 {
		t.Errorf("freezes %+v, want none", f)
	}
	n, nb := res.Jobs[0].Fio.Read().TotalIOs, base.Jobs[0].Fio.Read().TotalIOs
	if n*10 > nb*5 {
		t.Errorf("I/Os %d with queue_depth 8 from 5 ms, %d at 32: want well under half", n, nb)
	}
	t.Logf("I/Os %d (queue_depth 32 throughout: %d)", n, nb)
	t.Run("null_blk-refused", func(t *testing.T) {
		cfg := baseConfig()
		cfg.Host.Driver = stack.DriverNullBlk
		cfg.LUNs[0].QueueDepth = 0
		cfg.SysfsWrites = []stack.SysfsWrite{{At: sim.Millisecond, Attr: stack.SysfsQueueDepth, Value: "8"}}
		_, err := stack.Run(cfg, parse(t, sysfsJob))
		var ce *stack.ConfigError
		if !errors.As(err, &ce) || ce.Field != "SysfsWrites[0].Attr" || !strings.Contains(err.Error(), "not a SCSI device") {
			t.Errorf("err = %v, want a *ConfigError naming SysfsWrites[0].Attr", err)
		}
	})
}
