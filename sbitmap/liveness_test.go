package sbitmap_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
)

// These tests drive the bug-report cases of /work/shared/cases (R01, R04, R06, R08)
// deterministically with callback waiters. Each shows the good outcome with the
// current behaviour and, where an option models the historical code, the bad outcome
// with that option.

const maxSteps = 1 << 16 // bound on completions in any scenario

// parkAndDrain builds a rig of holders (each holding one bit, quota 1) plus waiters
// (each wanting nIO I/Os), submits everybody (holders first) and returns the rig.
func parkAndDrain(t *testing.T, q *sbitmap.Queue, holders, waiters, nIO int) *rig {
	t.Helper()
	r := newRig(t, q, holders+waiters, 1)
	for _, s := range r.subs[holders:] {
		s.left = nIO
	}
	r.startAll()
	return r
}

func TestR01ResizeResetsWaitCounts(t *testing.T) {
	for _, order := range []string{"park-then-resize", "resize-then-park"} {
		t.Run("R01/"+order, func(t *testing.T) {
			q, err := sbitmap.NewQueue(256, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: sbitmap.WakeCountdown}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := q.WakeBatch(); got != 8 {
				t.Fatalf("wake_batch at depth 256 = %d, want 8", got)
			}
			var r *rig
			if order == "park-then-resize" {
				r = parkAndDrain(t, q, 256, 16, 3)
				mustResize(t, q, 4)
			} else {
				mustResize(t, q, 4)
				r = parkAndDrain(t, q, 4, 16, 3)
			}
			if got := q.WakeBatch(); got != 1 {
				t.Fatalf("wake_batch after resize to 4 = %d, want 1", got)
			}
			for i := range sbitmap.WaitQueues {
				if c := q.WaitCnt(i); c > q.WakeBatch() {
					t.Errorf("wait_cnt[%d] = %d > wake_batch %d after resize", i, c, q.WakeBatch())
				}
			}
			if r.sleepers() != 16 {
				t.Fatalf("parked %d waiters, want 16", r.sleepers())
			}
			r.drain(maxSteps)
			if n := r.sleepers(); n != 0 {
				t.Errorf("%d waiters still asleep with %d bits free", n, r.freeBits())
			}
			if r.gets != r.frees || r.q.Sbitmap().Weight() != 0 {
				t.Errorf("gets %d frees %d weight %d, want all freed", r.gets, r.frees, q.Sbitmap().Weight())
			}
		})
	}
}

// Before 6c0ca7ae292a a resize left the countdowns at the old batch of 8, which at
// most 4 in-flight bits cannot reach: the waiters sleep for ever with all bits free.
func TestR01Before6c0ca7ae292a(t *testing.T) {
	q, err := sbitmap.NewQueue(256, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: sbitmap.WakeCountdown, KeepWaitCntOnResize: true}}})
	if err != nil {
		t.Fatal(err)
	}
	mustResize(t, q, 4)
	if c := q.WaitCnt(0); c != 8 {
		t.Fatalf("wait_cnt[0] = %d after resize with KeepWaitCntOnResize, want stale 8", c)
	}
	r := parkAndDrain(t, q, 4, 16, 3)
	r.drain(maxSteps)
	if n, free := r.sleepers(), r.freeBits(); n != 16 || free != 4 {
		t.Errorf("sleepers %d, free bits %d; want the bad outcome: 16 asleep with 4 free", n, free)
	}
}

func mustResize(t *testing.T, q *sbitmap.Queue, d int) {
	t.Helper()
	if err := q.Resize(d); err != nil {
		t.Fatal(err)
	}
}

// R04: a depth-1..3 device whose wake batch is recalculated after a second queue
// comes and goes.
func TestR04SmallDepthRecalc(t *testing.T) {
	// v5.17-rc2 … v6.1 ran the countdown scheme; v6.2+ the global counters.
	for _, era := range []struct {
		recalc sbitmap.RecalcEra
		scheme sbitmap.WakeScheme
	}{{sbitmap.Recalc6_2, sbitmap.WakeGlobal}, {sbitmap.Recalc5_17, sbitmap.WakeCountdown}, {sbitmap.Recalc5_17, sbitmap.WakeGlobal}} {
		for _, depth := range []int{1, 2, 3} {
			for _, subs := range []int{1, 2, 3, 4} {
				name := fmt.Sprintf("R04/era=%d/scheme=%v/depth=%d/submitters=%d", era.recalc, era.scheme, depth, subs)
				t.Run(name, func(t *testing.T) {
					stranded, wb := runR04(t, era.recalc, era.scheme, depth, subs)
					if wb > max(1, depth/8) {
						t.Errorf("wake_batch %d > max(1, depth/8) at depth %d", wb, depth)
					}
					if stranded != 0 {
						t.Errorf("%d submitters asleep after drain", stranded)
					}
				})
			}
		}
	}
}

// With 180dccb0dba4 as first merged (v5.17-rc1), the batch is clamped to at least 4,
// which a depth below 4 never reaches: the second submitter sleeps for ever.
func TestR04Before10825410b956(t *testing.T) {
	for _, depth := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("depth=%d", depth), func(t *testing.T) {
			stranded, wb := runR04(t, sbitmap.Recalc5_17rc1, sbitmap.WakeCountdown, depth, depth+1)
			if wb != 4 || stranded == 0 {
				t.Errorf("wake_batch %d, stranded %d; want the bad outcome: batch 4 and a sleeper left", wb, stranded)
			}
		})
	}
}

func runR04(t *testing.T, era sbitmap.RecalcEra, scheme sbitmap.WakeScheme, depth, subs int) (stranded, wb int) {
	t.Helper()
	q, err := sbitmap.NewQueue(depth, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, RecalcEra: era, WakeScheme: scheme}}})
	if err != nil {
		t.Fatal(err)
	}
	q.RecalculateWakeBatch(2)   // a second queue becomes active...
	q.RecalculateWakeBatch(1)   // ...and idle again
	r := newRig(t, q, subs, 41) // 41 I/Os each: the tail is not a multiple of the batch
	r.completerFirst = true     // synchronous readers: the completer resubmits at once
	r.startAll()
	r.drain(maxSteps)
	return r.sleepers(), q.WakeBatch()
}

// R06 as in the commit message of 106397376c03: depth 64, batch 8, one sleeper per
// wait queue; every wake-up is followed at once by a new sleeper on the same queue (a
// task whose allocation attempts failed while all 64 bits were busy and that reaches
// the wait list only now). After the 64 busy bits complete, the woken tasks' bits
// complete and no more tasks arrive.
func runR06(t *testing.T, oneQueuePerBatch bool) (woken, stranded, free int) {
	t.Helper()
	q, err := sbitmap.NewQueue(64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeOneQueuePerBatch: oneQueuePerBatch}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.WakeBatch() != 8 {
		t.Fatalf("wake_batch = %d, want 8", q.WakeBatch())
	}
	var hint uint32
	held := make([]int, 0, 128)
	for range 64 {
		held = append(held, q.Get(&hint))
	}
	arriving := true
	sleepers := map[*sbitmap.Waiter]bool{}
	var wake func(w *sbitmap.Waiter)
	park := func(ws int) {
		w := &sbitmap.Waiter{Wake: wake}
		q.PrepareWait(w, ws)
		sleepers[w] = true
	}
	wake = func(w *sbitmap.Waiter) {
		ws := w.WaitQueue()
		q.FinishWait(w)
		delete(sleepers, w)
		woken++
		var h uint32
		bit := q.Get(&h)
		if bit < 0 {
			t.Fatalf("woken waiter found no free bit")
		}
		held = append(held, bit)
		if arriving {
			park(ws)
		}
	}
	for ws := range sbitmap.WaitQueues {
		park(ws)
	}
	for i := 0; i < len(held) && i < maxSteps; i++ {
		if i == 64 {
			arriving = false
		}
		q.Clear(held[i], &hint)
	}
	return woken, len(sleepers), q.Depth() - q.Sbitmap().Weight()
}

func TestR06BatchWakesUpToWakeBatch(t *testing.T) {
	woken, stranded, free := runR06(t, false)
	if stranded != 0 || free != 64 {
		t.Errorf("woken %d, stranded %d, free %d; want 0 stranded and 64 free", woken, stranded, free)
	}
}

func TestR06Before106397376c03(t *testing.T) {
	woken, stranded, free := runR06(t, true)
	if woken != 9 || stranded != 7 || free != 64 {
		t.Errorf("woken %d, stranded %d, free %d; want the bad outcome of the commit message: 9 woken, 7 stranded, 64 free",
			woken, stranded, free)
	}
}

// R06 as a closed loop: 72 submitters with queue depth 1 on depth 64, then a drain.
func TestR06ClosedLoopDrain(t *testing.T) {
	for _, completerFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("R06/completer-first=%v", completerFirst), func(t *testing.T) {
			q, _ := sbitmap.NewQueue(64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
			r := newRig(t, q, 72, 1<<30)
			r.completerFirst = completerFirst
			r.startAll()
			if r.sleepers() != 8 {
				t.Fatalf("sleepers after start = %d, want 8", r.sleepers())
			}
			r.drain(2000)
			r.stopped = true
			r.drain(maxSteps)
			if n := r.sleepers(); n != 0 || len(r.inflight) != 0 {
				t.Errorf("after drain: %d asleep, %d in flight; want 0 and 0", n, len(r.inflight))
			}
		})
	}
}

// R08: two allocators find the single word full; T1 folds the cleared mask and
// allocates, then T2 checks the word. The interleaving is forced with a test hook
// (two goroutines handing over through channels, so the order is fixed). T2 has
// registered as a waiter before its attempt (the v4.5 order of blk_mq_get_tag), so a
// failed attempt means it sleeps; T1 then frees its bit, one free short of a batch.
func runR08(t *testing.T, unlocked bool) (bit1, bit2 int, asleep bool, free int) {
	t.Helper()
	q, err := sbitmap.NewQueue(64, sbitmap.QueueOptions{Options: sbitmap.Options{Shift: 6, Kernel: sbitmap.KernelSwitches{CalculateShift: true, UnlockedDeferredClear: unlocked}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.WakeBatch() < 2 {
		t.Fatalf("wake_batch %d, need >= 2 for the scenario", q.WakeBatch())
	}
	var h uint32
	for range 64 {
		q.Get(&h)
	}
	for b := range 64 {
		q.Clear(b, &h) // all 64 now sit in the cleared mask
	}
	if q.Sbitmap().Cleared(0) != ^uint64(0) {
		t.Fatalf("cleared mask %#x, want all ones", q.Sbitmap().Cleared(0))
	}
	t1AtHook, t2AtHook, t1Done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	calls := 0 // only touched by the goroutine holding the hand-over
	restore := sbitmap.SetTestHookWordFull(func() {
		calls++
		switch calls {
		case 1: // T1 found the word full
			close(t1AtHook)
			<-t2AtHook
		case 2: // T2 found the word full too, before T1 folded
			close(t2AtHook)
			<-t1Done
		}
	})
	defer restore()
	r1, r2 := make(chan int), make(chan int)
	woken := make(chan struct{}, 1)
	w := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) { woken <- struct{}{} }}
	go func() { var h1 uint32; r1 <- q.Get(&h1) }()
	<-t1AtHook
	go func() {
		var h2 uint32
		q.PrepareWait(w, 0)
		r2 <- q.Get(&h2)
	}()
	bit1 = <-r1
	close(t1Done)
	bit2 = <-r2
	if bit1 >= 0 {
		q.Clear(bit1, &h)
	}
	asleep = bit2 < 0 && w.Queued() // a successful T2 would FinishWait now
	q.FinishWait(w)
	return bit1, bit2, asleep, q.Depth() - q.Sbitmap().Weight()
}

func TestR08ClearedRace(t *testing.T) {
	bit1, bit2, asleep, _ := runR08(t, false)
	if bit1 < 0 || bit2 < 0 || asleep {
		t.Errorf("T1 got %d, T2 got %d, T2 asleep %v; want both to allocate at once", bit1, bit2, asleep)
	}
}

func TestR08Before72d04bdcf3f7(t *testing.T) {
	bit1, bit2, asleep, free := runR08(t, true)
	if bit1 < 0 || bit2 != -1 || !asleep || free != 64 {
		t.Errorf("T1 got %d, T2 got %d, T2 asleep %v with %d free; want the bad outcome: T2 fails and sleeps with 64 free",
			bit1, bit2, asleep, free)
	}
}

// R08 with the fold in flight: T1 finds the word full and is folding its cleared mask
// (cleared already emptied, the word not yet updated) when T2 finds the word full and
// checks it. T2 must not conclude from the empty cleared mask that nothing is free:
// in the fixed mode it waits for T1's fold (the swap lock) and allocates; before
// 72d04bdcf3f7 it fails while 63 bits are about to be free. This is the window the
// lock-free check of deferredClear must also respect.
func runR08FoldInFlight(t *testing.T, unlocked bool) (bit1, bit2 int, t2WaitedForFold bool) {
	t.Helper()
	sb, err := sbitmap.New(64, sbitmap.Options{Shift: 6, Kernel: sbitmap.KernelSwitches{CalculateShift: true, UnlockedDeferredClear: unlocked}})
	if err != nil {
		t.Fatal(err)
	}
	var h uint32
	for range 64 {
		sb.Get(&h)
	}
	for b := range 64 {
		sb.Put(b, &h)
	}
	midFold, release, spinning := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var folds, spins atomic.Int32
	restore := sbitmap.SetTestHookMidFold(func() {
		if folds.Add(1) == 1 { // T1's fold
			close(midFold)
			<-release
		}
	}, func() {
		if spins.Add(1) == 1 { // T2 found the swap lock held
			close(spinning)
		}
	})
	defer restore()
	r1, r2 := make(chan int), make(chan int)
	go func() { var h1 uint32; r1 <- sb.Get(&h1) }()
	<-midFold
	go func() { h2 := uint32(0); r2 <- sb.Get(&h2) }()
	select {
	case <-spinning:
		t2WaitedForFold = true
		close(release)
		bit2 = <-r2
	case bit2 = <-r2:
		close(release)
	}
	bit1 = <-r1
	return bit1, bit2, t2WaitedForFold
}

func TestR08FoldInFlight(t *testing.T) {
	bit1, bit2, waited := runR08FoldInFlight(t, false)
	if bit1 < 0 || bit2 < 0 || bit1 == bit2 || !waited {
		t.Errorf("T1 got %d, T2 got %d, T2 waited for the fold %v; want two distinct bits, T2 waiting", bit1, bit2, waited)
	}
}

func TestR08FoldInFlightBefore72d04bdcf3f7(t *testing.T) {
	bit1, bit2, waited := runR08FoldInFlight(t, true)
	if bit1 < 0 || bit2 != -1 || waited {
		t.Errorf("T1 got %d, T2 got %d, T2 waited %v; want the bad outcome: T2 fails during the fold", bit1, bit2, waited)
	}
}
