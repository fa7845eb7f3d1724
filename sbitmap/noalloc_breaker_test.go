package sbitmap_test

import (
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
)

// TestNoAllocsDocumented: the methods documented "Never allocates" that TestNoAllocs
// does not measure: Sbitmap Get, Put, GetShallow, GetBatch, ClearBatch and Weight (one
// word and several), Queue.Clear in hand-off mode with nobody waiting, and a
// Queue.Clear whose free completes a wake batch and runs a waiter's Wake (the wake
// path, v6.2 scheme and the countdown).
func TestNoAllocsDocumented(t *testing.T) {
	for _, depth := range []int{64, 200} {
		s, err := sbitmap.New(depth, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
		if err != nil {
			t.Fatal(err)
		}
		var h uint32
		batch := make([]int, 0, 64)
		for name, f := range map[string]func(){
			"Get+Put":        func() { s.Put(s.Get(&h), &h) },
			"GetShallow+Put": func() { s.Put(s.GetShallow(&h, 2), &h) },
			"GetBatch+ClearBatch": func() {
				off, m := s.GetBatch(&h, 4)
				batch = batch[:0]
				for i := range 64 {
					if m&(1<<i) != 0 {
						batch = append(batch, off+i)
					}
				}
				s.ClearBatch(batch)
			},
			"Weight": func() { _ = s.Weight() },
		} {
			if n := testing.AllocsPerRun(500, f); n != 0 {
				t.Errorf("depth %d: %s allocates %.1f per op", depth, name, n)
			}
		}
	}
	q, err := sbitmap.NewQueue(16, sbitmap.QueueOptions{HandOff: true})
	if err != nil {
		t.Fatal(err)
	}
	var h uint32
	if n := testing.AllocsPerRun(500, func() { q.Clear(q.Get(&h), &h) }); n != 0 {
		t.Errorf("hand-off Clear with nobody waiting allocates %.1f per op", n)
	}
	for _, scheme := range []sbitmap.WakeScheme{sbitmap.WakeGlobal, sbitmap.WakeCountdown} {
		q, err := sbitmap.NewQueue(8, sbitmap.QueueOptions{WakeBatch: sbitmap.WakeEveryFree,
			Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{WakeScheme: scheme}}})
		if err != nil {
			t.Fatal(err)
		}
		woken := 0
		w := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) { woken++ }}
		if n := testing.AllocsPerRun(500, func() {
			b := q.Get(&h)
			q.PrepareWait(w, 0)
			q.Clear(b, &h) // a batch of one: wakes w
			q.FinishWait(w)
		}); n != 0 {
			t.Errorf("%v: Clear that wakes a waiter allocates %.1f per op", scheme, n)
		}
		if woken == 0 {
			t.Errorf("%v: the waiter was never woken: the wake path was not measured", scheme)
		}
	}
}
