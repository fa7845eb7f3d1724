package sbitmap_test

import (
	"context"
	"fmt"
	"runtime"

	"github.com/blkmq/blkmq/sbitmap"
)

func ExampleSbitmap_Get() {
	sb, err := sbitmap.New(8, sbitmap.Options{})
	if err != nil {
		panic(err)
	}
	hint := uint32(0)
	a, b := sb.Get(&hint), sb.Get(&hint)
	fmt.Println(a, b, sb.Weight())
	sb.Put(a, &hint)
	fmt.Println(sb.Weight(), hint)
	// Output:
	// 0 1 2
	// 1 0
}

func ExampleQueue_GetWait() {
	q, err := sbitmap.NewQueue(1, sbitmap.QueueOptions{})
	if err != nil {
		panic(err)
	}
	var hint uint32
	bit, _ := q.GetWait(context.Background(), &hint)
	done := make(chan int)
	go func() {
		var h uint32
		b, _ := q.GetWait(context.Background(), &h) // blocks until the Clear below
		done <- b
	}()
	q.Clear(bit, &hint)
	fmt.Println(<-done)
	// Output: 0
}

func ExampleQueue_PrepareWait() {
	q, _ := sbitmap.NewQueue(1, sbitmap.QueueOptions{})
	var hint uint32
	bit := q.Get(&hint)
	w := &sbitmap.Waiter{Wake: func(w *sbitmap.Waiter) { fmt.Println("woken") }}
	q.PrepareWait(w, 0)
	if q.Get(&hint) < 0 { // retry after registering, as blk_mq_get_tag does
		q.Clear(bit, &hint) // wakes w synchronously
	}
	q.FinishWait(w)
	fmt.Println(q.Get(&hint), q.WsActive())
	// Output:
	// woken
	// 0 0
}

func ExampleSbitmap_ForEachSet() {
	sb, _ := sbitmap.New(16, sbitmap.Options{})
	var hint uint32
	for range 6 {
		sb.Get(&hint)
	}
	sb.Put(2, &hint)
	sb.ForEachSet(3, func(bit int) bool {
		fmt.Print(bit, " ")
		return true
	})
	fmt.Println()
	// Output: 3 4 5 0 1
}

func ExampleQueue_AddWaitHook() {
	q, _ := sbitmap.NewQueue(1, sbitmap.QueueOptions{})
	var hint uint32
	bit := q.Get(&hint)
	// A non-exclusive hook, like blk-mq's hctx dispatch_wait: woken by any
	// wake-up of its wait queue, and removed before its callback runs.
	hook := &sbitmap.Waiter{Wake: func(*sbitmap.Waiter) { fmt.Println("rerun hctx") }}
	q.AddWaitHook(hook, q.NextWaitQueue())
	fmt.Println(q.WsActive(), hook.Queued())
	q.Clear(bit, &hint)
	fmt.Println(q.WsActive(), hook.Queued())
	// Output:
	// 1 true
	// rerun hctx
	// 0 false
}

func ExampleNewQueue_options() {
	// A v6.1-era queue: countdown wake-ups, min batch 4 at depth >= 32.
	q, err := sbitmap.NewQueue(64, sbitmap.QueueOptions{
		Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{
			CalculateShift: true, // the kernel's shift rule: 4 words of 16 bits
			WakeScheme:     sbitmap.WakeCountdown,
			RecalcEra:      sbitmap.Recalc5_17,
		}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(q.WakeBatch())
	q.RecalculateWakeBatch(4)
	fmt.Println(q.WakeBatch())
	_, err = sbitmap.NewQueue(0, sbitmap.QueueOptions{})
	fmt.Println(err)
	// Output:
	// 8
	// 4
	// sbitmap: depth 0 out of range [1, 16777216]
}

func ExampleNewQueue_goProgram() {
	// A Go program's pool of 8 slots: one 64-bit word, a waiter woken on every
	// free, and each freed slot handed straight to a goroutine waiting in GetWait.
	q, err := sbitmap.NewQueue(8, sbitmap.QueueOptions{WakeBatch: sbitmap.WakeEveryFree, HandOff: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(q.Sbitmap().Shift(), q.WakeBatch())
	var hint uint32
	slot, _ := q.GetWait(context.Background(), &hint)
	fmt.Println(slot)
	q.Clear(slot, &hint)
	// Output:
	// 6 1
	// 0
}

func ExampleQueueOptions_handOff() {
	// One slot in hand-off mode: a Clear while a GetWait waits gives the slot to
	// that waiter, so the releaser's own Get right after it finds nothing free.
	q, err := sbitmap.NewQueue(1, sbitmap.QueueOptions{HandOff: true})
	if err != nil {
		panic(err)
	}
	var hint uint32
	slot := q.Get(&hint)
	got := make(chan int)
	go func() {
		var h uint32
		s, _ := q.GetWait(context.Background(), &h)
		got <- s
	}()
	for q.Waiting() == 0 { // until the goroutine waits for a hand-over
		runtime.Gosched()
	}
	q.Clear(slot, &hint)
	fmt.Println(q.Get(&hint), <-got, q.Waiting())
	// Output: -1 0 0
}

// A Queue can shrink and grow back, but never past the depth it was built with.
func ExampleQueue_Capacity() {
	q, err := sbitmap.NewQueue(64, sbitmap.QueueOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(q.Depth(), q.Capacity())
	if err := q.Resize(16); err != nil {
		panic(err)
	}
	fmt.Println(q.Depth(), q.Capacity())
	fmt.Println(q.Resize(128))
	// Output:
	// 64 64
	// 16 64
	// sbitmap: resize depth 128 out of range [1, 64]
}
