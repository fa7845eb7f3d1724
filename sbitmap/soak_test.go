package sbitmap_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blkmq/blkmq/sbitmap"
)

// soakDuration is how long a soak test keeps starting rounds: $BLKMQ_SOAK (a Go
// duration, e.g. 10m) or 2 s (300 ms under -short). It bounds the test's length only;
// nothing is asserted about time.
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("BLKMQ_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("BLKMQ_SOAK=%q: %v", v, err)
		}
		return d
	}
	if testing.Short() {
		return 300 * time.Millisecond
	}
	return 2 * time.Second
}

// TestSoakQueue runs rounds of a random sbitmap_queue (depth, shift, round-robin,
// wake scheme, hand-off mode) hammered by 16 goroutines mixing Get, GetShallow,
// GetBatch, GetWait (a quarter with contexts cancelled midway), Clear and ClearBatch,
// while one of them also resizes the queue, until the soak duration has passed. Every
// round: no bit is held twice, no bit at or past the capacity is handed out, every
// goroutine finishes (no waiter stranded), and at the end, after a Resize back to the
// capacity, all bits are free and no waiter is registered. Run under -race in CI
// (-short: 300 ms).
func TestSoakQueue(t *testing.T) {
	end := time.Now().Add(soakDuration(t))
	rng := rand.New(rand.NewPCG(1, 9))
	rounds := 0
	for ; rounds == 0 || time.Now().Before(end); rounds++ {
		depth := 1 + rng.IntN(300)
		opt := sbitmap.QueueOptions{Options: sbitmap.Options{Shift: rng.IntN(7), RoundRobin: rng.IntN(2) == 0,
			Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: sbitmap.WakeScheme(rng.IntN(2))}},
			HandOff: rng.IntN(2) == 0}
		name := fmt.Sprintf("round %d depth %d %+v", rounds, depth, opt)
		q, err := sbitmap.NewQueue(depth, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		soakRound(t, name, q, depth, rng.Uint64())
		if t.Failed() {
			return
		}
	}
	t.Logf("%d rounds", rounds)
}

func soakRound(t *testing.T, name string, q *sbitmap.Queue, depth int, seed uint64) {
	const workers, ops = 16, 400
	own := make(owners, depth)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	var wg sync.WaitGroup
	for id := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(id)))
			hint := q.Sbitmap().InitHint(uint64(id))
			var held []int
			c := context.Background()
			if id%4 == 0 {
				c = ctx
			}
			for range ops {
				switch op := rng.IntN(12); {
				case id == 0 && op == 11:
					// Worker 0 resizes now and then (a shrink strands nobody: the
					// bits held past the depth are freed by their owners).
					if err := q.Resize(1 + rng.IntN(depth)); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				case op < 3:
					if b := q.Get(&hint); b >= 0 && own.take(t, b, id) {
						held = append(held, b)
					}
				case op < 4:
					if b := q.GetShallow(&hint, 1+rng.IntN(8)); b >= 0 && own.take(t, b, id) {
						held = append(held, b)
					}
				case op < 5:
					off, mask := q.GetBatch(&hint, 1+rng.IntN(4))
					var batch []int
					for i := range 64 {
						if mask&(1<<i) != 0 && own.take(t, off+i, id) {
							batch = append(batch, off+i)
						}
					}
					for _, b := range batch {
						own.release(t, b, id)
					}
					if len(batch) > 0 {
						q.ClearBatch(batch, &hint)
					}
				case op < 7 && len(held) == 0:
					// block only holding nothing, as a queue-depth-1 submitter does:
					// a goroutine waiting while holding bits could deadlock the round
					if b, err := q.GetWait(c, &hint); err == nil && own.take(t, b, id) {
						held = append(held, b)
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
				if done.Add(1) == workers*ops/2 {
					cancel()
				}
			}
			for _, b := range held {
				own.release(t, b, id)
				q.Clear(b, &hint)
			}
		})
	}
	wg.Wait()
	if err := q.Resize(depth); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if w := q.Sbitmap().Weight(); w != 0 || q.WsActive() != 0 || q.Waiting() != 0 {
		t.Errorf("%s: at the end weight %d, ws_active %d, waiting %d; want 0, 0, 0", name, w, q.WsActive(), q.Waiting())
	}
}
