package sbitmap_test

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"golang.org/x/sync/semaphore"
)

// pool is the interface the benchmarks drive: a tag allocator. hint is per
// goroutine (ignored by the baselines).
type pool interface {
	get(hint *uint32) int
	put(tag int, hint *uint32)
	getWait(ctx context.Context, hint *uint32) int
}

type sbPool struct{ q *sbitmap.Queue }

func (p sbPool) get(h *uint32) int      { return p.q.Get(h) }
func (p sbPool) put(tag int, h *uint32) { p.q.Clear(tag, h) }
func (p sbPool) getWait(ctx context.Context, h *uint32) int {
	b, _ := p.q.GetWait(ctx, h)
	return b
}

// chanPool is a channel pre-filled with every tag.
type chanPool chan int

func newChanPool(depth int) chanPool {
	c := make(chanPool, depth)
	for i := range depth {
		c <- i
	}
	return c
}

func (c chanPool) get(*uint32) int {
	select {
	case t := <-c:
		return t
	default:
		return -1
	}
}
func (c chanPool) put(tag int, _ *uint32)                     { c <- tag }
func (c chanPool) getWait(ctx context.Context, _ *uint32) int { return <-c }

// chanRegPool is chanPool plus the bookkeeping that a FIFO hand-off over a bitmap
// cannot do without: a blocking get registers in a counter on its own cache line
// before it parks on the channel (one atomic add), and a put that finds the counter
// positive takes one registration off it (a load and a compare-and-swap) before it
// sends. The counter is only kept, never used to decide anything: the channel's own
// lock is what pairs the put with the parked get. It is the least sbitmap's hand-off
// (which parks on a channel the same way, with the tags kept in the bitmap) can cost
// at depth 4, where every get parks: the channel pool's price plus the counter's
// two locked instructions.
type chanRegPool struct {
	c chan int
	_ [56]byte
	n atomic.Int64
	_ [56]byte
}

func newChanRegPool(depth int) *chanRegPool { return &chanRegPool{c: newChanPool(depth)} }

func (p *chanRegPool) get(h *uint32) int { return chanPool(p.c).get(h) }
func (p *chanRegPool) put(tag int, _ *uint32) {
	if n := p.n.Load(); n > 0 {
		p.n.CompareAndSwap(n, n-1)
	}
	p.c <- tag
}
func (p *chanRegPool) getWait(ctx context.Context, _ *uint32) int {
	select {
	case t := <-p.c:
		return t
	default:
	}
	p.n.Add(1)
	return <-p.c
}

// mutexPool is a sync.Mutex around a bitset with first-free search.
type mutexPool struct {
	mu    sync.Mutex
	cond  *sync.Cond
	words []uint64
	depth int
}

func newMutexPool(depth int) *mutexPool {
	p := &mutexPool{words: make([]uint64, (depth+63)/64), depth: depth}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *mutexPool) getLocked() int {
	for i, w := range p.words {
		if free := ^w; free != 0 {
			b := i*64 + bits.TrailingZeros64(free)
			if b >= p.depth {
				return -1
			}
			p.words[i] |= 1 << (b % 64)
			return b
		}
	}
	return -1
}

func (p *mutexPool) get(*uint32) int {
	p.mu.Lock()
	b := p.getLocked()
	p.mu.Unlock()
	return b
}

func (p *mutexPool) put(tag int, _ *uint32) {
	p.mu.Lock()
	p.words[tag/64] &^= 1 << (tag % 64)
	p.mu.Unlock()
	p.cond.Signal()
}

func (p *mutexPool) getWait(_ context.Context, _ *uint32) int {
	p.mu.Lock()
	b := p.getLocked()
	for b < 0 {
		p.cond.Wait()
		b = p.getLocked()
	}
	p.mu.Unlock()
	return b
}

// semPool is x/sync/semaphore: counting only, no tag numbers.
type semPool struct{ s *semaphore.Weighted }

func (p semPool) get(*uint32) int {
	if p.s.TryAcquire(1) {
		return 0
	}
	return -1
}
func (p semPool) put(int, *uint32) { p.s.Release(1) }
func (p semPool) getWait(ctx context.Context, _ *uint32) int {
	if err := p.s.Acquire(ctx, 1); err != nil {
		return -1
	}
	return 0
}

// casPool is a lock-free bitmap with one shared allocation hint, in the style of
// github.com/fabiokung/numballoc (not served by the module proxy; written here from
// its design): unpadded 64-bit words; a get starts at the word the shared hint names,
// sets the first free bit with a compare-and-swap and stores the hint; a put clears
// the bit with an atomic AND.
type casPool struct {
	hint  atomic.Uint32
	words []atomic.Uint64
	depth int
}

func newCASPool(depth int) *casPool {
	return &casPool{words: make([]atomic.Uint64, (depth+63)/64), depth: depth}
}

func (p *casPool) get(*uint32) int {
	n := uint32(len(p.words))
	start := p.hint.Load() % n
	for i := range n {
		wi := (start + i) % n
		w := &p.words[wi]
		limit := min(64, p.depth-int(wi)*64)
		mask := ^uint64(0)
		if limit < 64 {
			mask = uint64(1)<<limit - 1
		}
		for {
			v := w.Load()
			free := ^v & mask
			if free == 0 {
				break
			}
			bit := bits.TrailingZeros64(free)
			if w.CompareAndSwap(v, v|1<<bit) {
				if wi != start {
					p.hint.Store(wi)
				}
				return int(wi)*64 + bit
			}
		}
	}
	return -1
}

func (p *casPool) put(tag int, _ *uint32) { p.words[tag/64].And(^(uint64(1) << (tag % 64))) }

func (p *casPool) getWait(ctx context.Context, h *uint32) int {
	for {
		if t := p.get(h); t >= 0 {
			return t
		}
		runtime.Gosched() // no wait queue: spin, yielding
	}
}

var impls = []struct {
	name string
	make func(depth int) pool
}{
	{"sbitmap", func(d int) pool {
		q, err := sbitmap.NewQueue(d, sbitmap.QueueOptions{})
		if err != nil {
			panic(err)
		}
		return sbPool{q}
	}},
	{"sbitmap-handoff", func(d int) pool {
		q, err := sbitmap.NewQueue(d, sbitmap.QueueOptions{HandOff: true})
		if err != nil {
			panic(err)
		}
		return sbPool{q}
	}},
	{"sbitmap-direct", func(d int) pool {
		q, err := sbitmap.NewQueue(d, sbitmap.QueueOptions{Options: sbitmap.Options{DirectClear: true}})
		if err != nil {
			panic(err)
		}
		return sbPool{q}
	}},
	{"sbitmap-kshift", func(d int) pool { // the kernel's layout, as the simulator's tag maps
		q, err := sbitmap.NewQueue(d, sbitmap.QueueOptions{Options: sbitmap.Options{
			Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
		if err != nil {
			panic(err)
		}
		return sbPool{q}
	}},
	{"chan", func(d int) pool { return newChanPool(d) }},
	{"chan+registry", func(d int) pool { return newChanRegPool(d) }},
	{"mutex", func(d int) pool { return newMutexPool(d) }},
	{"semaphore", func(d int) pool { return semPool{semaphore.NewWeighted(int64(d))} }},
	{"cas-shared-hint", func(d int) pool { return newCASPool(d) }},
}

// cpuMeter reports the CPU time per iteration as the metric cpu-ns/op, next to the
// wall time of sec/op. On a machine shared with other jobs the wall time includes the
// slices in which the benchmark's threads were not running; the CPU time does not, so
// it shows the code's cost under a load that makes sec/op meaningless. thread meters
// the calling OS thread only (the goroutine is locked to it meanwhile: for loops run
// in the benchmark goroutine); otherwise the whole process, every thread summed (for
// RunParallel and for benchmarks with goroutines of their own, whose figure is the
// CPU spent per operation across processors, not a latency).
type cpuMeter struct {
	thread bool
	t0     int64
	ok     bool
}

func startCPU(thread bool) *cpuMeter {
	m := &cpuMeter{thread: thread}
	if thread {
		runtime.LockOSThread()
		m.t0, m.ok = threadCPU()
	} else {
		m.t0, m.ok = processCPU()
	}
	return m
}

// stop reports cpu-ns/op for the b.N iterations since startCPU.
func (m *cpuMeter) stop(b *testing.B) {
	var t1 int64
	ok := m.ok
	if m.thread {
		t1, ok = threadCPU()
		runtime.UnlockOSThread()
	} else if ok {
		t1, ok = processCPU()
	}
	if ok && m.ok && b.N > 0 {
		b.ReportMetric(float64(t1-m.t0)/float64(b.N), "cpu-ns/op")
	}
}

// paddedHint is one goroutine's hint on its own 128-byte block, so that two
// goroutines' hint writes never share a cache line (as per-CPU alloc_hints do not).
type paddedHint struct {
	h uint32
	_ [124]byte
}

// BenchmarkGetPut measures one get plus one put (ns per pair). mode=serial runs in
// the benchmark goroutine; mode=parallel uses b.RunParallel, each goroutine with its
// own padded hint (like a per-CPU alloc_hint) seeded so the goroutines start on
// different words. The baselines ignore the hint.
func BenchmarkGetPut(b *testing.B) {
	for _, im := range impls {
		if im.name == "sbitmap-handoff" || im.name == "chan+registry" {
			continue // no waiters: the same code as sbitmap, as chan
		}
		for _, depth := range []int{4, 8, 64, 256, 1024} {
			b.Run(fmt.Sprintf("impl=%s/depth=%d/mode=serial", im.name, depth), func(b *testing.B) {
				p := im.make(depth)
				hint := new(paddedHint)
				b.ReportAllocs()
				cpu := startCPU(true)
				for b.Loop() {
					t := p.get(&hint.h)
					p.put(t, &hint.h)
				}
				cpu.stop(b)
			})
			b.Run(fmt.Sprintf("impl=%s/depth=%d/mode=parallel", im.name, depth), func(b *testing.B) {
				p := im.make(depth)
				var seed atomic.Uint64
				procs := uint64(runtime.GOMAXPROCS(0))
				b.ReportAllocs()
				cpu := startCPU(false)
				b.RunParallel(func(pb *testing.PB) {
					// Hints spread evenly, as per-CPU hints that landed on
					// different words (random ones may collide).
					hint := new(paddedHint)
					hint.h = uint32((seed.Add(1) - 1) * uint64(depth) / procs % uint64(depth))
					for pb.Next() {
						t := p.get(&hint.h)
						if t >= 0 {
							p.put(t, &hint.h)
						}
					}
				})
				cpu.stop(b)
			})
		}
	}
}

// floorWord is an atomic word alone on a 128-byte block, as the words of an Sbitmap.
type floorWord struct {
	v atomic.Uint64
	_ [120]byte
}

var floorSet, floorCleared floorWord

// BenchmarkAtomicFloor is the cost of the two uncontended atomic read-modify-writes a
// get/put pair needs, on this machine: a compare-and-swap that sets a bit in one
// padded word (the kernel's test_and_set_bit_lock) and an atomic OR into another (the
// set_bit on cleared), each after a load of its word.
func BenchmarkAtomicFloor(b *testing.B) {
	cpu := startCPU(true)
	for b.Loop() {
		v := floorSet.v.Load()
		floorSet.v.CompareAndSwap(v, v+1)
		floorCleared.v.Or(v)
	}
	cpu.stop(b)
}

// BenchmarkFloor measures what a get/put pair cannot avoid on this machine: the
// uncontended locked read-modify-write instructions, each on a heap-allocated word
// alone on a 128-byte block, in the benchmark goroutine (thread CPU clock), in the
// same loop as BenchmarkGetPut so that the two can be compared row by row:
//
//   - op=loop: the loop and the clock alone (a load per iteration);
//   - op=or: one LOCK OR;
//   - op=or+and: LOCK OR then LOCK AND on the same word (the least two locked
//     instructions can cost: no result, no compare);
//   - op=cas+and: a load, a compare-and-swap setting the first free bit, then an
//     atomic AND clearing it: a direct-clear bitmap's get/put, with no search,
//     hint or checks (the CAS bitmap baseline without its hint);
//   - op=cas+or-2lines: the same compare-and-swap, then an atomic OR into a second
//     word on its own cache line, as the deferred clear's Put does (an Sbitmap's
//     pair without its periodic fold).
//
// BenchmarkAtomicFloor (kept from round 3) is op=cas+or-2lines on two global words.
func BenchmarkFloor(b *testing.B) {
	type word struct {
		v atomic.Uint64
		_ [120]byte
	}
	ops := []struct {
		name string
		run  func(a, c *word)
	}{
		{"loop", func(a, _ *word) { a.v.Load() }},
		{"or", func(a, _ *word) { a.v.Or(1) }},
		{"or+and", func(a, _ *word) { a.v.Or(1); a.v.And(^uint64(1)) }},
		{"cas+and", func(a, _ *word) {
			v := a.v.Load()
			m := uint64(1) << (bits.TrailingZeros64(^v) & 63)
			a.v.CompareAndSwap(v, v|m)
			a.v.And(^m)
		}},
		{"cas+or-2lines", func(a, c *word) {
			v := a.v.Load()
			m := uint64(1) << (bits.TrailingZeros64(^v) & 63)
			a.v.CompareAndSwap(v, v|m)
			c.v.Or(m)
			if v == 1<<63-1 { // every 64 pairs, as a fold would
				a.v.And(0)
			}
		}},
	}
	for _, op := range ops {
		b.Run("op="+op.name, func(b *testing.B) {
			a, c := new(word), new(word)
			f := op.run
			cpu := startCPU(true)
			for b.Loop() {
				f(a, c)
			}
			cpu.stop(b)
		})
	}
}

// BenchmarkBlocking runs 4×depth goroutines that each take a tag with a blocking get,
// yield while holding it, and give it back; ns per get/put pair. The sbitmap uses
// GetWait (pooled waiters: no allocation per wait after warm-up).
func BenchmarkBlocking(b *testing.B) {
	for _, im := range impls {
		for _, depth := range []int{4, 16} {
			b.Run(fmt.Sprintf("impl=%s/depth=%d", im.name, depth), func(b *testing.B) {
				p := im.make(depth)
				ctx := context.Background()
				var left atomic.Int64
				left.Store(int64(b.N))
				b.ReportAllocs()
				b.ResetTimer()
				cpu := startCPU(false)
				var wg sync.WaitGroup
				for g := range 4 * depth {
					wg.Go(func() {
						hint := uint32(g * 7 % depth)
						for left.Add(-1) >= 0 {
							t := p.getWait(ctx, &hint)
							runtime.Gosched()
							p.put(t, &hint)
						}
					})
				}
				wg.Wait()
				cpu.stop(b)
			})
		}
	}
}

// BenchmarkGetWaitUncontended is GetWait plus Clear with a free bit always available
// (depth 256, one goroutine): GetWait's fast path is a plain Get, so this should match
// BenchmarkGetPut/impl=sbitmap/depth=256/mode=serial.
func BenchmarkGetWaitUncontended(b *testing.B) {
	q, err := sbitmap.NewQueue(256, sbitmap.QueueOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	hint := new(paddedHint)
	b.ReportAllocs()
	cpu := startCPU(true)
	for b.Loop() {
		t, _ := q.GetWait(ctx, &hint.h)
		q.Clear(t, &hint.h)
	}
	cpu.stop(b)
}
