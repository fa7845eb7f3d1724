package sbitmap_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sbitmap"
	"go.uber.org/goleak"
)

func waitUntil(cond func() bool) {
	for !cond() {
		runtime.Gosched()
	}
}

func TestGetWaitFastPathAndCancelled(t *testing.T) {
	defer goleak.VerifyNone(t)
	q, _ := sbitmap.NewQueue(1, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var h uint32
	b, err := q.GetWait(ctx, &h)
	if b != 0 || err != nil {
		t.Fatalf("GetWait with a free bit and a cancelled context = %d, %v; want 0, nil", b, err)
	}
	b, err = q.GetWait(ctx, &h)
	if b != -1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("GetWait on a full bitmap with a cancelled context = %d, %v; want -1, Canceled", b, err)
	}
	if q.WsActive() != 0 || q.Waiting() != 0 {
		t.Errorf("ws_active %d waiting %d, want 0", q.WsActive(), q.Waiting())
	}
}

func TestGetWaitBlocksUntilClear(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, scheme := range []sbitmap.WakeScheme{sbitmap.WakeGlobal, sbitmap.WakeCountdown} {
		t.Run(scheme.String(), func(t *testing.T) {
			q, _ := sbitmap.NewQueue(4, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: scheme}}})
			var h uint32
			var held []int
			for range 4 {
				held = append(held, q.Get(&h))
			}
			const waiters = 8
			done := make(chan int, waiters)
			for i := range waiters {
				go func() {
					hint := uint32(i)
					b, err := q.GetWait(context.Background(), &hint)
					if err != nil {
						t.Error(err)
					}
					done <- b
				}()
			}
			waitUntil(func() bool { return q.Waiting() == waiters })
			// Each freed bit is taken by a waiter, which frees it again.
			for _, b := range held {
				q.Clear(b, &h)
			}
			for range waiters {
				b := <-done
				q.Clear(b, &h)
			}
			if q.WsActive() != 0 || q.Sbitmap().Weight() != 0 {
				t.Errorf("ws_active %d weight %d at the end", q.WsActive(), q.Sbitmap().Weight())
			}
		})
	}
}

func TestGetWaitCancelWhileBlocked(t *testing.T) {
	defer goleak.VerifyNone(t)
	q, _ := sbitmap.NewQueue(1, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	var h uint32
	q.Get(&h)
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error)
	go func() {
		var hint uint32
		_, err := q.GetWait(ctx, &hint)
		res <- err
	}()
	waitUntil(func() bool { return q.Waiting() == 1 })
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want Canceled", err)
	}
	if q.WsActive() != 0 || q.Waiting() != 0 {
		t.Errorf("ws_active %d waiting %d after cancel, want 0", q.WsActive(), q.Waiting())
	}
}

// flagCtx is a context whose Done channel never closes but whose Err turns non-nil
// when set: it makes "woken, then finds the context done" deterministic.
type flagCtx struct {
	context.Context
	done atomic.Bool
}

func (c *flagCtx) Err() error {
	if c.done.Load() {
		return context.Canceled
	}
	return nil
}

func (c *flagCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// A waiter woken (with no bit for it) that then gives up passes the wake-up on, so
// the next waiter is not stranded: the bug of golang/sync PR #10 in
// x/sync/semaphore.
func TestGetWaitGiveUpPassesWakeUpOn(t *testing.T) {
	defer goleak.VerifyNone(t)
	q, _ := sbitmap.NewQueue(1, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	var h uint32
	q.Get(&h) // the only bit stays held throughout
	ctx := &flagCtx{Context: context.Background()}
	res := make(chan error)
	go func() {
		var hint uint32
		_, err := q.GetWait(ctx, &hint)
		res <- err
	}()
	waitUntil(func() bool { return q.WaitQueueLen(0) == 1 })
	var cWoken atomic.Int32
	c := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) { cWoken.Add(1) }}
	q.PrepareWait(c, 1)
	ctx.done.Store(true)
	if n := q.WakeWaiters(1); n != 1 { // wakes the GetWait waiter on queue 0
		t.Fatalf("WakeWaiters woke %d, want 1", n)
	}
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	if cWoken.Load() != 1 {
		t.Errorf("the other waiter was woken %d times, want 1 (wake-up passed on)", cWoken.Load())
	}
	q.FinishWait(c)
	if q.WsActive() != 0 {
		t.Errorf("ws_active %d, want 0", q.WsActive())
	}
}

func TestNoAllocs(t *testing.T) {
	q, _ := sbitmap.NewQueue(64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	var h uint32
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() { q.Clear(q.Get(&h), &h) }); n != 0 {
		t.Errorf("Get+Clear allocates %.1f per op", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		b, _ := q.GetWait(ctx, &h)
		q.Clear(b, &h)
	}); n != 0 {
		t.Errorf("GetWait (fast path)+Clear allocates %.1f per op", n)
	}
	w := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) {}}
	if n := testing.AllocsPerRun(1000, func() {
		q.PrepareWait(w, 3)
		q.FinishWait(w)
	}); n != 0 {
		t.Errorf("PrepareWait+FinishWait allocates %.1f per op", n)
	}
}
