package sbitmap_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/google/go-cmp/cmp"
)

func mustNew(t testing.TB, depth int, opt sbitmap.Options) *sbitmap.Sbitmap {
	t.Helper()
	sb, err := sbitmap.New(depth, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// Non-RR: the hint chooses the word and the search in it starts at bit 0; the hint
// moves only when the hinted bit itself was taken (§1.2 steps 2 and 5).
func TestGetNonRRSearchAndHint(t *testing.T) {
	sb := mustNew(t, 64, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}) // shift 4: words of 16
	hint := uint32(37)                                                                          // word 2, in-word 5
	type step struct{ bit, hint int }
	var got []step
	for range 3 {
		b := sb.Get(&hint)
		got = append(got, step{b, int(hint)})
	}
	// bit 32 != hint 37: hint unchanged; same for 33, 34.
	want := []step{{32, 37}, {33, 37}, {34, 37}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(step{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	hint = 35
	if b := sb.Get(&hint); b != 35 || hint != 36 {
		t.Errorf("Get with hint 35 = bit %d hint %d, want 35 and 36", b, hint)
	}
	// The hint wraps to 0 at depth-1.
	hint = 62
	if b := sb.Get(&hint); b != 48 || hint != 62 {
		t.Errorf("Get with hint 62 = bit %d hint %d, want 48 and 62", b, hint)
	}
	sb2 := mustNew(t, 64, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
	hint = 48
	if b := sb2.Get(&hint); b != 48 || hint != 49 {
		t.Errorf("got %d/%d", b, hint)
	}
	hint = 62
	for i := 49; i < 62; i++ {
		sb2.Get(&hint)
	}
	if b := sb2.Get(&hint); b != 62 || hint != 0 {
		t.Errorf("Get of bit 62 (= hint) = %d hint %d, want 62 and hint reset to 0", b, hint)
	}
}

func TestGetRoundRobin(t *testing.T) {
	sb := mustNew(t, 16, sbitmap.Options{RoundRobin: true, Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
	var hint uint32
	if h := sb.InitHint(99); h != 0 {
		t.Errorf("RR InitHint = %d, want 0", h)
	}
	var got []int
	for range 6 {
		got = append(got, sb.Get(&hint))
	}
	sb.Put(1, &hint) // RR: the hint is not moved back
	for range 4 {
		got = append(got, sb.Get(&hint))
	}
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RR order (-want +got):\n%s", diff)
	}
}

// A freed bit stays invisible to the search until its word is found full, while
// Weight sees it free at once (§1.4).
func TestDeferredClearVisibility(t *testing.T) {
	sb := mustNew(t, 8, sbitmap.Options{Shift: 3, Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
	var hint uint32
	for range 4 {
		sb.Get(&hint)
	}
	sb.Put(1, nil)
	if w := sb.Weight(); w != 3 {
		t.Errorf("Weight after Put = %d, want 3", w)
	}
	if b := sb.Get(&hint); b != 4 {
		t.Errorf("Get after Put = %d, want 4 (bit 1 still in cleared)", b)
	}
	for range 3 {
		sb.Get(&hint)
	}
	if b := sb.Get(&hint); b != 1 {
		t.Errorf("Get on the full word = %d, want 1 (folded)", b)
	}
	if b := sb.Get(&hint); b != -1 || hint != 0 {
		t.Errorf("Get on full bitmap = %d hint %d, want -1 and hint 0", b, hint)
	}
}

func TestShallowPerWordAndWhole(t *testing.T) {
	// Per word: depth 64 shift 4 (4 words of 16), shallow 2: bits 0,1,16,17,32,33,48,49.
	sb := mustNew(t, 64, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
	var hint uint32
	var got []int
	for {
		b := sb.GetShallow(&hint, 2)
		if b < 0 {
			break
		}
		got = append(got, b)
	}
	if diff := cmp.Diff([]int{0, 1, 16, 17, 32, 33, 48, 49}, got); diff != "" {
		t.Errorf("per-word shallow (-want +got):\n%s", diff)
	}
	// Whole bitmap: shallow 10 over 64 bits gives 10 bits in all.
	sb = mustNew(t, 64, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, ShallowWholeBitmap: true}})
	hint = 0
	n := 0
	for sb.GetShallow(&hint, 10) >= 0 {
		n++
	}
	if n != 10 {
		t.Errorf("whole-bitmap shallow 10 allocated %d bits, want 10", n)
	}
	if b := sb.GetShallow(&hint, 0); b != -1 {
		t.Errorf("GetShallow(0) = %d, want -1", b)
	}
}

func TestGetBatch(t *testing.T) {
	sb := mustNew(t, 64, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}) // words of 16
	var hint uint32
	off, mask := sb.GetBatch(&hint, 4)
	if off != 0 || mask != 0xf {
		t.Errorf("GetBatch(4) = %d, %#x; want 0, 0xf", off, mask)
	}
	sb.Get(&hint) // bit 4
	off, mask = sb.GetBatch(&hint, 14)
	if off != 16 || mask != 0x3fff {
		t.Errorf("GetBatch(14) = %d, %#x; want 16 (next word), 0x3fff", off, mask)
	}
	sb.ClearBatch([]int{0, 1, 2, 3, 16})
	if w := sb.Weight(); w != 1+13 {
		t.Errorf("Weight after ClearBatch = %d, want 14", w)
	}
	rr := mustNew(t, 64, sbitmap.Options{RoundRobin: true, Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
	if _, m := rr.GetBatch(&hint, 2); m != 0 {
		t.Errorf("RR GetBatch = %#x, want 0", m)
	}
}

func TestForEachSetWrap(t *testing.T) {
	sb := mustNew(t, 56, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}) // shift 3: 7 words of 8
	var hint uint32
	for range 56 {
		sb.Get(&hint)
	}
	for b := range 56 {
		if b%5 != 0 {
			sb.Put(b, nil)
		}
	}
	var got []int
	sb.ForEachSet(23, func(b int) bool { got = append(got, b); return true })
	want := []int{25, 30, 35, 40, 45, 50, 55, 0, 5, 10, 15, 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ForEachSet(23) (-want +got):\n%s", diff)
	}
	got = got[:0]
	sb.ForEachSet(0, func(b int) bool { got = append(got, b); return len(got) < 3 })
	if diff := cmp.Diff([]int{0, 5, 10}, got); diff != "" {
		t.Errorf("ForEachSet early stop (-want +got):\n%s", diff)
	}
	if !sb.AnySet() {
		t.Error("AnySet = false")
	}
}

func TestResizeNoRealloc(t *testing.T) {
	q, _ := sbitmap.NewQueue(64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	var hint uint32
	held := []int{}
	for range 64 {
		held = append(held, q.Get(&hint))
	}
	mustResize(t, q, 8)
	if q.Sbitmap().Shift() != 4 || q.Depth() != 8 {
		t.Errorf("after resize: shift %d depth %d; want 4 and 8", q.Sbitmap().Shift(), q.Depth())
	}
	for _, b := range held {
		q.Clear(b, &hint) // bits beyond the new depth may still be freed
	}
	n := 0
	for q.Get(&hint) >= 0 {
		n++
	}
	if n != 8 {
		t.Errorf("allocated %d bits after shrinking to 8", n)
	}
	if err := q.Resize(65); err == nil || !strings.Contains(err.Error(), "[1, 64]") {
		t.Errorf("Resize(65) error = %v, want range [1, 64]", err)
	}
}

func TestConstructorErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		depth int
		opt   sbitmap.QueueOptions
		want  string
	}{
		{"depth-0", 0, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, "depth 0 out of range [1, 16777216]"},
		{"depth-negative", -3, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, "depth -3 out of range"},
		{"depth-too-large", sbitmap.MaxDepth + 1, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, "depth 16777217 out of range"},
		{"shift-7", 64, sbitmap.QueueOptions{Options: sbitmap.Options{Shift: 7, Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, "shift 7 out of range [1, 6]"},
		{"shift-minus-2", 64, sbitmap.QueueOptions{Options: sbitmap.Options{Shift: -2, Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}, "shift -2 out of range"},
		{"scheme", 64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: 5}}}, "wake scheme 5 out of range [0, 1]"},
		{"era", 64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, RecalcEra: -1}}}, "recalc era -1 out of range [0, 2]"},
		{"min-shallow", 64, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}, MinShallowDepth: 65}, "min shallow depth 65 out of range [0, 64]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sbitmap.NewQueue(tc.depth, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewQueue error = %v, want it to contain %q", err, tc.want)
			}
			if tc.opt.Kernel.WakeScheme == 0 && tc.opt.Kernel.RecalcEra == 0 && tc.opt.MinShallowDepth == 0 {
				if _, err := sbitmap.New(tc.depth, tc.opt.Options); err == nil {
					t.Errorf("New accepted %s", tc.name)
				}
			}
		})
	}
	q, _ := sbitmap.NewQueue(8, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
	if err := q.SetMinShallowDepth(0); err == nil || !strings.Contains(err.Error(), "min shallow depth 0 out of range [1, 8]") {
		t.Errorf("SetMinShallowDepth(0) error = %v", err)
	}
	sb, err := sbitmap.New(1, sbitmap.Options{Shift: sbitmap.ShiftZero, Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
	if err != nil || sb.Shift() != 0 {
		t.Errorf("ShiftZero: %v, shift %d", err, sb.Shift())
	}
}

func TestMisusePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(q *sbitmap.Queue)
		want string
	}{
		{"put-out-of-range", func(q *sbitmap.Queue) { q.Clear(8, nil) }, "Clear of bit 8 out of range [0, 8) (depth 8)"},
		{"put-negative", func(q *sbitmap.Queue) { q.Sbitmap().Put(-1, nil) }, "Put of bit -1 out of range"},
		{"put-not-held", func(q *sbitmap.Queue) { q.Clear(3, nil) }, "Clear of bit 3 which is not held (depth 8)"},
		{"double-free", func(q *sbitmap.Queue) {
			var h uint32
			b := q.Get(&h)
			q.Clear(b, &h)
			q.Clear(b, &h)
		}, "which is already freed"},
		{"batch-not-held", func(q *sbitmap.Queue) { q.ClearBatch([]int{2}, nil) }, "ClearBatch of a bit which is not held"},
		{"wait-queue-index", func(q *sbitmap.Queue) { q.PrepareWait(&sbitmap.Waiter{}, 8) }, "wait queue 8 out of range [0, 8)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := sbitmap.NewQueue(8, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
			defer func() {
				r := recover()
				if s := fmt.Sprint(r); r == nil || !strings.Contains(s, tc.want) {
					t.Errorf("panic = %v, want it to contain %q", r, tc.want)
				}
			}()
			tc.fn(q)
		})
	}
}

// Each word's allocated bits and cleared mask are on separate cache lines, and a
// word is exactly two cache lines.
func TestWordPadding(t *testing.T) {
	if sbitmap.WordSize != 128 {
		t.Errorf("padded word is %d bytes, want 128 (two 64-byte lines)", sbitmap.WordSize)
	}
}

// TestDirectClear: with Options.DirectClear a Put frees the bit in its word at once
// (the next Get from bit 0 takes it again; the deferred clear would take the next
// bit), Weight sees it free, a second Put of it panics, and Resize is refused with an
// error for the bitmap and for a queue, leaving the depth and wake batch unchanged.
func TestDirectClear(t *testing.T) {
	for _, depth := range []int{1, 8, 64, 200} {
		s, err := sbitmap.New(depth, sbitmap.Options{DirectClear: true})
		if err != nil {
			t.Fatal(err)
		}
		var h uint32
		for i := range 3 * depth {
			b := s.Get(&h)
			if b != 0 && depth <= 64 {
				t.Fatalf("depth %d, pair %d: Get = %d, want 0 (the bit just freed)", depth, i, b)
			}
			if w := s.Weight(); w != 1 {
				t.Fatalf("depth %d: weight %d after Get, want 1", depth, w)
			}
			s.Put(b, &h)
			if w := s.Weight(); w != 0 {
				t.Fatalf("depth %d: weight %d after Put, want 0", depth, w)
			}
		}
		b := s.Get(&h)
		s.Put(b, &h)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("depth %d: second Put of bit %d did not panic", depth, b)
				}
			}()
			s.Put(b, &h)
		}()
		if err := s.Resize(depth); err == nil || !strings.Contains(err.Error(), "DirectClear") {
			t.Errorf("depth %d: Resize error %v, want one naming DirectClear", depth, err)
		}
	}
	q, err := sbitmap.NewQueue(64, sbitmap.QueueOptions{Options: sbitmap.Options{DirectClear: true}})
	if err != nil {
		t.Fatal(err)
	}
	wb := q.WakeBatch()
	if err := q.Resize(8); err == nil || q.Sbitmap().Depth() != 64 || q.WakeBatch() != wb {
		t.Errorf("Queue.Resize(8): err %v, depth %d, wake batch %d (was %d): want an error and no change",
			err, q.Sbitmap().Depth(), q.WakeBatch(), wb)
	}
}
