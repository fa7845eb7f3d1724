package sbitmap_test

import (
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestOneWordFastPathTaken: which bitmaps take Get's one-word fast path.
func TestOneWordFastPathTaken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		depth int
		opt   sbitmap.Options
		want  bool
	}{
		{"default/depth1", 1, sbitmap.Options{}, true},
		{"default/depth8", 8, sbitmap.Options{}, true},
		{"default/depth64", 64, sbitmap.Options{}, true},
		{"default/depth65", 65, sbitmap.Options{}, false},
		{"shift3/depth8", 8, sbitmap.Options{Shift: 3}, true},
		{"shift3/depth9", 9, sbitmap.Options{Shift: 3}, false},
		{"kernel-shift/depth3", 3, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}, true},
		{"kernel-shift/depth8", 8, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}, false},
		{"round-robin/depth8", 8, sbitmap.Options{RoundRobin: true}, false},
		{"unlocked-deferred-clear/depth8", 8, sbitmap.Options{Kernel: sbitmap.KernelSwitches{UnlockedDeferredClear: true}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sbitmap.New(tc.depth, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.OneWordFastPath(); got != tc.want {
				t.Errorf("OneWordFastPath() = %v, want %v", got, tc.want)
			}
		})
	}
}

// fastPathState is everything a single goroutine can observe of a bitmap and its
// users' hints after an operation.
type fastPathState struct {
	Ret              []int
	Hints            []uint32
	Word, Cleared    uint64
	Depth, WeightNow int
}

// TestOneWordFastPathSameAsWalk drives two one-word bitmaps with the same random
// operations (Get, GetShallow, GetBatch, Put, ClearBatch, Resize), one with Get's
// one-word fast path and one with it disabled, and requires every result, every hint,
// the word, its cleared mask and the weight to agree after each operation: the fast
// path picks the bit, and moves the hint, exactly as the kernel's walk does.
func TestOneWordFastPathSameAsWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		depth := rapid.IntRange(1, 64).Draw(t, "depth")
		opt := sbitmap.Options{
			Shift:  rapid.SampledFrom([]int{0, 6}).Draw(t, "shift"),
			Kernel: sbitmap.KernelSwitches{UnlockedDeferredClear: rapid.Bool().Draw(t, "unlocked")},
		}
		fast, err := sbitmap.New(depth, opt)
		if err != nil {
			t.Fatal(err)
		}
		walk, err := sbitmap.New(depth, opt)
		if err != nil {
			t.Fatal(err)
		}
		walk.DisableOneWordFastPath()
		if !fast.OneWordFastPath() || walk.OneWordFastPath() {
			t.Fatalf("fast path: %v and %v, want true and false", fast.OneWordFastPath(), walk.OneWordFastPath())
		}
		type side struct {
			s     *sbitmap.Sbitmap
			hints []uint32
			held  []int
		}
		sides := []*side{{s: fast}, {s: walk}}
		for _, sd := range sides {
			for i := range 3 {
				sd.hints = append(sd.hints, sd.s.InitHint(uint64(i)))
			}
			sd.hints = append(sd.hints, sbitmap.HintUnset)
		}
		state := func(sd *side, ret ...int) fastPathState {
			return fastPathState{Ret: ret, Hints: append([]uint32(nil), sd.hints...),
				Word: sd.s.Word(0), Cleared: sd.s.Cleared(0), Depth: sd.s.Depth(), WeightNow: sd.s.Weight()}
		}
		hint := rapid.IntRange(0, 3)
		both := func(t *rapid.T, op func(sd *side) []int) {
			a := state(sides[0], op(sides[0])...)
			b := state(sides[1], op(sides[1])...)
			if diff := cmp.Diff(b, a); diff != "" {
				t.Fatalf("fast path differs from the walk (-walk +fast):\n%s", diff)
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
			"getBatch": func(t *rapid.T) {
				h, n := hint.Draw(t, "h"), rapid.IntRange(1, 8).Draw(t, "n")
				both(t, func(sd *side) []int {
					off, m := sd.s.GetBatch(&sd.hints[h], n)
					for i := range 64 {
						if m&(1<<i) != 0 {
							sd.held = append(sd.held, off+i)
						}
					}
					return []int{off, int(m)}
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
