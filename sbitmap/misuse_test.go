package sbitmap_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
)

// TestMisusePanicsAtTheCall checks that each misuse panics in the misusing call, with
// a message naming the operation and the fault (issue 19).
func TestMisusePanicsAtTheCall(t *testing.T) {
	newQ := func(t *testing.T) *sbitmap.Queue {
		q, err := sbitmap.NewQueue(8, sbitmap.QueueOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for _, tc := range []struct {
		name string
		do   func(q *sbitmap.Queue)
		want string
	}{
		{"Get/nil-hint", func(q *sbitmap.Queue) { q.Get(nil) }, "sbitmap: Get with nil hint"},
		{"Sbitmap.Get/nil-hint", func(q *sbitmap.Queue) { q.Sbitmap().Get(nil) }, "sbitmap: Get with nil hint"},
		{"GetShallow/nil-hint", func(q *sbitmap.Queue) { q.GetShallow(nil, 4) }, "sbitmap: GetShallow with nil hint"},
		{"GetBatch/nil-hint", func(q *sbitmap.Queue) { q.GetBatch(nil, 2) }, "sbitmap: GetBatch with nil hint"},
		{"GetWait/nil-hint", func(q *sbitmap.Queue) { q.GetWait(context.Background(), nil) }, "sbitmap: GetWait with nil hint"},
		{"PrepareWait/nil-wake", func(q *sbitmap.Queue) { q.PrepareWait(&sbitmap.Waiter{}, 0) },
			"sbitmap: PrepareWait of a Waiter with nil Wake"},
		{"PrepareWait/nil-waiter", func(q *sbitmap.Queue) { q.PrepareWait(nil, 0) }, "sbitmap: PrepareWait of a nil Waiter"},
		{"AddWaitHook/nil-wake", func(q *sbitmap.Queue) { q.AddWaitHook(&sbitmap.Waiter{}, 3) },
			"sbitmap: AddWaitHook of a Waiter with nil Wake"},
		{"FinishWait/never-registered", func(q *sbitmap.Queue) { q.FinishWait(&sbitmap.Waiter{Wake: func(*sbitmap.Waiter) {}}) },
			"sbitmap: FinishWait of a Waiter never registered with PrepareWait"},
		{"FinishWait/other-queue", func(q *sbitmap.Queue) {
			w := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) {}}
			other := newQ(t)
			other.PrepareWait(w, 0)
			q.FinishWait(w)
		}, "sbitmap: FinishWait of a Waiter registered on another Queue"},
		{"FinishWait/hook", func(q *sbitmap.Queue) {
			w := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) {}}
			q.AddWaitHook(w, 0)
			q.FinishWait(w)
		}, "sbitmap: FinishWait of a waiter used as a wait hook (use RemoveWaitHook)"},
		{"Clear/never-set", func(q *sbitmap.Queue) { q.Clear(3, nil) }, "sbitmap: Clear of bit 3 which is not held (depth 8)"},
		// the zero Queue slept until its context was done: for ever with Background
		{"GetWait/zero-queue", func(*sbitmap.Queue) {
			var z sbitmap.Queue
			var h uint32
			z.GetWait(context.Background(), &h)
		}, "sbitmap: GetWait on a Queue not made by NewQueue (no bits: it would sleep for ever)"},
		{"Clear/twice", func(q *sbitmap.Queue) {
			var h uint32
			b := q.Get(&h)
			q.Clear(b, &h)
			q.Clear(b, &h)
		}, "sbitmap: Clear of bit 0 which is already freed (depth 8)"},
		{"Clear/out-of-range", func(q *sbitmap.Queue) { q.Clear(8, nil) }, "sbitmap: Clear of bit 8 out of range [0, 8) (depth 8)"},
		{"Clear/negative", func(q *sbitmap.Queue) { q.Clear(-1, nil) }, "sbitmap: Clear of bit -1 out of range [0, 8) (depth 8)"},
		{"Clear/reserved-past-depth", func(q *sbitmap.Queue) {
			if err := q.Resize(2); err != nil {
				panic(err)
			}
			q.Clear(5, nil) // set in the word only as a reservation
		}, "sbitmap: Clear of bit 5 which is not held (depth 2)"},
		{"ClearBatch/never-set", func(q *sbitmap.Queue) { q.ClearBatch([]int{1}, nil) },
			"sbitmap: ClearBatch of a bit which is not held (word 0, mask 0x2, depth 8)"},
		{"ClearBatch/out-of-range", func(q *sbitmap.Queue) { q.ClearBatch([]int{9}, nil) },
			"sbitmap: ClearBatch of bit 9 out of range [0, 8) (depth 8)"},
		{"Put/never-set", func(q *sbitmap.Queue) { q.Sbitmap().Put(2, nil) }, "sbitmap: Put of bit 2 which is not held (depth 8)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newQ(t)
			got := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				tc.do(q)
				return "no panic"
			}()
			if got != tc.want {
				t.Errorf("panic %q, want %q", got, tc.want)
			}
		})
	}
}

// TestClearPastDepthStaysUnallocatable: a bit held across a shrinking Resize can be
// cleared, is not handed out again while the depth stays below it, and is free once
// the depth grows back over it (issue 19).
func TestClearPastDepthStaysUnallocatable(t *testing.T) {
	for _, shift := range []int{sbitmap.MaxShift, 0, sbitmap.ShiftZero} {
		t.Run(fmt.Sprintf("shift=%d", shift), func(t *testing.T) {
			q, err := sbitmap.NewQueue(16, sbitmap.QueueOptions{Options: sbitmap.Options{Shift: shift}})
			if err != nil {
				t.Fatal(err)
			}
			var h uint32
			for range 16 {
				if q.Get(&h) < 0 {
					t.Fatal("could not fill the map")
				}
			}
			if err := q.Resize(4); err != nil {
				t.Fatal(err)
			}
			for b := 4; b < 16; b++ {
				q.Clear(b, &h)
			}
			q.ClearBatch([]int{0, 1}, &h)
			if w := q.Sbitmap().Weight(); w != 2 {
				t.Errorf("weight %d after freeing 2 of the 4 bits below depth 4, want 2", w)
			}
			for range 50 {
				b := q.Get(&h)
				if b >= 4 {
					t.Fatalf("Get returned %d at depth 4", b)
				}
				if b < 0 {
					break
				}
				q.Clear(b, &h)
			}
			if err := q.Resize(16); err != nil {
				t.Fatal(err)
			}
			if w := q.Sbitmap().Weight(); w != 2 {
				t.Errorf("weight %d after growing back, want 2 (bits 2 and 3)", w)
			}
			got := 0
			for q.Get(&h) >= 0 {
				got++
			}
			if got != 14 {
				t.Errorf("after growing back %d bits could be allocated, want 14", got)
			}
		})
	}
}
