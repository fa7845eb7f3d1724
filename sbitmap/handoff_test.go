package sbitmap_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
)

// TestHandOffReleaserCannotRetake: with HandOff, a Clear with a GetWait queued gives
// the bit to the waiter, so the releaser's immediate Get fails; without it, the bit is
// free after the Clear and the releaser may take it back (the kernel's behaviour; the
// woken waiter races it for the bit, so either may win).
func TestHandOffReleaserCannotRetake(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handOff bool
		wantGet []int // the releaser's Get right after its Clear: one of these
	}{
		{"hand-off", true, []int{-1}},
		{"kernel", false, []int{0, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := sbitmap.NewQueue(1, sbitmap.QueueOptions{HandOff: tc.handOff})
			if err != nil {
				t.Fatal(err)
			}
			var h uint32
			bit := q.Get(&h)
			done := make(chan int)
			go func() {
				var h2 uint32
				b, _ := q.GetWait(context.Background(), &h2)
				done <- b
			}()
			for q.Waiting() == 0 {
				runtime.Gosched()
			}
			q.Clear(bit, &h)
			got := q.Get(&h)
			if !slices.Contains(tc.wantGet, got) {
				t.Errorf("releaser's Get after Clear = %d, want one of %v", got, tc.wantGet)
			}
			if got >= 0 {
				q.Clear(got, &h)
			}
			if b := <-done; b != 0 {
				t.Errorf("GetWait = %d, want 0", b)
			}
		})
	}
}

// TestHandOffStress: 32 goroutines on a HandOff queue mix GetWait (some with
// contexts cancelled midway), GetBatch with ClearBatch, and Clear; no bit has two
// owners, no waiter is stranded, and at the end every bit is free and nobody is
// registered or waiting.
func TestHandOffStress(t *testing.T) {
	ops := 2000
	if testing.Short() {
		ops = 300
	}
	for _, depth := range []int{1, 4, 70} {
		q, err := sbitmap.NewQueue(depth, sbitmap.QueueOptions{HandOff: true})
		if err != nil {
			t.Fatal(err)
		}
		own := make(owners, depth)
		var wg sync.WaitGroup
		for id := range 32 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(id), 18))
				hint := q.Sbitmap().InitHint(uint64(id))
				for range ops {
					if id%8 == 1 && rng.IntN(2) == 0 {
						off, mask := q.GetBatch(&hint, 1+rng.IntN(3))
						var batch []int
						for i := 0; mask != 0; i++ {
							if mask&1 != 0 && own.take(t, off+i, id) {
								batch = append(batch, off+i)
							}
							mask >>= 1
						}
						runtime.Gosched()
						for _, b := range batch {
							own.release(t, b, id)
						}
						q.ClearBatch(batch, &hint)
						continue
					}
					var b int
					if rng.IntN(4) == 0 {
						ctx, cancel := context.WithCancel(context.Background())
						if rng.IntN(2) == 0 {
							cancel()
						}
						b, _ = q.GetWait(ctx, &hint)
						cancel()
					} else {
						b, _ = q.GetWait(context.Background(), &hint)
					}
					if b < 0 {
						continue
					}
					if !own.take(t, b, id) {
						return
					}
					runtime.Gosched()
					own.release(t, b, id)
					q.Clear(b, &hint)
				}
			})
		}
		wg.Wait()
		if w, a, n := q.Sbitmap().Weight(), q.WsActive(), q.Waiting(); w != 0 || a != 0 || n != 0 {
			t.Errorf("depth %d: weight %d, ws_active %d, waiting %d at the end; want 0, 0, 0", depth, w, a, n)
		}
	}
}

// TestWakeBatchOverride: a fixed WakeBatch survives Resize, SetMinShallowDepth and
// RecalculateWakeBatch; out of range is an error.
func TestWakeBatchOverride(t *testing.T) {
	q, err := sbitmap.NewQueue(256, sbitmap.QueueOptions{WakeBatch: sbitmap.WakeEveryFree})
	if err != nil {
		t.Fatal(err)
	}
	_ = q.Resize(200)
	_ = q.SetMinShallowDepth(100)
	q.RecalculateWakeBatch(1)
	if wb := q.WakeBatch(); wb != 1 {
		t.Errorf("wake batch %d, want 1", wb)
	}
	if _, err := sbitmap.NewQueue(8, sbitmap.QueueOptions{WakeBatch: 9}); err == nil ||
		err.Error() != "sbitmap: wake batch 9 out of range [0, 8] (0 = the kernel's rule)" {
		t.Errorf("WakeBatch 9: err %v", err)
	}
}

// TestHandOffClearBatchFeedsWaiter: ClearBatch frees bits directly; with HandOff a
// GetWait asleep for a hand-over gets one of them (it is not on the wait queues the
// batch's wake-up would reach), and the other stays free.
func TestHandOffClearBatchFeedsWaiter(t *testing.T) {
	q, err := sbitmap.NewQueue(2, sbitmap.QueueOptions{HandOff: true})
	if err != nil {
		t.Fatal(err)
	}
	var h uint32
	a, b := q.Get(&h), q.Get(&h)
	done := make(chan int)
	go func() {
		var h2 uint32
		bit, _ := q.GetWait(context.Background(), &h2)
		done <- bit
	}()
	for q.Waiting() == 0 {
		runtime.Gosched()
	}
	q.ClearBatch([]int{a, b}, &h)
	got := <-done
	if got != a && got != b {
		t.Fatalf("GetWait = %d, want %d or %d", got, a, b)
	}
	if w, n := q.Sbitmap().Weight(), q.Waiting(); w != 1 || n != 0 {
		t.Errorf("weight %d, waiting %d after the hand-over; want 1, 0", w, n)
	}
}
