package sbitmap_test

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/blkmq/blkmq/sbitmap"
)

// The sequential specification the linearizability check holds the Queue to: a set
// of held bits (any bit below the capacity, held bits may lie past the depth after a
// shrinking Resize) and a depth.
type linState struct {
	held  uint64
	depth int
}

type linKind int

const (
	linGet linKind = iota
	linBatch
	linClear
	linResize
	linWeight
	linGetWait
	linShallow
	linClearBatch
)

type linInput struct {
	kind linKind
	arg  int // Clear: the bit; Resize: the depth; GetBatch: n; GetShallow: the shallow depth
	// word is GetShallow's word size (1 << Shift()); mask is ClearBatch's bits.
	word int
	mask uint64
}

// linOutput is a Get's or GetWait's bit (-1: none), a GetBatch's bits (absolute
// mask), or Weight's count.
type linOutput struct {
	bit  int
	mask uint64
	n    int
}

// linModel is the specification. A successful Get or GetBatch must return bits free
// and below the depth at its linearization point; Clear frees a held bit; Resize sets
// the depth; Weight returns the number of held bits below the depth. A failed Get is
// accepted in any state: like the kernel's, the search visits the words one by one
// and a failure is not linearizable (see Sbitmap.Get). GetWait is a Get that may
// block: its bit (a hand-over included, which takes the bit the Clear frees at the
// same linearization point) obeys the same rule, and its failure (-1, the context
// being done) is accepted in any state. GetShallow is a Get whose bit also lies among
// the first arg bits of its word (the per-word shallow depth of sbitmap_get_shallow);
// ClearBatch of bits of one word frees them all at one instant.
var linModel = porcupine.Model{
	Init: func() any { return linState{held: 0, depth: linCapacity} },
	Step: func(st, in, out any) (bool, any) {
		s, i, o := st.(linState), in.(linInput), out.(linOutput)
		below := uint64(1)<<s.depth - 1
		switch i.kind {
		case linGet, linGetWait, linShallow:
			if o.bit < 0 {
				return true, s
			}
			m := uint64(1) << o.bit
			if o.bit >= s.depth || s.held&m != 0 {
				return false, s
			}
			if i.kind == linShallow && o.bit%i.word >= i.arg {
				return false, s
			}
			s.held |= m
		case linClearBatch:
			if s.held&i.mask != i.mask {
				return false, s
			}
			s.held &^= i.mask
		case linBatch:
			if o.mask&^below != 0 || s.held&o.mask != 0 {
				return false, s
			}
			s.held |= o.mask
		case linClear:
			m := uint64(1) << i.arg
			if s.held&m == 0 {
				return false, s
			}
			s.held &^= m
		case linResize:
			s.depth = i.arg
		case linWeight:
			if o.n != bits.OnesCount64(s.held&below) {
				return false, s
			}
		}
		return true, s
	},
	DescribeOperation: func(in, out any) string {
		i, o := in.(linInput), out.(linOutput)
		switch i.kind {
		case linGet:
			return fmt.Sprintf("Get() = %d", o.bit)
		case linBatch:
			return fmt.Sprintf("GetBatch(%d) = %#x", i.arg, o.mask)
		case linClear:
			return fmt.Sprintf("Clear(%d)", i.arg)
		case linResize:
			return fmt.Sprintf("Resize(%d)", i.arg)
		case linGetWait:
			return fmt.Sprintf("GetWait() = %d", o.bit)
		case linShallow:
			return fmt.Sprintf("GetShallow(%d) = %d", i.arg, o.bit)
		case linClearBatch:
			return fmt.Sprintf("ClearBatch(%#x)", i.mask)
		}
		return fmt.Sprintf("Weight() = %d", o.n)
	},
	DescribeState: func(st any) string {
		s := st.(linState)
		return fmt.Sprintf("held %#x depth %d", s.held, s.depth)
	},
}

// linCapacity is the capacity of the queues under test.
const linCapacity = 16

// TestLinearizable records short concurrent histories of Get, GetBatch, Clear,
// Resize and Weight on a Queue, and in the hand-off rows GetWait as well (with and
// without a context that is cancelled midway), and checks each with porcupine against
// linModel. Weight is checked on one-word bitmaps only, where it is documented to be
// linearizable; on several words it is not recorded, nor in hand-off mode: there a
// bit promised to the registered GetWait calls stays set in the bitmap until one of
// them receives it, Weight counts it as held, and the one that receives it may be a
// call that registered after Weight returned (a history of that kind failed 1 run in
// 13 when Weight was recorded here); a Clear that feeds a late registrant also holds
// a free bit for an instant (feedHandOff). The shallow-batch rows add GetShallow and
// one-word ClearBatch, which the package documents as linearizable too.
func TestLinearizable(t *testing.T) {
	rounds := 80
	if testing.Short() {
		rounds = 40
	}
	for _, tc := range []struct {
		name    string
		shift   int
		weight  bool
		handOff bool
		shallow bool // GetShallow and ClearBatch too
		direct  bool // Options.DirectClear (no Resize: client 0 gets instead)
	}{
		{"one-word", sbitmap.MaxShift, true, false, false, false},
		{"four-words", 0, false, false, false, false}, // the kernel rule: shift 2
		{"hand-off/one-word", sbitmap.MaxShift, false, true, false, false},
		{"hand-off/four-words", 0, false, true, false, false},
		{"shallow-batch/one-word", sbitmap.MaxShift, true, false, true, false},
		{"shallow-batch/four-words", 0, false, false, true, false},
		{"shallow-batch/hand-off/one-word", sbitmap.MaxShift, false, true, true, false},
		{"shallow-batch/hand-off/four-words", 0, false, true, true, false},
		{"direct/one-word", sbitmap.MaxShift, true, false, false, true},
		{"direct/four-words", 2, false, false, false, true},
		{"direct/hand-off/one-word", sbitmap.MaxShift, false, true, false, true},
		{"direct/shallow-batch/one-word", sbitmap.MaxShift, true, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := rounds
			if tc.handOff {
				n *= 4 // a hand-over racing a shrink is rare per round
			}
			for r := range n {
				q, err := sbitmap.NewQueue(linCapacity, sbitmap.QueueOptions{HandOff: tc.handOff, Options: sbitmap.Options{Shift: tc.shift, DirectClear: tc.direct}})
				if err != nil {
					t.Fatal(err)
				}
				hist := recordHistory(q, uint64(r), tc.weight, tc.handOff, tc.shallow, !tc.direct)
				res, info := porcupine.CheckOperationsVerbose(linModel, hist, 0)
				if res != porcupine.Ok {
					t.Fatalf("round %d: history of %d operations is not linearizable (%v):\n%s",
						r, len(hist), res, describeHistory(hist, info))
				}
			}
		})
	}
}

// recordHistory runs 4 goroutines of 24 operations each against q (the first one
// mostly resizing) and returns the history, timed by a shared logical clock (a call's
// stamp is taken before the call, its return's after it). With getWait, clients 1-3
// call GetWait (only while holding nothing, so that the clients cannot deadlock each
// other), half of the calls with a context that client 0 cancels after its twelfth
// operation; every client frees what it still holds at the end (recorded), so that
// no GetWait is left waiting.
//
// With resize false (the DirectClear rows, whose bitmaps refuse Resize), the
// operations that would be Resizes are Gets.
//
// With shallow (the shallow-batch rows), a third of the Gets are GetShallow with a
// shallow depth of 1 to 3 bits per word, and half of the Clears of a client holding
// two or more bits are one ClearBatch of every bit it holds in one word (the
// documented linearizable case).
func recordHistory(q *sbitmap.Queue, seed uint64, weight, getWait, shallow, resize bool) []porcupine.Operation {
	const clients, ops = 4, 24
	var clock atomic.Int64
	hist := make([][]porcupine.Operation, clients)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var start, wg sync.WaitGroup
	start.Add(1)
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			hint := q.Sbitmap().InitHint(uint64(c))
			var held, batchBits []int
			start.Wait()
			for o := 0; o < ops || len(held) > 0; o++ {
				var in linInput
				var out linOutput
				switch k := rng.IntN(10); {
				case o >= ops:
					in.kind = linClear
					in.arg = held[len(held)-1]
					held = held[:len(held)-1]
				case (c == 0 && k < 7 || k < 1) && !resize:
					in.kind = linGet // no Resize (DirectClear): a Get instead
				case c == 0 && k < 7, k < 1:
					// Client 0 mostly resizes, as in the reproduction of issue 19.
					in.kind = linResize
					in.arg = 1 + rng.IntN(linCapacity)
					if getWait && rng.IntN(2) == 0 {
						in.arg = 1 + rng.IntN(3) // shallow enough for GetWait to block
					}
				case k < 2 && weight:
					in.kind = linWeight
				case k < 3:
					in.kind = linBatch
					in.arg = 1 + rng.IntN(3)
				case getWait && c != 0 && len(held) == 0 && k < 6:
					in.kind = linGetWait
				case len(held) < 3 && k < 7:
					in.kind = linGet
				case len(held) > 0:
					in.kind = linClear
					j := rng.IntN(len(held))
					in.arg = held[j]
					held[j] = held[len(held)-1]
					held = held[:len(held)-1]
				default:
					in.kind = linGet
				}
				if shallow && in.kind == linGet && rng.IntN(3) == 0 {
					in.kind = linShallow
					in.arg = 1 + rng.IntN(3)
					in.word = 1 << q.Sbitmap().Shift()
				}
				if shallow && in.kind == linClear && o < ops && rng.IntN(2) == 0 {
					// Put the chosen bit back and free, in one ClearBatch, every
					// held bit of its word (one word: linearizable).
					held = append(held, in.arg)
					w := in.arg >> q.Sbitmap().Shift()
					var batch []int
					keep := held[:0]
					for _, b := range held {
						if b>>q.Sbitmap().Shift() == w {
							batch = append(batch, b)
							in.mask |= uint64(1) << b
						} else {
							keep = append(keep, b)
						}
					}
					held = keep
					in.kind = linClearBatch
					in.arg = 0
					batchBits = batch
				}
				call := clock.Add(1)
				switch in.kind {
				case linGet:
					out.bit = q.Get(&hint)
				case linShallow:
					out.bit = q.GetShallow(&hint, in.arg)
				case linClearBatch:
					q.ClearBatch(batchBits, &hint)
				case linGetWait:
					wctx := context.Background()
					if rng.IntN(2) == 0 {
						wctx = ctx
					}
					out.bit, _ = q.GetWait(wctx, &hint)
				case linBatch:
					off, m := q.GetBatch(&hint, in.arg)
					out.mask = m << off
				case linClear:
					q.Clear(in.arg, &hint)
				case linResize:
					if err := q.Resize(in.arg); err != nil {
						panic(err)
					}
				case linWeight:
					out.n = q.Sbitmap().Weight()
				}
				ret := clock.Add(1)
				switch {
				case (in.kind == linGet || in.kind == linGetWait || in.kind == linShallow) && out.bit >= 0:
					held = append(held, out.bit)
				case in.kind == linBatch:
					for m := out.mask; m != 0; m &= m - 1 {
						held = append(held, bits.TrailingZeros64(m))
					}
				}
				hist[c] = append(hist[c], porcupine.Operation{ClientId: c, Input: in, Call: call, Output: out, Return: ret})
				if c == 0 && o+1 == ops/2 {
					cancel()
				}
			}
		})
	}
	start.Done()
	wg.Wait()
	var all []porcupine.Operation
	for _, h := range hist {
		all = append(all, h...)
	}
	return all
}

// describeHistory prints the operations of a failed check and the longest partial
// linearization porcupine found.
func describeHistory(hist []porcupine.Operation, info porcupine.LinearizationInfo) string {
	s := ""
	for i, op := range hist {
		s += fmt.Sprintf("  %3d client %d [%d, %d] %s\n", i, op.ClientId, op.Call, op.Return,
			linModel.DescribeOperation(op.Input, op.Output))
	}
	for _, part := range info.PartialLinearizations() {
		longest := []int{}
		for _, l := range part {
			if len(l) > len(longest) {
				longest = l
			}
		}
		s += fmt.Sprintf("  longest partial linearization: %v\n", longest)
	}
	return s
}
