package tagset_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blkmq/blkmq/tagset"
)

// soakDuration is how long TestSoakTagSet keeps starting rounds: $BLKMQ_SOAK (a Go
// duration) or 2 s (300 ms under -short). It bounds the test's length only.
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

// TestSoakTagSet runs rounds of a random tag set (1–4 hctxs, depth 1–64, reserved
// tags, host-wide or per-hctx tags, round-robin, 1–3 request queues sharing it) with
// one goroutine per CPU mixing blocking GetTag (some contexts cancelled),
// non-blocking GetDriverTag and PutDriverTag, until the soak duration has passed.
// Every round: no tag is held twice, a reserved request never gets a normal tag and
// vice versa, every goroutine finishes, and at the end no tag is busy and no request
// is counted active. Run under -race in CI (-short: 300 ms).
func TestSoakTagSet(t *testing.T) {
	end := time.Now().Add(soakDuration(t))
	rng := rand.New(rand.NewPCG(2, 9))
	rounds := 0
	for ; rounds == 0 || time.Now().Before(end); rounds++ {
		depth := 1 + rng.IntN(64)
		cfg := tagset.Config{NrHwQueues: 1 + rng.IntN(4), QueueDepth: depth, ReservedTags: rng.IntN(min(depth, 3)),
			HostTagset: rng.IntN(2) == 0, RoundRobin: rng.IntN(4) == 0, NrCPUs: 2 + rng.IntN(7), Seed: rng.Uint64()}
		name := fmt.Sprintf("round %d %+v", rounds, cfg)
		s, err := tagset.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var qs []*tagset.RequestQueue
		for range 1 + rng.IntN(3) {
			qs = append(qs, mustQueue(t, s, tagset.QueueConfig{}))
		}
		soakTagRound(t, name, s, qs, rng.Uint64())
		if t.Failed() {
			return
		}
	}
	t.Logf("%d rounds", rounds)
}

func soakTagRound(t *testing.T, name string, s *tagset.TagSet, qs []*tagset.RequestQueue, seed uint64) {
	cfg := s.Config()
	const ops = 300
	owners := map[*tagset.Tags][]atomic.Int32{}
	for h := range cfg.NrHwQueues {
		if tg := s.Tags(h); owners[tg] == nil {
			owners[tg] = make([]atomic.Int32, tg.NrTags())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for cpu := range cfg.NrCPUs {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(cpu)))
			type heldTag struct {
				h   *tagset.Hctx
				tag int
			}
			var held []heldTag
			take := func(h *tagset.Hctx, tag int, reserved bool) bool {
				tg := h.Tags()
				if tg.IsReserved(tag) != reserved {
					t.Errorf("%s: cpu %d: tag %d reserved=%v for a reserved=%v request", name, cpu, tag, tg.IsReserved(tag), reserved)
				}
				if !owners[tg][tag].CompareAndSwap(0, int32(cpu+1)) {
					t.Errorf("%s: tag %d handed to cpu %d while held by %d", name, tag, cpu, owners[tg][tag].Load()-1)
					return false
				}
				held = append(held, heldTag{h, tag})
				return true
			}
			put := func(i int) {
				x := held[i]
				held[i] = held[len(held)-1]
				held = held[:len(held)-1]
				owners[x.h.Tags()][x.tag].Store(0)
				x.h.PutDriverTag(x.tag, cpu)
			}
			for i := range ops {
				h := qs[rng.IntN(len(qs))].Hctx(rng.IntN(cfg.NrHwQueues))
				reserved := cfg.ReservedTags > 0 && rng.IntN(8) == 0
				switch op := rng.IntN(10); {
				case op < 3 && len(held) == 0:
					c := context.Background()
					if cpu%3 == 0 {
						c = ctx
					}
					if tag, err := h.GetTag(c, cpu, reserved); err == nil {
						take(h, tag, reserved)
					}
				case op < 6:
					if tag := h.GetDriverTag(cpu, reserved); tag >= 0 {
						take(h, tag, reserved)
					}
				default:
					if len(held) > 0 {
						put(rng.IntN(len(held)))
					}
				}
				if cpu == 0 && i == ops/2 {
					cancel()
				}
			}
			for len(held) > 0 {
				put(0)
			}
		})
	}
	wg.Wait()
	for h := range cfg.NrHwQueues {
		if b := s.Tags(h).Busy(); b != 0 {
			t.Errorf("%s: hctx %d: %d tags busy at the end", name, h, b)
		}
	}
	for i, q := range qs {
		if n := q.ActiveRequests(); n != 0 {
			t.Errorf("%s: queue %d: %d active requests at the end", name, i, n)
		}
	}
}
