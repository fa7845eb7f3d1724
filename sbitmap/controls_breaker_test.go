package sbitmap_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sbitmap"
	"go.uber.org/goleak"
)

// TestStressControlCalls covers the Queue methods that doc.go documents as safe for
// concurrent use but that no other stress test calls while goroutines allocate:
// SetMinShallowDepth, RecalculateWakeBatch, WakeUp, WakeWaiters, WakeAll,
// AddWaitHook/RemoveWaitHook, NextWaitQueue, and Sbitmap's AnySet and ForEachSet
// (with Resize, which the others cover, mixed in). Eight workers allocate with Get,
// GetShallow and GetWait (only while holding nothing) and free with Clear; one
// goroutine calls the control methods in a loop, another registers and removes wait
// hooks, until the workers are done. Asserted: no bit is held twice, none at or past
// the capacity is handed out, no call panics, every worker finishes (after the
// control loop has restored the depth, a stranded waiter would hang the test: it
// fails after 60 s), and at the end every bit is free, no waiter or hook is counted.
// Run under -race with -short.
func TestStressControlCalls(t *testing.T) {
	defer goleak.VerifyNone(t)
	ops := 2000
	if testing.Short() {
		ops = 300
	}
	for _, tc := range []struct {
		name  string
		depth int
		opt   sbitmap.QueueOptions
	}{
		{"one-word", 4, sbitmap.QueueOptions{}},
		{"one-full-word", 64, sbitmap.QueueOptions{}},
		{"kernel-shift", 130, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}},
		{"kernel-shift/countdown", 130, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: sbitmap.WakeCountdown}}}},
		{"hand-off", 32, sbitmap.QueueOptions{HandOff: true}},
		{"hand-off/round-robin/kernel-shift", 130, sbitmap.QueueOptions{HandOff: true, Options: sbitmap.Options{RoundRobin: true, Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}},
	} {
		t.Run(fmt.Sprintf("%s/depth=%d", tc.name, tc.depth), func(t *testing.T) {
			q, err := sbitmap.NewQueue(tc.depth, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			controlRound(t, q, tc.depth, ops)
		})
	}
}

func controlRound(t *testing.T, q *sbitmap.Queue, depth, ops int) {
	const workers = 8
	own := make(owners, depth)
	var workersDone sync.WaitGroup
	stop := make(chan struct{})
	var hooksFired atomic.Int64
	// The control loop.
	var side sync.WaitGroup
	side.Go(func() {
		rng := rand.New(rand.NewPCG(7, uint64(depth)))
		for {
			select {
			case <-stop:
				// Restore what a program would before waiting for its workers:
				// the full depth (a growing Resize wakes the waiters).
				if err := q.Resize(depth); err != nil {
					t.Error(err)
				}
				return
			default:
			}
			switch rng.IntN(9) {
			case 0:
				if err := q.SetMinShallowDepth(1 + rng.IntN(q.Capacity())); err != nil {
					t.Error(err)
				}
			case 1:
				q.RecalculateWakeBatch(rng.IntN(10))
			case 2:
				q.WakeUp(rng.IntN(4))
			case 3:
				q.WakeWaiters(rng.IntN(4))
			case 4:
				q.WakeAll()
			case 5:
				if err := q.Resize(1 + rng.IntN(depth)); err != nil {
					t.Error(err)
				}
			case 6:
				q.Sbitmap().ForEachSet(rng.IntN(depth), func(bit int) bool {
					if bit < 0 || bit >= q.Capacity() {
						t.Errorf("ForEachSet visited bit %d outside [0, %d)", bit, q.Capacity())
					}
					return rng.IntN(8) != 0
				})
			case 7:
				_ = q.Sbitmap().AnySet()
				if i := q.NextWaitQueue(); i < 0 || i >= 8 {
					t.Errorf("NextWaitQueue = %d, want [0, 8)", i)
				}
			case 8:
				if w := q.Sbitmap().Weight(); w < 0 || w > q.Capacity() {
					t.Errorf("Weight = %d outside [0, %d]", w, q.Capacity())
				}
			}
		}
	})
	// The hook loop: one hook, queued and removed again, as blk_mq_mark_tag_wait
	// adds and blk_mq_dispatch_wake or the hctx's teardown removes it.
	side.Go(func() {
		fired := make(chan struct{}, 1)
		h := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) {
			hooksFired.Add(1)
			fired <- struct{}{}
		}}
		rng := rand.New(rand.NewPCG(8, uint64(depth)))
		for {
			select {
			case <-stop:
				return // the hook is not queued here (removed or fired below)
			default:
			}
			if !q.AddWaitHook(h, rng.IntN(8)) {
				t.Error("AddWaitHook of a hook not queued reported false")
				return
			}
			if rng.IntN(2) == 0 {
				time.Sleep(time.Microsecond)
			}
			if !q.RemoveWaitHook(h) {
				<-fired // woken: wait for its Wake before queueing it again
			}
		}
	})
	for id := range workers {
		workersDone.Go(func() {
			rng := rand.New(rand.NewPCG(9, uint64(id)))
			hint := q.Sbitmap().InitHint(uint64(id))
			var held []int
			take := func(b int) {
				if b >= q.Capacity() {
					t.Errorf("bit %d handed out, capacity %d", b, q.Capacity())
					return
				}
				if own.take(t, b, id) {
					held = append(held, b)
				}
			}
			for range ops {
				switch op := rng.IntN(8); {
				case op < 2:
					if b := q.Get(&hint); b >= 0 {
						take(b)
					}
				case op < 3:
					if b := q.GetShallow(&hint, 1+rng.IntN(8)); b >= 0 {
						take(b)
					}
				case op < 5 && len(held) == 0:
					b, err := q.GetWait(context.Background(), &hint)
					if err != nil {
						t.Errorf("GetWait: %v", err)
						return
					}
					take(b)
				case len(held) > 0:
					i := rng.IntN(len(held))
					b := held[i]
					held[i] = held[len(held)-1]
					held = held[:len(held)-1]
					own.release(t, b, id)
					q.Clear(b, &hint)
				}
			}
			for _, b := range held {
				own.release(t, b, id)
				q.Clear(b, &hint)
			}
		})
	}
	// The workers run while the control loop does; stop it once all but the waiters
	// are done, then let the restored depth wake them.
	done := make(chan struct{})
	go func() { workersDone.Wait(); close(done) }()
	timer := time.NewTimer(60 * time.Second)
	defer timer.Stop()
	select {
	case <-done:
	case <-time.After(time.Duration(ops) * 2 * time.Millisecond):
	}
	close(stop)
	side.Wait()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("workers still running 60 s after the control loop restored the depth: weight %d, ws_active %d, waiting %d, wake batch %d",
			q.Sbitmap().Weight(), q.WsActive(), q.Waiting(), q.WakeBatch())
	}
	if w := q.Sbitmap().Weight(); w != 0 || q.WsActive() != 0 || q.Waiting() != 0 {
		t.Errorf("at the end weight %d, ws_active %d, waiting %d; want 0, 0, 0 (hooks fired %d)", w, q.WsActive(), q.Waiting(), hooksFired.Load())
	}
}
