package sbitmap_test

import (
	"context"
	"fmt"

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
