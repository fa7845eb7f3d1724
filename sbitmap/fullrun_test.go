package sbitmap_test

import (
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// fullRunState is what one goroutine can observe of a multi-word bitmap and its users'
// hints after an operation.
type fullRunState struct {
	Ret            []int
	Hints          []uint32
	Words, Cleared []uint64
	Depth, Weight  int
}

// TestFullRunSameAsWalk drives two multi-word bitmaps with the same random operations
// (Get, GetShallow, Put, ClearBatch, Resize), one as built and one with the word-full
// test hook installed (a no-op), which turns off findBit's pass over full words
// (fullRun), and requires every result, hint, word and cleared mask to agree after
// each operation: passing over full words first changes nothing a walk would find.
func TestFullRunSameAsWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		depth := rapid.IntRange(1, 300).Draw(t, "depth")
		opt := sbitmap.Options{
			Shift:      rapid.SampledFrom([]int{0, 2, 3, 4, 6}).Draw(t, "shift"),
			RoundRobin: rapid.Bool().Draw(t, "rr"),
			Kernel:     sbitmap.KernelSwitches{UnlockedDeferredClear: rapid.Bool().Draw(t, "unlocked")},
		}
		type side struct {
			s     *sbitmap.Sbitmap
			hook  bool
			hints []uint32
			held  []int
		}
		var sides []*side
		for _, hook := range []bool{false, true} {
			s, err := sbitmap.New(depth, opt)
			if err != nil {
				t.Fatal(err)
			}
			sd := &side{s: s, hook: hook}
			for i := range 3 {
				sd.hints = append(sd.hints, s.InitHint(uint64(i)))
			}
			sd.hints = append(sd.hints, sbitmap.HintUnset)
			sides = append(sides, sd)
		}
		nWords := (sides[0].s.Capacity() + 1<<sides[0].s.Shift() - 1) >> sides[0].s.Shift()
		state := func(sd *side, ret ...int) fullRunState {
			st := fullRunState{Ret: ret, Hints: append([]uint32(nil), sd.hints...),
				Depth: sd.s.Depth(), Weight: sd.s.Weight()}
			for i := range nWords {
				st.Words = append(st.Words, sd.s.Word(i))
				st.Cleared = append(st.Cleared, sd.s.Cleared(i))
			}
			return st
		}
		hint := rapid.IntRange(0, 3)
		both := func(t *rapid.T, op func(sd *side) []int) {
			var st [2]fullRunState
			for i, sd := range sides {
				restore := func() {}
				if sd.hook {
					restore = sbitmap.SetTestHookWordFull(func() {})
				}
				st[i] = state(sd, op(sd)...)
				restore()
			}
			if diff := cmp.Diff(st[1], st[0]); diff != "" {
				t.Fatalf("with fullRun differs from the plain walk (-walk +fullRun):\n%s", diff)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"get": func(t *rapid.T) {
				h := hint.Draw(t, "h")
				both(t, func(sd *side) []int {
					b := sd.s.Get(&sd.hints[h])
					if b >= 0 {
						sd.held = append(sd.held, b)
					}
					return []int{b}
				})
			},
			"getShallow": func(t *rapid.T) {
				h, n := hint.Draw(t, "h"), rapid.IntRange(0, 70).Draw(t, "sd")
				both(t, func(sd *side) []int {
					b := sd.s.GetShallow(&sd.hints[h], n)
					if b >= 0 {
						sd.held = append(sd.held, b)
					}
					return []int{b}
				})
			},
			"put": func(t *rapid.T) {
				if len(sides[0].held) == 0 {
					t.Skip("nothing held")
				}
				i, h := rapid.IntRange(0, len(sides[0].held)-1).Draw(t, "i"), hint.Draw(t, "h")
				both(t, func(sd *side) []int {
					b := sd.held[i]
					sd.held = append(sd.held[:i], sd.held[i+1:]...)
					sd.s.Put(b, &sd.hints[h])
					return []int{b}
				})
			},
			"clearBatch": func(t *rapid.T) {
				if len(sides[0].held) == 0 {
					t.Skip("nothing held")
				}
				n := rapid.IntRange(1, len(sides[0].held)).Draw(t, "n")
				both(t, func(sd *side) []int {
					batch := append([]int(nil), sd.held[:n]...)
					sd.held = sd.held[n:]
					sd.s.ClearBatch(batch)
					return batch
				})
			},
			"resize": func(t *rapid.T) {
				d := rapid.IntRange(1, depth).Draw(t, "d")
				both(t, func(sd *side) []int {
					if err := sd.s.Resize(d); err != nil {
						t.Fatal(err)
					}
					return []int{d}
				})
			},
		})
	})
}
