package sbitmap_test

import (
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
)

// rig is a deterministic single-goroutine driver of closed-loop submitters on a
// Queue, modelling blk_mq_get_tag's wait loop (block/blk-mq-tag.c) with callback
// waiters: no goroutines, no clock. A woken submitter is queued to run; runs happen
// after the completion that woke it, before the completer resubmits.
type rig struct {
	t        testing.TB
	q        *sbitmap.Queue
	subs     []*sub
	runq     []*sub
	inflight []*sub
	gets     int // successful allocations
	frees    int
	// completerFirst resubmits the completer before woken submitters run (a new
	// arrival beats the woken sleeper to the freed bit).
	completerFirst bool
	// stopped: completers leave instead of resubmitting (arrivals have stopped);
	// sleepers already waiting still take a bit when woken.
	stopped bool
}

type sub struct {
	id       int
	ws       int    // next wait queue (the hctx wait_index of bt_wait_ptr)
	left     int    // I/Os still to issue
	hint     uint32 // alloc_hint of this submitter's CPU
	bit      int
	sleeping bool
	wakes    int
	w        sbitmap.Waiter
}

func newRig(t testing.TB, q *sbitmap.Queue, n, quota int) *rig {
	r := &rig{t: t, q: q}
	for i := range n {
		s := &sub{id: i, ws: i % sbitmap.WaitQueues, left: quota, bit: -1}
		s.hint = q.Sbitmap().InitHint(uint64(i))
		s.w.Wake = func(*sbitmap.Waiter) {
			s.wakes++
			r.runq = append(r.runq, s)
		}
		r.subs = append(r.subs, s)
	}
	return r
}

// submit is one pass of blk_mq_get_tag: try; register; try; sleep.
func (r *rig) submit(s *sub) {
	if s.left == 0 {
		return
	}
	if r.tryGet(s) {
		return
	}
	r.q.PrepareWait(&s.w, s.ws)
	if r.tryGet(s) {
		r.q.FinishWait(&s.w)
		return
	}
	s.sleeping = true
}

func (r *rig) tryGet(s *sub) bool {
	bit := r.q.Get(&s.hint)
	if bit < 0 {
		return false
	}
	s.bit = bit
	s.left--
	r.gets++
	r.inflight = append(r.inflight, s)
	return true
}

// runWoken runs woken submitters: unregister, pick the next wait queue, retry.
func (r *rig) runWoken() {
	for len(r.runq) > 0 {
		s := r.runq[0]
		r.runq = r.runq[1:]
		if !s.sleeping {
			continue
		}
		s.sleeping = false
		r.q.FinishWait(&s.w)
		s.ws = (s.ws + 1) % sbitmap.WaitQueues
		r.submit(s)
	}
}

// complete finishes the oldest in-flight I/O: free its bit with the allocating
// submitter's hint, run whoever was woken, then resubmit the completer.
func (r *rig) complete() {
	s := r.inflight[0]
	r.inflight = r.inflight[1:]
	bit := s.bit
	s.bit = -1
	r.frees++
	r.q.Clear(bit, &s.hint)
	if r.stopped {
		s.left = 0
	}
	if r.completerFirst {
		r.submit(s)
		r.runWoken()
		return
	}
	r.runWoken()
	r.submit(s)
}

// drain completes I/O until none is in flight or maxSteps completions were done.
func (r *rig) drain(maxSteps int) {
	for i := 0; i < maxSteps && len(r.inflight) > 0; i++ {
		r.complete()
	}
}

func (r *rig) sleepers() int {
	n := 0
	for _, s := range r.subs {
		if s.sleeping {
			n++
		}
	}
	return n
}

func (r *rig) freeBits() int { return r.q.Depth() - r.q.Sbitmap().Weight() }

// startAll submits every submitter once, in id order.
func (r *rig) startAll() {
	for _, s := range r.subs {
		r.submit(s)
	}
}
