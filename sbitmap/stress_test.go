package sbitmap_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"go.uber.org/goleak"
)

var stressDepths = []int{1, 2, 3, 15, 56, 64, 192, 1024}

const stressGoroutines = 64

func stressOps(t *testing.T) int {
	if testing.Short() {
		return 150
	}
	return 1500
}

// owners records which goroutine holds each bit; a second holder is a failure.
type owners []atomic.Int32

func (o owners) take(t *testing.T, bit, id int) bool {
	if !o[bit].CompareAndSwap(0, int32(id+1)) {
		t.Errorf("bit %d handed to goroutine %d while held by %d", bit, id, o[bit].Load()-1)
		return false
	}
	return true
}

func (o owners) release(t *testing.T, bit, id int) {
	if !o[bit].CompareAndSwap(int32(id+1), 0) {
		t.Errorf("goroutine %d frees bit %d held by %d", id, bit, o[bit].Load()-1)
	}
}

// TestStressNoDoubleOwnership runs 64 goroutines of mixed get/shallow/batch/put
// against each depth, with the kernel's shift rule and with the default 64-bit words
// (where a depth up to 64 is one word and Get takes its one-word fast path); no bit
// may be held twice and all bits are free at the end.
func TestStressNoDoubleOwnership(t *testing.T) {
	for _, depth := range stressDepths {
		for _, words := range []string{"kernel-shift", "64-bit", "direct"} {
			for _, rr := range []bool{false, true} {
				if words == "64-bit" && (depth > 64 || depth < 4) {
					continue // the same layout as the kernel rule's, or several words
				}
				t.Run(fmt.Sprintf("depth=%d/words=%s/rr=%v", depth, words, rr), func(t *testing.T) {
					opt := stressOptions(words)
					opt.RoundRobin = rr
					runNoDoubleOwnership(t, depth, opt)
				})
			}
		}
	}
}

func runNoDoubleOwnership(t *testing.T, depth int, opt sbitmap.QueueOptions) {
	q, err := sbitmap.NewQueue(depth, opt)
	if err != nil {
		t.Fatal(err)
	}
	own := make(owners, depth)
	ops := stressOps(t)
	var wg sync.WaitGroup
	for id := range stressGoroutines {
		wg.Go(func() { stressWorker(t, q, own, id, ops) })
	}
	wg.Wait()
	if w := q.Sbitmap().Weight(); w != 0 {
		t.Errorf("weight %d at the end, want 0", w)
	}
	var h uint32
	for range depth {
		if q.Get(&h) < 0 {
			t.Fatalf("could not allocate all %d bits at the end", depth)
		}
	}
}

func stressWorker(t *testing.T, q *sbitmap.Queue, own owners, id, ops int) {
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	hint := q.Sbitmap().InitHint(uint64(id))
	held := make([]int, 0, 16)
	for range ops {
		switch op := rng.IntN(10); {
		case op < 4:
			if b := q.Get(&hint); b >= 0 && own.take(t, b, id) {
				held = append(held, b)
			}
		case op < 5:
			if b := q.GetShallow(&hint, 1+rng.IntN(8)); b >= 0 && own.take(t, b, id) {
				held = append(held, b)
			}
		case op < 6:
			off, mask := q.GetBatch(&hint, 1+rng.IntN(4))
			var batch []int
			for i := range 64 {
				if mask&(1<<i) != 0 && own.take(t, off+i, id) {
					batch = append(batch, off+i)
				}
			}
			if len(batch) > 0 {
				for _, b := range batch {
					own.release(t, b, id)
				}
				q.ClearBatch(batch, &hint)
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
}

// stressOptions returns the options of a stress row by its words name: the kernel's
// shift rule, the default 64-bit words, or 64-bit words with Options.DirectClear.
func stressOptions(words string) sbitmap.QueueOptions {
	switch words {
	case "kernel-shift":
		return sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}
	case "direct":
		return sbitmap.QueueOptions{Options: sbitmap.Options{DirectClear: true}}
	}
	return sbitmap.QueueOptions{}
}

// TestStressGetWait: 64 goroutines block in GetWait at each depth, for both wake
// schemes, with the kernel's shift rule and (for depths 4..64, one word) the default
// 64-bit words, and with Options.DirectClear (every depth; and with HandOff); a quarter of them have their context cancelled midway. Every goroutine
// finishes (no waiter is stranded), no bit is held twice, and all bits end free.
func TestStressGetWait(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, scheme := range []sbitmap.WakeScheme{sbitmap.WakeGlobal, sbitmap.WakeCountdown} {
		for _, depth := range stressDepths {
			for _, words := range []string{"kernel-shift", "64-bit", "direct", "direct-handoff"} {
				if words == "64-bit" && (depth > 64 || depth < 4) {
					continue // the same layout as the kernel rule's, or several words
				}
				t.Run(fmt.Sprintf("scheme=%v/depth=%d/words=%s", scheme, depth, words), func(t *testing.T) {
					opt := stressOptions(words)
					if words == "direct-handoff" {
						opt = stressOptions("direct")
						opt.HandOff = true
					}
					opt.Kernel.WakeScheme = scheme
					runGetWaitStress(t, depth, opt)
				})
			}
		}
	}
}

func runGetWaitStress(t *testing.T, depth int, opt sbitmap.QueueOptions) {
	q, err := sbitmap.NewQueue(depth, opt)
	if err != nil {
		t.Fatal(err)
	}
	own := make(owners, depth)
	ops := stressOps(t) / 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress atomic.Int64
	var wg sync.WaitGroup
	for id := range stressGoroutines {
		wg.Go(func() {
			hint := q.Sbitmap().InitHint(uint64(id))
			c := context.Background()
			if id%4 == 0 {
				c = ctx
			}
			for range ops {
				b, err := q.GetWait(c, &hint)
				if err != nil {
					continue
				}
				if own.take(t, b, id) {
					own.release(t, b, id)
				}
				q.Clear(b, &hint)
				if progress.Add(1) == int64(stressGoroutines*ops/2) {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	if w := q.Sbitmap().Weight(); w != 0 || q.WsActive() != 0 || q.Waiting() != 0 {
		t.Errorf("at the end: weight %d, ws_active %d, waiting %d; want 0, 0, 0", w, q.WsActive(), q.Waiting())
	}
}
