package tagset_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/blkmq/blkmq/tagset"
	"github.com/google/go-cmp/cmp"
)

// R02: a waiter woken on hctx0 migrates to hctx1 and must pass the wake-up
// back, or the last hctx0 waiter is stranded.
func TestR02MigrationWakeup(t *testing.T) {
	for _, c := range []struct {
		name     string
		opt      tagset.Options
		stranded bool
	}{
		{"R02/migrated-waiter-passes-wakeup", tagset.Options{}, false},
		{"R02/pre-avoid-starve-after-migration", tagset.Options{NoMigrationWakeup: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 2, NrCPUs: 2, Options: c.opt})
			q := mustQueue(t, s, tagset.QueueConfig{})
			h0, h1 := q.Hctx(0), q.Hctx(1)
			if wb := h0.Tags().Bitmap().WakeBatch(); wb != 1 {
				t.Fatalf("wake_batch = %d, want 1", wb)
			}
			var clk fakeClock
			// Step 1: two requests in flight on hctx0, three waiters parked.
			var inflight []int
			for i := 0; i < 2; i++ {
				a := &tagset.TagAlloc{Hctx: h0, NoWait: true}
				if a.Start() != tagset.AllocGot {
					t.Fatal("could not fill hctx0")
				}
				inflight = append(inflight, a.Tag)
			}
			migrated := make([]bool, 3)
			completing := false // wake-ups during step 2 hit tasks that then migrate
			waiters := make([]*tagset.TagAlloc, 3)
			for i := range waiters {
				i := i
				waiters[i] = &tagset.TagAlloc{
					Hctx: h0, CPU: 0,
					CurrentHctx: func() (*tagset.Hctx, int) {
						if migrated[i] {
							return h1, 1
						}
						return h0, 0
					},
					Woken: func(a *tagset.TagAlloc) {
						migrated[i] = completing // woken by the completions: now on hctx1's CPU
						clk.after(0, func() { a.Resume() })
					},
				}
				if st := waiters[i].Start(); st != tagset.AllocSleeping {
					t.Fatalf("waiter %d: %v, want sleeping", i, st)
				}
			}
			// Step 2: complete both requests; the woken waiters migrate.
			completing = true
			for _, tag := range inflight {
				h0.PutDriverTag(tag, 0)
			}
			completing = false
			clk.run(1e9)
			var onH0, onH1, sleeping int
			for _, w := range waiters {
				switch {
				case w.Waiting():
					sleeping++
				case w.Hctx == h0:
					onH0++
				default:
					onH1++
				}
			}
			got := fmt.Sprintf("hctx0=%d hctx1=%d sleeping=%d", onH0, onH1, sleeping)
			want := "hctx0=1 hctx1=2 sleeping=0"
			if c.stranded {
				want = "hctx0=0 hctx1=2 sleeping=1"
			}
			if got != want {
				t.Errorf("outcome %s, want %s", got, want)
			}
			if c.stranded && h0.Tags().Busy() != 0 {
				t.Errorf("stranded waiter with hctx0 busy = %d; the bad case needs both tags free", h0.Tags().Busy())
			}
		})
	}
}

// r03Run drives case R03 (a): nq queues on one shared tag bitmap of the given
// depth, all but one idle-but-still-active (their lazy idle timer fires at
// IdleDelay), one live queue with 8 synchronous submitters (queue depth 1
// each) issuing perIO I/Os each, fixed device latency. It returns the longest
// sleep in units of the latency and the time (ns) the last I/O completed.
func r03Run(t *testing.T, depth, nq int, opt tagset.Options, qo sbitmap.QueueOptions, perIO int) (maxSleep float64, end int64) {
	t.Helper()
	const latency = int64(100_000) // 100 µs
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: depth, NrCPUs: 8, Options: opt, Queue: qo})
	var queues []*tagset.RequestQueue
	for i := 0; i < nq; i++ {
		queues = append(queues, mustQueue(t, s, tagset.QueueConfig{}))
	}
	var clk fakeClock
	for _, q := range queues[1:] { // one request each at time 0, then silence
		h := q.Hctx(0)
		q.RequestStarted(0)
		h.PutDriverTag(h.GetDriverTag(0, false), 0)
		clk.after(q.TimerExpiry(), func() { q.TimeoutWork(clk.now, 0) })
	}
	live := queues[0].Hctx(0)
	live.TagBusy()
	if got := s.Tags(0).ActiveQueues(); got != nq {
		t.Fatalf("active_queues = %d, want %d", got, nq)
	}
	left := make([]int, 8)
	var sleptAt [8]int64
	var submit func(i int)
	complete := func(i, tag int) {
		live.PutDriverTag(tag, i)
		end = clk.now
		if left[i]--; left[i] > 0 {
			clk.after(0, func() { submit(i) }) // the submitter reaps, then issues again
		}
	}
	issued := func(i, tag int) { clk.after(latency, func() { complete(i, tag) }) }
	submit = func(i int) {
		a := &tagset.TagAlloc{Hctx: live, CPU: i}
		a.Woken = func(a *tagset.TagAlloc) {
			clk.after(0, func() {
				if d := float64(clk.now-sleptAt[i]) / float64(latency); d > maxSleep {
					maxSleep = d
				}
				if a.Resume() == tagset.AllocGot {
					issued(i, a.Tag)
				} else {
					sleptAt[i] = clk.now
				}
			})
		}
		switch a.Start() {
		case tagset.AllocGot:
			issued(i, a.Tag)
		case tagset.AllocSleeping:
			sleptAt[i] = clk.now
		}
	}
	for i := 0; i < 8; i++ {
		left[i] = perIO
		clk.after(int64(i)*latency/8, func() { submit(i) })
	}
	clk.run(100e9)
	for i, n := range left {
		if n != 0 {
			t.Errorf("submitter %d has %d I/Os left", i, n)
		}
	}
	return maxSleep, end
}

func TestR03SharedTagsLazyIdle(t *testing.T) {
	// The case's setup (depth 32, 8 users: cap 4) and one where the
	// full-depth wake_batch exceeds the cap (depth 64, 16 users: cap 4,
	// wake_batch 8), the condition of the 180dccb0dba4 report. Each of the 8
	// submitters issues perIO I/Os; a short burst leaves sleepers behind when
	// the completions cannot reach a wake batch.
	for _, c := range []struct {
		name      string
		depth, nq int
		qo        sbitmap.QueueOptions
	}{
		{"R03/shared-tags-lazy-idle/depth32-users8", 32, 8, sbitmap.QueueOptions{}},
		{"R03/shared-tags-lazy-idle/depth64-users16", 64, 16, sbitmap.QueueOptions{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for perIO := 1; perIO <= 12; perIO++ {
				maxSleep, end := r03Run(t, c.depth, c.nq, tagset.Options{}, c.qo, perIO)
				if maxSleep > 2 {
					t.Errorf("%d I/Os each: longest sleep with free tags = %.1f latencies, want ≤ 2", perIO, maxSleep)
				}
				if end > 1e9 {
					t.Errorf("%d I/Os each: last completion at %.3f s, want well under the 30 s idle timer", perIO, float64(end)/1e9)
				}
			}
		})
	}
	for _, c := range []struct {
		name      string
		depth, nq int
		qo        sbitmap.QueueOptions
	}{
		{"R03/pre-180dccb0dba4-no-recalc/depth32-users8-countdown-wakeups", 32, 8, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{WakeScheme: sbitmap.WakeCountdown}}}},
		{"R03/pre-180dccb0dba4-no-recalc/depth64-users16", 64, 16, sbitmap.QueueOptions{}},
		// v5.17–v6.1: recalculated, but clamped to at least 4 at depth ≥ 32
		// (fixed by Kemeng Shi's "correct wake_batch recalculation").
		{"R03/pre-kemeng-shi-min-batch-4/depth32-users8-countdown-wakeups", 32, 8,
			sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{WakeScheme: sbitmap.WakeCountdown, RecalcEra: sbitmap.Recalc5_17}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := tagset.Options{NoWakeBatchRecalc: c.qo.Kernel.RecalcEra == sbitmap.Recalc6_2}
			_, end := r03Run(t, c.depth, c.nq, opt, c.qo, 1)
			if end < tagset.DefaultIdleDelay {
				t.Errorf("last completion at %.3f s; want a stall until the 30 s idle timer", float64(end)/1e9)
			}
		})
	}
	t.Run("R03/wake-batch-follows-active-queues", func(t *testing.T) {
		s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 32})
		var qs []*tagset.RequestQueue
		for i := 0; i < 9; i++ {
			qs = append(qs, mustQueue(t, s, tagset.QueueConfig{}))
		}
		for users := 1; users <= 9; users++ {
			qs[users-1].Hctx(0).TagBusy()
			tags := s.Tags(0)
			if got, want := tags.Bitmap().WakeBatch(), sbitmap.RecalcWakeBatch(sbitmap.Recalc6_2, 32, users); got != want {
				t.Errorf("users %d: wake_batch %d, want %d", users, got, want)
			}
			cap := tagset.FairShareDepth(32, users)
			if wb := tags.Bitmap().WakeBatch(); wb*8 > cap && wb != 1 {
				t.Errorf("users %d: wake_batch %d × 8 > fair share %d", users, wb, cap)
			}
		}
	})
}

// r09Harness is a minimal dispatcher for case R09: request queues with an
// elevator sharing one tag set of depth 1, each with one hctx. A request moves
// elevator → dispatch → device; a failed driver tag hooks the hctx on the tag
// wait queue. checkHook is the eb619fdb2d4c rule: after putting requests back
// on the dispatch list, rerun the hctx if its wait hook already fired.
type r09Harness struct {
	clk       fakeClock
	checkHook bool
	window    func() // runs inside the failure window (before the splice)
	queues    []*r09Queue
	done      int
}

type r09Queue struct {
	h         *tagset.Hctx
	elevator  int // requests waiting in the scheduler
	dispatch  int // requests on hctx->dispatch
	running   bool
	runQueued bool
}

func (r *r09Harness) runAsync(q *r09Queue) {
	if q.runQueued {
		return
	}
	q.runQueued = true
	r.clk.after(0, func() { q.runQueued = false; r.run(q) })
}

// run is blk_mq_sched_dispatch_requests reduced to its bones: take every
// pending request into a local list (as a batch dispatch does), dispatch while
// driver tags last, and on failure put the rest back on the dispatch list.
func (r *r09Harness) run(q *r09Queue) {
	local := q.dispatch + q.elevator
	q.dispatch, q.elevator = 0, 0
	for local > 0 {
		tag := q.h.GetDriverTag(0, false)
		if tag < 0 {
			tag, _ = q.h.MarkTagWait(0, false)
		}
		if tag < 0 {
			if r.window != nil {
				w := r.window
				r.window = nil
				w() // the tag frees here: the hook fires before the splice
			}
			q.dispatch += local // back to the dispatch list
			if r.checkHook && !q.h.DispatchWaitQueued() {
				r.runAsync(q)
			}
			return
		}
		local--
		r.clk.after(1000, func() { q.h.PutDriverTag(tag, 0); r.done++ })
	}
}

func TestR09SharedTagDepthOneRerun(t *testing.T) {
	for _, c := range []struct {
		name      string
		checkHook bool
		stuck     bool
	}{
		{"R09/rerun-when-hook-fired", true, false},
		{"R09/pre-eb619fdb2d4c-no-rerun", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 1})
			r := &r09Harness{checkHook: c.checkHook}
			for i := 0; i < 4; i++ {
				q := mustQueue(t, s, tagset.QueueConfig{Elevator: true})
				rq := &r09Queue{h: q.Hctx(0), elevator: 4}
				rq.h.OnTagWake = func(*tagset.Hctx) { r.runAsync(rq) }
				r.queues = append(r.queues, rq)
			}
			// Queue 0 holds the only tag; queue 1 fails and, in the window,
			// queue 0's request completes and its async rerun runs at once.
			r.run(r.queues[0])
			r.window = func() {
				r.clk.run(r.clk.now + 1000)
			}
			for _, q := range r.queues[1:] {
				r.clk.after(0, func() { r.run(q) })
			}
			r.clk.run(1e9)
			stuck := 0
			for _, q := range r.queues {
				stuck += q.dispatch + q.elevator
			}
			if gotStuck := stuck > 0; gotStuck != c.stuck {
				t.Errorf("requests left = %d (done %d), want stuck=%v", stuck, r.done, c.stuck)
			}
			if c.stuck && s.Tags(0).Busy() != 0 {
				t.Errorf("stuck with the shared tag held; the bad case needs it free")
			}
		})
	}
}

// R03 (b): two queues becoming active at once. The pre-fix transition stores a
// wake batch computed for a stale user count when the second transition runs
// inside the first one's window; the locked transition cannot interleave so.
func TestR03WakeBatchRace(t *testing.T) {
	for _, c := range []struct {
		name  string
		opt   tagset.Options
		stale bool
	}{
		{"R03/wake-batch-users-under-lock", tagset.Options{}, false},
		{"R03/pre-yu-kuai-wake-batch-unlocked", tagset.Options{UnlockedWakeBatchUpdate: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 32, Options: c.opt})
			var qs []*tagset.RequestQueue
			for i := 0; i < 3; i++ {
				qs = append(qs, mustQueue(t, s, tagset.QueueConfig{}))
			}
			qs[0].Hctx(0).TagBusy()
			once := false
			tagset.SetRaceWindow(func() {
				if !once {
					once = true
					qs[2].Hctx(0).TagBusy() // the other queue's whole transition
				}
			})
			defer tagset.SetRaceWindow(nil)
			qs[1].Hctx(0).TagBusy()
			if !once { // the locked transition has no window: the other runs after
				qs[2].Hctx(0).TagBusy()
			}
			tags := s.Tags(0)
			want := sbitmap.RecalcWakeBatch(sbitmap.Recalc6_2, 32, tags.ActiveQueues())
			got := tags.Bitmap().WakeBatch()
			if tags.ActiveQueues() != 3 {
				t.Fatalf("active_queues = %d, want 3", tags.ActiveQueues())
			}
			if stale := got != want; stale != c.stale {
				t.Errorf("wake_batch %d for 3 users (want %d): stale=%v, want stale=%v", got, want, stale, c.stale)
			}
		})
	}
}

// TestMigratedWaiterBecomesActiveLater: blk_mq_get_tag re-maps the hctx after
// io_schedule without blk_mq_tag_busy, which only __blk_mq_alloc_requests calls. A
// waiter that moved to an hctx where its queue is not active allocates there without
// the fair-share limit (hctx_may_queue: not active → allowed) and the queue becomes
// active on that hctx only at its next allocation; on the old hctx it stays active
// (until the timeout work finds the queue idle).
func TestMigratedWaiterBecomesActiveLater(t *testing.T) {
	type outcome struct {
		Status               string
		Hctx                 int
		ActiveOld, ActiveNew bool // queue a's flag on hctx0 / hctx1 after the wait
		UsersNew             int  // active_queues of hctx1's tags after the wait
		ActiveNewAfterNext   bool // after a's next allocation on hctx1
		UsersNewAfterNext    int
	}
	for _, c := range []struct {
		name    string
		migrate bool
		want    outcome
	}{
		{"woken-on-same-hctx", false, outcome{Status: "got", Hctx: 0, ActiveOld: true, ActiveNew: false, UsersNew: 1,
			ActiveNewAfterNext: false, UsersNewAfterNext: 1}},
		{"migrated-active-at-next-allocation", true, outcome{Status: "got", Hctx: 1, ActiveOld: true, ActiveNew: false, UsersNew: 1,
			ActiveNewAfterNext: true, UsersNewAfterNext: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 8, NrCPUs: 2})
			a := mustQueue(t, s, tagset.QueueConfig{})
			b := mustQueue(t, s, tagset.QueueConfig{})
			// b is active on hctx1 with two requests; a fills hctx0.
			for i := 0; i < 2; i++ {
				if b.Hctx(1).GetDriverTag(1, false) < 0 {
					t.Fatal("b: no tag on hctx1")
				}
			}
			var held []int
			for i := 0; i < 8; i++ {
				tag := a.Hctx(0).GetDriverTag(0, false)
				if tag < 0 {
					t.Fatalf("a: hctx0 full after %d", i)
				}
				held = append(held, tag)
			}
			woken := false
			w := &tagset.TagAlloc{Hctx: a.Hctx(0), CPU: 0,
				CurrentHctx: func() (*tagset.Hctx, int) {
					if c.migrate {
						return a.Hctx(1), 1
					}
					return a.Hctx(0), 0
				},
				Woken: func(*tagset.TagAlloc) { woken = true }}
			if st := w.Start(); st != tagset.AllocSleeping {
				t.Fatalf("waiter: %v, want sleeping", st)
			}
			for _, tag := range held {
				a.Hctx(0).PutDriverTag(tag, 0)
				if woken {
					break
				}
			}
			if !woken {
				t.Fatal("waiter not woken")
			}
			st := w.Resume()
			got := outcome{Status: st.String(), Hctx: w.Hctx.Index(), ActiveOld: a.Hctx(0).Active(),
				ActiveNew: a.Hctx(1).Active(), UsersNew: s.Tags(1).ActiveQueues()}
			// the next bio: __blk_mq_alloc_requests marks the current hctx busy first
			next := &tagset.TagAlloc{Hctx: w.Hctx, CPU: w.CPU, NoWait: true}
			next.Start()
			got.ActiveNewAfterNext, got.UsersNewAfterNext = a.Hctx(1).Active(), s.Tags(1).ActiveQueues()
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}
