package sbitmap_test

import (
	"context"
	"sync"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"go.uber.org/goleak"
)

// Goroutine versions of the liveness cases, through the blocking GetWait: every
// goroutine finishes its bounded number of allocations (a stranded waiter would hang
// the test), no goroutine is left behind, and all bits end free.
func TestLivenessGetWait(t *testing.T) {
	defer goleak.VerifyNone(t)
	ops := 200
	if testing.Short() {
		ops = 40
	}
	for _, tc := range []struct {
		name       string
		depth      int
		goroutines int
		opt        sbitmap.QueueOptions
		// before runs once all goroutines are started and the bitmap is full.
		before func(q *sbitmap.Queue)
	}{
		{"R01/resize-while-waiting", 256, 16 + 256, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: sbitmap.WakeCountdown}}},
			func(q *sbitmap.Queue) { mustResizeQ(q, 4) }},
		{"R04/depth-1-recalc", 1, 4, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, RecalcEra: sbitmap.Recalc5_17, WakeScheme: sbitmap.WakeCountdown}}},
			func(q *sbitmap.Queue) { q.RecalculateWakeBatch(2); q.RecalculateWakeBatch(1) }},
		{"R04/depth-3-recalc", 3, 4, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}},
			func(q *sbitmap.Queue) { q.RecalculateWakeBatch(2); q.RecalculateWakeBatch(1) }},
		{"R06/72-on-64", 64, 72, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, nil},
		{"R08/single-word", 64, 66, sbitmap.QueueOptions{Options: sbitmap.Options{Shift: 6, Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := sbitmap.NewQueue(tc.depth, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			// Hold every bit so the goroutines start by waiting.
			var h uint32
			held := make([]int, 0, tc.depth)
			for range tc.depth {
				held = append(held, q.Get(&h))
			}
			var wg sync.WaitGroup
			for g := range tc.goroutines {
				wg.Go(func() {
					hint := q.Sbitmap().InitHint(uint64(g))
					for range ops {
						b, err := q.GetWait(context.Background(), &hint)
						if err != nil {
							t.Error(err)
							return
						}
						q.Clear(b, &hint)
					}
				})
			}
			waitUntil(func() bool { return q.WsActive() > 0 })
			if tc.before != nil {
				tc.before(q)
			}
			for _, b := range held {
				q.Clear(b, &h)
			}
			wg.Wait()
			if w := q.Sbitmap().Weight(); w != 0 || q.WsActive() != 0 {
				t.Errorf("weight %d, ws_active %d at the end; want 0 and 0", w, q.WsActive())
			}
		})
	}
}

func mustResizeQ(q *sbitmap.Queue, d int) {
	if err := q.Resize(d); err != nil {
		panic(err)
	}
}
