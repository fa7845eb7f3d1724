package sbitmap_test

import (
	"slices"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"pgregory.net/rapid"
)

// model is a plain-set model of a Queue (single goroutine).
type model struct {
	q        *sbitmap.Queue
	capacity int
	shift    int
	held     map[int]bool
	hints    []uint32
}

func newModel(q *sbitmap.Queue, nhints int) *model {
	m := &model{q: q, capacity: q.Sbitmap().Capacity(), shift: q.Sbitmap().Shift(), held: map[int]bool{}}
	for i := range nhints {
		m.hints = append(m.hints, q.Sbitmap().InitHint(uint64(i)))
	}
	return m
}

type fataler interface {
	Fatalf(format string, args ...any)
}

func (m *model) mapNr() int {
	d := m.q.Depth()
	return (d + 1<<m.shift - 1) >> m.shift
}

// take records a newly allocated bit, checking it was free and allowed.
func (m *model) take(t fataler, op string, bit int, allowed func(int) bool) {
	if bit < 0 || bit >= m.q.Depth() || !allowed(bit) {
		t.Fatalf("%s returned bit %d outside the allowed range (depth %d)", op, bit, m.q.Depth())
	}
	if m.held[bit] {
		t.Fatalf("%s returned bit %d which is already held", op, bit)
	}
	m.held[bit] = true
}

// noneFree checks that a failed allocation saw no free eligible bit.
func (m *model) noneFree(t fataler, op string, eligible func(int) bool) {
	for b := range m.q.Depth() {
		if eligible(b) && !m.held[b] {
			t.Fatalf("%s failed but bit %d is free (depth %d)", op, b, m.q.Depth())
		}
	}
}

func (m *model) get(t fataler, h int) {
	all := func(int) bool { return true }
	eligible := all
	if h0 := int(m.hints[h]); m.q.Sbitmap().RoundRobin() && h0 < m.q.Depth() {
		// Round robin does not wrap inside the hinted word: the bits below the
		// hint in that word are not searched (the kernel's behaviour).
		eligible = func(b int) bool { return b>>m.shift != h0>>m.shift || b >= h0 }
	}
	if b := m.q.Get(&m.hints[h]); b >= 0 {
		m.take(t, "Get", b, all)
	} else {
		m.noneFree(t, "Get", eligible)
	}
}

func (m *model) getShallow(t fataler, h, sd int, whole bool) {
	eligible := func(b int) bool { return b-(b>>m.shift)<<m.shift < sd }
	if whole {
		eligible = func(int) bool { return true } // checked by count below
	}
	b := m.q.GetShallow(&m.hints[h], sd)
	if b >= 0 {
		m.take(t, "GetShallow", b, eligible)
	} else if !whole {
		m.noneFree(t, "GetShallow", eligible)
	}
}

func (m *model) put(t fataler, pick, h int) {
	bits := m.heldList()
	if len(bits) == 0 {
		return
	}
	b := bits[pick%len(bits)]
	m.q.Clear(b, &m.hints[h])
	delete(m.held, b)
	if !m.q.Sbitmap().RoundRobin() && b < m.q.Depth() && m.hints[h] != uint32(b) {
		t.Fatalf("Clear(%d) left hint %d, want %d", b, m.hints[h], b)
	}
}

func (m *model) batch(t fataler, h, n int) {
	off, mask := m.q.GetBatch(&m.hints[h], n)
	var got []int
	for i := range 64 {
		if mask&(1<<i) != 0 {
			got = append(got, off+i)
		}
	}
	for _, b := range got {
		m.take(t, "GetBatch", b, func(b int) bool { return b-off < n && (b>>m.shift) == (off>>m.shift) })
	}
}

func (m *model) clearBatch(pick, n int) {
	bits := m.heldList()
	if len(bits) == 0 {
		return
	}
	start := pick % len(bits)
	sel := bits[start:min(len(bits), start+n)]
	m.q.ClearBatch(sel, nil)
	for _, b := range sel {
		delete(m.held, b)
	}
}

func (m *model) resize(t fataler, d int) {
	if err := m.q.Resize(d); err != nil {
		t.Fatalf("Resize(%d): %v", d, err)
	}
}

func (m *model) heldList() []int {
	bits := make([]int, 0, len(m.held))
	for b := range m.held {
		bits = append(bits, b)
	}
	slices.Sort(bits)
	return bits
}

// check compares Weight, AnySet and ForEachSet with the model.
func (m *model) check(t fataler) {
	nr := m.mapNr()
	anySet, visible := false, []int{}
	for _, b := range m.heldList() {
		if b>>m.shift < nr {
			anySet = true // AnySet does not mask the last word
		}
		if b < m.q.Depth() {
			visible = append(visible, b)
		}
	}
	sb := m.q.Sbitmap()
	if w := sb.Weight(); w != len(visible) {
		t.Fatalf("Weight = %d, model %d", w, len(visible))
	}
	if a := sb.AnySet(); a != anySet {
		t.Fatalf("AnySet = %v, model %v", a, anySet)
	}
	var got []int
	sb.ForEachSet(0, func(b int) bool { got = append(got, b); return true })
	if !slices.Equal(got, visible) {
		t.Fatalf("ForEachSet(0) = %v, model %v", got, visible)
	}
	if len(visible) > 0 {
		start := visible[len(visible)/2]
		got = got[:0]
		sb.ForEachSet(start, func(b int) bool { got = append(got, b); return true })
		want := append(slices.Clone(visible[len(visible)/2:]), visible[:len(visible)/2]...)
		if !slices.Equal(got, want) {
			t.Fatalf("ForEachSet(%d) = %v, model %v", start, got, want)
		}
	}
}

func TestModelRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		depth := rapid.IntRange(1, 300).Draw(t, "depth")
		opt := sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}}
		opt.Shift = rapid.IntRange(-1, 6).Draw(t, "shift")
		opt.RoundRobin = rapid.Bool().Draw(t, "rr")
		opt.Kernel.ShallowWholeBitmap = rapid.Bool().Draw(t, "whole")
		q, err := sbitmap.NewQueue(depth, opt)
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(q, 3)
		hint := rapid.IntRange(0, 2)
		t.Repeat(map[string]func(*rapid.T){
			"get": func(t *rapid.T) { m.get(t, hint.Draw(t, "h")) },
			"getShallow": func(t *rapid.T) {
				m.getShallow(t, hint.Draw(t, "h"), rapid.IntRange(0, 70).Draw(t, "sd"), opt.Kernel.ShallowWholeBitmap)
			},
			"put": func(t *rapid.T) { m.put(t, rapid.IntRange(0, 1000).Draw(t, "pick"), hint.Draw(t, "h")) },
			"getBatch": func(t *rapid.T) {
				m.batch(t, hint.Draw(t, "h"), rapid.IntRange(1, 8).Draw(t, "n"))
			},
			"clearBatch": func(t *rapid.T) {
				m.clearBatch(rapid.IntRange(0, 1000).Draw(t, "pick"), rapid.IntRange(1, 5).Draw(t, "n"))
			},
			"resize": func(t *rapid.T) { m.resize(t, rapid.IntRange(1, depth).Draw(t, "d")) },
			"":       func(t *rapid.T) { m.check(t) },
		})
	})
}
