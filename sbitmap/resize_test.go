package sbitmap_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sbitmap"
)

// resizeStressOps is the number of operations each goroutine of the concurrent-resize
// stress runs.
func resizeStressOps() int {
	if testing.Short() {
		return 400
	}
	return 3000
}

// TestStressConcurrentResize runs 64 goroutines mixing Get, GetShallow, GetBatch,
// GetWait (a quarter of the goroutines with a context cancelled halfway through the
// run, so that cancellations race hand-overs and Resize), Clear and Resize on one
// Queue (issue 19). Every bit handed out must be
// below the depth that was in effect at some instant of the call (so below the
// largest depth any Resize set) and held by one goroutine at a time; bits held past a
// shrunken depth are freed by their owners; at the end, after a Resize to the full
// depth, every bit is free again.
func TestStressConcurrentResize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int
		shift    int
		depths   []int // the depths Resize chooses from
		handOff  bool
	}{
		{"one-word/cap32", 32, sbitmap.MaxShift, []int{1, 2, 7, 32}, false},
		{"kernel-shift/cap32", 32, 0, []int{1, 8, 9, 32}, false},
		{"kernel-shift/cap192", 192, 0, []int{1, 47, 48, 100, 192}, false},
		{"one-bit-words/cap16", 16, sbitmap.ShiftZero, []int{1, 5, 16}, false},
		{"hand-off/one-word/cap32", 32, sbitmap.MaxShift, []int{1, 2, 7, 32}, true},
		{"hand-off/kernel-shift/cap192", 192, 0, []int{1, 47, 48, 100, 192}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := sbitmap.NewQueue(tc.capacity, sbitmap.QueueOptions{HandOff: tc.handOff, Options: sbitmap.Options{Shift: tc.shift, Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
			if err != nil {
				t.Fatal(err)
			}
			maxDepth := 0
			for _, d := range tc.depths {
				maxDepth = max(maxDepth, d)
			}
			own := make(owners, tc.capacity)
			var bad atomic.Int32
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cctx, cancelHalf := context.WithCancel(ctx)
			defer cancelHalf()
			ops := resizeStressOps()
			var done atomic.Int64
			var wg sync.WaitGroup
			for id := range stressGoroutines {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(id), 19))
					hint := q.Sbitmap().InitHint(uint64(id))
					var held []int
					take := func(bit int) {
						if bit >= maxDepth || bit < 0 {
							if bad.Add(1) < 5 {
								t.Errorf("goroutine %d got bit %d, beyond every depth (max %d, capacity %d)", id, bit, maxDepth, tc.capacity)
							}
							return
						}
						if own.take(t, bit, id) {
							held = append(held, bit)
						}
					}
					wctx := ctx
					if id%4 == 1 {
						wctx = cctx
					}
					for range ops {
						if done.Add(1) == int64(stressGoroutines*ops/2) {
							cancelHalf()
						}
						switch op := rng.IntN(20); {
						case op == 0 && id%8 == 0:
							if err := q.Resize(tc.depths[rng.IntN(len(tc.depths))]); err != nil {
								t.Error(err)
							}
						case op < 8:
							if b := q.Get(&hint); b >= 0 {
								take(b)
							}
						case op < 10:
							if b := q.GetShallow(&hint, 1+rng.IntN(8)); b >= 0 {
								take(b)
							}
						case op == 12 && len(held) == 0:
							// Only a goroutine holding nothing waits, so holders always
							// make progress; the deadline only turns a hang into a failure.
							b, err := q.GetWait(wctx, &hint)
							if err != nil {
								if wctx == cctx && b == -1 && cctx.Err() != nil && ctx.Err() == nil {
									break // cancelled halfway: allowed
								}
								t.Errorf("goroutine %d: GetWait = %d, %v", id, b, err)
								return
							}
							take(b)
						case op < 12:
							off, mask := q.GetBatch(&hint, 1+rng.IntN(4))
							for i := 0; mask != 0; i++ {
								if mask&1 != 0 {
									take(off + i)
								}
								mask >>= 1
							}
						default:
							if len(held) > 0 {
								i := rng.IntN(len(held))
								b := held[i]
								held[i] = held[len(held)-1]
								held = held[:len(held)-1]
								own.release(t, b, id)
								q.Clear(b, &hint)
							}
						}
					}
					for _, b := range held {
						own.release(t, b, id)
						q.Clear(b, &hint)
					}
				})
			}
			wg.Wait()
			if err := q.Resize(tc.capacity); err != nil {
				t.Fatal(err)
			}
			if w := q.Sbitmap().Weight(); w != 0 {
				t.Errorf("weight %d at the end, want 0", w)
			}
			var h uint32
			got := map[int]bool{}
			for range tc.capacity {
				b := q.Get(&h)
				if b < 0 || got[b] {
					t.Fatalf("at the end: Get returned %d after %d distinct bits of %d", b, len(got), tc.capacity)
				}
				got[b] = true
			}
			if b := q.Get(&h); b != -1 {
				t.Errorf("Get on a full map returned %d", b)
			}
		})
	}
}

// TestResizeGetPastDepth is the reproduction of issue 19: three goroutines get and
// clear while a fourth alternates Resize(1) and Resize(32); no Get may return a bit at
// or past the capacity-word width the depth allows.
func TestResizeGetPastDepth(t *testing.T) {
	q, err := sbitmap.NewQueue(32, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	own := make(owners, 32)
	for id := range 3 {
		wg.Go(func() {
			hint := q.Sbitmap().InitHint(uint64(id))
			for i := 0; i < 20000 && !stop.Load(); i++ {
				b := q.Get(&hint)
				if b < 0 {
					continue
				}
				if b >= 32 {
					t.Errorf("Get returned %d (capacity 32)", b)
					stop.Store(true)
					return
				}
				if !own.take(t, b, id) {
					stop.Store(true)
					return
				}
				own.release(t, b, id)
				q.Clear(b, &hint)
			}
		})
	}
	wg.Go(func() {
		for i := 0; i < 20000 && !stop.Load(); i++ {
			if err := q.Resize(1 + 31*(i&1)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
}

// TestResizeGrowWakesGetWait: a GetWait asleep on a full map is woken when a Resize
// makes room, without any Clear.
func TestResizeGrowWakesGetWait(t *testing.T) {
	for _, handOff := range []bool{false, true} {
		t.Run(fmt.Sprintf("hand-off=%v", handOff), func(t *testing.T) { testResizeGrowWakesGetWait(t, handOff) })
	}
}

func testResizeGrowWakesGetWait(t *testing.T, handOff bool) {
	q, err := sbitmap.NewQueue(4, sbitmap.QueueOptions{HandOff: handOff, Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Resize(1); err != nil {
		t.Fatal(err)
	}
	var h uint32
	if b := q.Get(&h); b != 0 {
		t.Fatalf("Get = %d, want 0", b)
	}
	done := make(chan int)
	go func() {
		var h2 uint32
		b, _ := q.GetWait(context.Background(), &h2)
		done <- b
	}()
	for q.WsActive() == 0 && q.Waiting() == 0 {
		runtime.Gosched()
	}
	if err := q.Resize(4); err != nil {
		t.Fatal(err)
	}
	if b := <-done; b < 1 || b >= 4 {
		t.Errorf("GetWait returned %d, want a bit in [1, 4)", b)
	}
}
