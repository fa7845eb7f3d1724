package sbitmap_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"go.uber.org/goleak"
)

// TestHandOffCancelRacesHandOver: with HandOff, a GetWait whose context is cancelled
// at the moment a Clear hands it a bit either returns that bit (success wins) or
// leaves with the bit passed on to the next waiter or freed; the bit never leaks (held
// in the bitmap, or left in the hand-over channel, with no owner). Each round holds
// every bit, parks the waiters (the first with a context that is cancelled, the
// others without), then releases a Clear, the cancellation and, in the resize rows, a
// Resize at the same instant; every waiter must finish, and once everyone has freed
// what it got and the depth is back at the capacity, every bit must be free, nobody
// registered, and a Get must be able to take every bit.
func TestHandOffCancelRacesHandOver(t *testing.T) {
	defer goleak.VerifyNone(t)
	rounds := 2000
	if testing.Short() {
		rounds = 300
	}
	for _, tc := range []struct {
		name     string
		capacity int
		waiters  int
		resize   []int // depths a third goroutine sets during the race, in order
	}{
		{"one-waiter", 1, 1, nil},
		{"cancelled-then-waiting", 1, 2, nil},
		{"two-bits-three-waiters", 2, 3, nil},
		{"resize-shrink-during-hand-over", 2, 2, []int{1}},
		{"resize-shrink-and-grow", 2, 2, []int{1, 2}},
		{"kernel-shift-words", 8, 3, []int{3, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := sbitmap.NewQueue(tc.capacity, sbitmap.QueueOptions{HandOff: true,
				Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
			if err != nil {
				t.Fatal(err)
			}
			for r := range rounds {
				handOffCancelRound(t, q, tc.capacity, tc.waiters, tc.resize, r)
				if t.Failed() {
					t.Fatalf("round %d failed", r)
				}
			}
		})
	}
}

func handOffCancelRound(t *testing.T, q *sbitmap.Queue, capacity, waiters int, resize []int, round int) {
	var h uint32
	held := make([]int, 0, capacity)
	for range capacity {
		b := q.Get(&h)
		if b < 0 {
			t.Fatalf("round %d: Get on an idle queue failed (weight %d, waiting %d): a bit leaked",
				round, q.Sbitmap().Weight(), q.Waiting())
		}
		held = append(held, b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan int, waiters)
	var wg sync.WaitGroup
	for w := range waiters {
		c := context.Background()
		if w == 0 {
			c = ctx
		}
		wg.Go(func() {
			hint := uint32(w)
			b, err := q.GetWait(c, &hint)
			if b < 0 && (w != 0 || !errors.Is(err, context.Canceled)) {
				t.Errorf("round %d: waiter %d: GetWait = %d, %v", round, w, b, err)
			}
			if b >= 0 {
				q.Clear(b, &hint) // frees it or hands it to the next waiter
			}
			got <- b
		})
		// Park the waiters one by one, so that the cancelled one is first in line.
		waitUntil(func() bool { return q.Waiting() == w+1 })
	}
	start := make(chan struct{})
	var race sync.WaitGroup
	race.Go(func() { <-start; q.Clear(held[len(held)-1], &h) })
	race.Go(func() { <-start; cancel() })
	if resize != nil {
		race.Go(func() {
			<-start
			for _, d := range resize {
				if err := q.Resize(d); err != nil {
					t.Error(err)
				}
			}
		})
	}
	close(start)
	race.Wait()
	// Free the other bits, and grow back to the capacity so that any bit freed past
	// a shrunken depth comes back, so that the waiters can finish.
	for _, b := range held[:len(held)-1] {
		q.Clear(b, &h)
	}
	if err := q.Resize(capacity); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(got)
	if w, n := q.Sbitmap().Weight(), q.Waiting(); w != 0 || n != 0 {
		t.Errorf("round %d: at the end weight %d, waiting %d; want 0, 0", round, w, n)
	}
}
