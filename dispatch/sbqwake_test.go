package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// sbqRun runs eight queue-depth-1 loops, one per CPU, on four host tags (CanQueue 4,
// no elevator), so that most submitters sleep in blk_mq_get_tag, and returns the
// contention counters by name and the I/Os done after 1 ms.
func sbqRun(t *testing.T, lines bool) (map[string]ContentionStat, int) {
	t.Helper()
	c := DefaultCPUCosts()
	c.SbqWakeLines = lines
	rig := newRig(t, HostConfig{NrCPUs: 8, NrHwQueues: 1, CanQueue: 4, CPU: CPUModel{Costs: c}},
		testLUN{QueueDepth: 4, Elevator: "none"},
		device.NullParams{Name: "null", CompletionNsec: 5 * sim.Microsecond})
	var ls []*loopTask
	for i := 0; i < 8; i++ {
		l := newLoopTask(rig, []int{i}, uint64(i+1))
		ls = append(ls, l)
		l.submit()
	}
	rig.eng.RunUntil(sim.Millisecond)
	out := map[string]ContentionStat{}
	for _, s := range rig.host.Contention() {
		out[s.Name] = s
	}
	done := 0
	for _, l := range ls {
		done += l.done
	}
	return out, done
}

// TestSbqWakeLines: with CPUCosts.SbqWakeLines, sleepers on a tag bitmap move its
// ws_active line and take its wait queues' locks, and the puts that find waiters move
// the wait states' wait_cnt lines, all between CPUs; without it none of them is
// charged.
func TestSbqWakeLines(t *testing.T) {
	type seen struct{ SbqLine, WaitCnt, WaitLock, Transfers bool }
	for _, tc := range []struct {
		name  string
		lines bool
		want  seen
	}{
		{"off-nothing-charged", false, seen{}},
		{"on-eight-sleepers-on-four-tags", true, seen{SbqLine: true, WaitCnt: true, WaitLock: true, Transfers: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, done := sbqRun(t, tc.lines)
			if done < 100 {
				t.Fatalf("only %d I/Os done", done)
			}
			sbq, cnt, lock := st[atomSbq], st[atomSbqWaitCnt], st[lockSbqWait]
			got := seen{SbqLine: sbq.Ops > 0, WaitCnt: cnt.Ops > 0, WaitLock: lock.Ops > 0,
				Transfers: sbq.Transfers > 0 && lock.Transfers > 0}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s\nws_active %+v\nwait_cnt %+v\nwait.lock %+v", d, sbq, cnt, lock)
			}
		})
	}
}

// TestSbqWakeLinesDeterministic: the same run twice gives the same counters.
func TestSbqWakeLinesDeterministic(t *testing.T) {
	a, na := sbqRun(t, true)
	b, nb := sbqRun(t, true)
	if na != nb {
		t.Errorf("I/Os %d then %d", na, nb)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("counters moved (-first +second):\n%s", d)
	}
}
