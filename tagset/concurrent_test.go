package tagset_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkmq/blkmq/tagset"
)

// TestConcurrentDriverTags hammers GetDriverTag/PutDriverTag from many
// goroutines on a shared tag set with two queues (fair sharing on) and checks
// that no tag is ever held twice and the depth is never exceeded.
func TestConcurrentDriverTags(t *testing.T) {
	const workers = 8
	ops := 20000
	if testing.Short() {
		ops = 2000
	}
	s := mustSet(t, tagset.Config{NrHwQueues: 2, QueueDepth: 24, ReservedTags: 2, HostTagset: true, NrCPUs: workers})
	qs := []*tagset.RequestQueue{mustQueue(t, s, tagset.QueueConfig{}), mustQueue(t, s, tagset.QueueConfig{})}
	owner := make([]atomic.Int32, 24)
	var held atomic.Int32
	var maxHeld atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(cpu int) {
			defer wg.Done()
			h := qs[cpu%2].Hctx(cpu % 2)
			for i := 0; i < ops; i++ {
				reserved := i%17 == 0
				tag := h.GetDriverTag(cpu, reserved)
				if tag < 0 {
					continue
				}
				if !owner[tag].CompareAndSwap(0, int32(cpu+1)) {
					t.Errorf("tag %d handed out twice", tag)
					return
				}
				n := held.Add(1)
				for m := maxHeld.Load(); n > m && !maxHeld.CompareAndSwap(m, n); m = maxHeld.Load() {
				}
				held.Add(-1)
				owner[tag].Store(0)
				h.PutDriverTag(tag, cpu)
			}
		}(w)
	}
	wg.Wait()
	if m := maxHeld.Load(); m > 24 {
		t.Errorf("max tags held %d > depth 24", m)
	}
	if b := s.Tags(0).Busy(); b != 0 {
		t.Errorf("tags busy after all puts = %d", b)
	}
	for _, q := range qs {
		if n := q.ActiveRequests(); n != 0 {
			t.Errorf("active requests left %d", n)
		}
	}
}

// TestConcurrentWakeBatchUsers is R03 (b): queues becoming active at the same
// time must leave wake_batch matching active_queues.
func TestConcurrentWakeBatchUsers(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	for r := 0; r < rounds; r++ {
		s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 256})
		var qs []*tagset.RequestQueue
		for i := 0; i < 6; i++ {
			qs = append(qs, mustQueue(t, s, tagset.QueueConfig{}))
		}
		var wg sync.WaitGroup
		for _, q := range qs {
			wg.Add(1)
			go func() { defer wg.Done(); q.Hctx(0).TagBusy() }()
		}
		wg.Wait()
		tags := s.Tags(0)
		if got, want := tags.Bitmap().WakeBatch(), (256+5)/6/8; tags.ActiveQueues() != 6 || got != want {
			t.Fatalf("round %d: active_queues %d wake_batch %d, want 6 and %d", r, tags.ActiveQueues(), got, want)
		}
	}
}

// TestConcurrentTagAllocWaiters runs blocking allocations from goroutines
// through the TagAlloc state machine with channel-based wake-ups.
func TestConcurrentTagAllocWaiters(t *testing.T) {
	const workers = 6
	ops := 3000
	if testing.Short() {
		ops = 300
	}
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 4, NrCPUs: workers})
	q := mustQueue(t, s, tagset.QueueConfig{})
	h := q.Hctx(0)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(cpu int) {
			defer wg.Done()
			wake := make(chan struct{}, 1)
			a := &tagset.TagAlloc{Hctx: h, CPU: cpu, Woken: func(*tagset.TagAlloc) { wake <- struct{}{} }}
			for i := 0; i < ops; i++ {
				st := a.Start()
				for st == tagset.AllocSleeping {
					select {
					case <-wake:
					case <-ctx.Done():
						return
					}
					st = a.Resume()
				}
				h.PutDriverTag(a.Tag, cpu)
			}
		}(w)
	}
	wg.Wait()
	if b := s.Tags(0).Busy(); b != 0 {
		t.Errorf("tags busy after all puts = %d", b)
	}
}

// TestGetTagContext blocks in GetTag from goroutines, including ones that give
// up through their context, and checks every tag comes back.
func TestGetTagContext(t *testing.T) {
	const workers = 6
	ops := 2000
	if testing.Short() {
		ops = 200
	}
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 3, NrCPUs: workers})
	h := mustQueue(t, s, tagset.QueueConfig{}).Hctx(0)
	var wg sync.WaitGroup
	var cancelled atomic.Int32
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(cpu int) {
			defer wg.Done()
			for i := 0; i < ops; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				if i%50 == 49 {
					cancel() // give up at once if the tag is not free
				}
				tag, err := h.GetTag(ctx, cpu, false)
				cancel()
				if err != nil {
					cancelled.Add(1)
					continue
				}
				h.PutDriverTag(tag, cpu)
			}
		}(w)
	}
	wg.Wait()
	if b := s.Tags(0).Busy(); b != 0 {
		t.Errorf("tags busy after all puts = %d", b)
	}
	if _, err := h.GetTag(context.Background(), 0, true); err != tagset.ErrNoTag {
		t.Errorf("reserved GetTag without reserved tags: %v, want ErrNoTag", err)
	}
}

// TestConcurrentMarkTagWait dispatches from goroutines that, lacking a driver
// tag, hook their hctx on the tag wait queue and wait for OnTagWake, the way
// a dispatcher relies on the wake-up to rerun.
func TestConcurrentMarkTagWait(t *testing.T) {
	const workers = 4
	ops := 3000
	if testing.Short() {
		ops = 300
	}
	s := mustSet(t, tagset.Config{NrHwQueues: workers, QueueDepth: 2, HostTagset: true, NrCPUs: workers})
	qa := mustQueue(t, s, tagset.QueueConfig{Elevator: true})
	mustQueue(t, s, tagset.QueueConfig{Elevator: true}) // make the set TAG_QUEUE_SHARED
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(cpu int) {
			defer wg.Done()
			h := qa.Hctx(cpu)
			run := make(chan struct{}, 1)
			h.OnTagWake = func(*tagset.Hctx) {
				select {
				case run <- struct{}{}:
				default:
				}
			}
			for i := 0; i < ops; i++ {
				for {
					tag := h.GetDriverTag(cpu, false)
					if tag < 0 {
						var res tagset.TagWaitResult
						tag, res = h.MarkTagWait(cpu, false)
						if res == tagset.TagWaitHooked || res == tagset.TagWaitAlreadyHooked {
							<-run // rerun when a tag frees
							continue
						}
					}
					if tag >= 0 {
						h.PutDriverTag(tag, cpu)
						break
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if b := s.Tags(0).Busy(); b != 0 {
		t.Errorf("tags busy after all puts = %d", b)
	}
}
