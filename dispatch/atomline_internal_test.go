package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// TestAtomLineIndexMatchesMap checks atomLine's index by object and word against the
// atoms map it fronts: for many objects in turn (more than the recent-object cache
// holds), words inside and outside the indexed range and negative words, every lookup
// returns the line the map holds for (object, word), created once and named by its
// first use.
func TestAtomLineIndexMatchesMap(t *testing.T) {
	h := &Host{cpu: newCPUState(CPUModel{}, 4)}
	objs := make([]*int, 9)
	for i := range objs {
		objs[i] = new(int)
	}
	words := []int{0, 1, 63, 5, -1, maxIndexedWord - 1, maxIndexedWord, 1 << 20, 2}
	seen := map[lineKey]*sim.AtomicLine{}
	for round := range 3 {
		for i, o := range objs {
			for j, w := range words {
				if (i+j+round)%3 == 0 {
					continue // leave gaps so that later rounds create lines too
				}
				l := h.atomLine("first", o, w)
				k := lineKey{o, w}
				if want := h.cpu.atoms[k]; l != want {
					t.Fatalf("round %d obj %d word %d: atomLine %p, map %p", round, i, w, l, want)
				}
				if prev, ok := seen[k]; ok && prev != l {
					t.Fatalf("round %d obj %d word %d: a second line was created", round, i, w)
				}
				seen[k] = l
				if h.atomLine("second", o, w) != l || h.cpu.lnames[k] != "first" {
					t.Fatalf("obj %d word %d: repeat lookup or name changed (%q)", i, w, h.cpu.lnames[k])
				}
			}
		}
	}
	if len(h.cpu.atoms) != len(seen) {
		t.Errorf("map holds %d lines, lookups saw %d", len(h.cpu.atoms), len(seen))
	}
}

// TestListLockAtUsesTheMapsLock: the lock a ctx or hctx keeps in its slot is the one
// the locks map holds for it (so Contention counts it), created once, named by its
// first use, and the sections charged through the slot are the ones the map's lock
// counted.
func TestListLockAtUsesTheMapsLock(t *testing.T) {
	h := &Host{eng: sim.NewEngine(), cpu: newCPUState(CPUModel{}, 4)}
	ctxs := []*Ctx{{cpu: 0}, {cpu: 1}, {cpu: 2}}
	for round := range 3 {
		for i, c := range ctxs {
			h.cpu.cur = (i + round) % 4
			h.listLockAt("ctx", c, &c.lk, 10)
			k := lineKey{c, -1}
			if c.lk == nil || h.cpu.locks[k] != c.lk || h.cpu.lnames[k] != "ctx" {
				t.Fatalf("round %d ctx %d: slot %p, map %p (%q)", round, i, c.lk, h.cpu.locks[k], h.cpu.lnames[k])
			}
			if got := c.lk.Stats().Ops; got != uint64(round+1) {
				t.Fatalf("round %d ctx %d: the map's lock counted %d sections, want %d", round, i, got, round+1)
			}
		}
	}
	if len(h.cpu.locks) != len(ctxs) {
		t.Errorf("map holds %d locks, want %d", len(h.cpu.locks), len(ctxs))
	}
}
