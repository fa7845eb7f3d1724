package sbitmap_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sbitmap"
	"github.com/google/go-cmp/cmp"
)

func TestShiftOf(t *testing.T) {
	for _, tc := range []struct{ depth, shift, words int }{
		{256, 6, 4}, {64, 4, 4}, {56, 3, 7}, {15, 1, 8}, {3, 6, 1},
		{1, 6, 1}, {4, 0, 4}, {8, 1, 4}, {1024, 6, 16}, {255, 5, 8},
	} {
		t.Run(fmt.Sprintf("depth=%d", tc.depth), func(t *testing.T) {
			if got := sbitmap.ShiftOf(tc.depth); got != tc.shift {
				t.Errorf("ShiftOf(%d) = %d, want %d", tc.depth, got, tc.shift)
			}
			sb, err := sbitmap.New(tc.depth, sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}})
			if err != nil {
				t.Fatal(err)
			}
			if sb.Shift() != tc.shift {
				t.Errorf("New(%d).Shift() = %d, want %d", tc.depth, sb.Shift(), tc.shift)
			}
			// Count words by allocating everything and looking at the bit numbers.
			var h uint32
			words := map[int]bool{}
			for range tc.depth {
				words[sb.Get(&h)>>tc.shift] = true
			}
			if len(words) != tc.words {
				t.Errorf("depth %d uses %d words, want %d", tc.depth, len(words), tc.words)
			}
		})
	}
}

// wantWakeBatch is the sbq_calc_wake_batch formula, written out independently.
func wantWakeBatch(depth, msd int) int {
	shift := 6
	if depth >= 4 {
		for shift > 0 && 4<<shift > depth {
			shift--
		}
	}
	perWord := 1 << shift
	if msd > 0 && msd < perWord {
		perWord = msd
	}
	full := depth / (1 << shift)
	rest := depth % (1 << shift)
	usable := full*perWord + min(rest, perWord)
	return min(max(usable/8, 1), 8)
}

func TestWakeBatchTable(t *testing.T) {
	for _, msd := range []int{0, 1, 2, 3, 4, 7, 16, 48} {
		var bad []string
		for depth := 1; depth <= 4096; depth++ {
			if msd > depth {
				continue
			}
			want := wantWakeBatch(depth, msd)
			q, err := sbitmap.NewQueue(depth, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}, MinShallowDepth: msd})
			if err != nil {
				t.Fatal(err)
			}
			got := q.WakeBatch()
			if c := sbitmap.CalcWakeBatch(depth, sbitmap.ShiftOf(depth), msd); c != got {
				bad = append(bad, fmt.Sprintf("depth %d: CalcWakeBatch %d != queue %d", depth, c, got))
			}
			if got != want {
				bad = append(bad, fmt.Sprintf("depth %d: got %d want %d", depth, got, want))
			}
			if msd > 0 {
				// Setting it after construction gives the same batch.
				q2, _ := sbitmap.NewQueue(depth, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true}}})
				if err := q2.SetMinShallowDepth(msd); err != nil {
					t.Fatal(err)
				}
				if q2.WakeBatch() != want {
					bad = append(bad, fmt.Sprintf("depth %d: SetMinShallowDepth gives %d want %d", depth, q2.WakeBatch(), want))
				}
			}
			if len(bad) > 10 {
				break
			}
		}
		if len(bad) > 0 {
			t.Errorf("min_shallow_depth=%d:\n%s", msd, strings.Join(bad, "\n"))
		}
	}
	// Spot values: depth 64 shift 4, min shallow 3 → 4 words × 3 = 12 → 1.
	for _, tc := range []struct{ depth, msd, want int }{
		{1, 0, 1}, {8, 0, 1}, {16, 0, 2}, {64, 0, 8}, {56, 0, 7}, {256, 0, 8}, {64, 3, 1}, {256, 16, 8}, {256, 8, 4},
	} {
		if got := sbitmap.CalcWakeBatch(tc.depth, sbitmap.ShiftOf(tc.depth), tc.msd); got != tc.want {
			t.Errorf("CalcWakeBatch(%d, msd %d) = %d, want %d", tc.depth, tc.msd, got, tc.want)
		}
	}
}

func TestRecalculateWakeBatch(t *testing.T) {
	type row struct{ depth, users, era617, era62, rc1 int }
	var got, want []row
	for _, depth := range []int{1, 2, 3, 4, 8, 15, 31, 32, 33, 63, 64, 128, 256, 1024} {
		for users := 1; users <= 16; users++ {
			d := (depth + users - 1) / users
			minBatch := 1
			if depth >= 32 {
				minBatch = 4
			}
			want = append(want, row{depth, users,
				min(max(d/8, minBatch), 8),
				min(max(d/8, 1), 8),
				min(max(d, 4), 8)})
			r := row{depth: depth, users: users}
			for _, era := range []sbitmap.RecalcEra{sbitmap.Recalc5_17, sbitmap.Recalc6_2, sbitmap.Recalc5_17rc1} {
				q, err := sbitmap.NewQueue(depth, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, RecalcEra: era}}})
				if err != nil {
					t.Fatal(err)
				}
				q.RecalculateWakeBatch(users)
				wb := q.WakeBatch()
				if f := sbitmap.RecalcWakeBatch(era, depth, users); f != wb {
					t.Errorf("RecalcWakeBatch(%d, %d, %d) = %d, queue has %d", era, depth, users, f, wb)
				}
				switch era {
				case sbitmap.Recalc5_17:
					r.era617 = wb
				case sbitmap.Recalc6_2:
					r.era62 = wb
				default:
					r.rc1 = wb
				}
			}
			got = append(got, r)
		}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("recalculated wake batch (-want +got):\n%s", diff)
	}
}

// R03's model invariant for the current formula: with users sharing the depth and a
// fair-share cap of max(ceil(depth/users), 4), eight batches fit in the cap whenever
// the batch is above its floor of 1 (Kemeng Shi's fix).
func TestR03WakeBatchFitsFairShare(t *testing.T) {
	for depth := 1; depth <= 1024; depth++ {
		for users := 1; users <= 64; users++ {
			wb := sbitmap.RecalcWakeBatch(sbitmap.Recalc6_2, depth, users)
			share := max((depth+users-1)/users, 4)
			if wb > 1 && 8*wb > share {
				t.Fatalf("R03/shared-tags-lazy-idle: depth %d users %d: 8×wake_batch %d > cap %d", depth, users, 8*wb, share)
			}
		}
	}
}

func TestCountdownResizeResetsWaitCnt(t *testing.T) {
	q, _ := sbitmap.NewQueue(256, sbitmap.QueueOptions{Options: sbitmap.Options{Kernel: sbitmap.KernelSwitches{CalculateShift: true, WakeScheme: sbitmap.WakeCountdown}}})
	var got []int
	for i := range sbitmap.WaitQueues {
		got = append(got, q.WaitCnt(i))
	}
	if diff := cmp.Diff([]int{8, 8, 8, 8, 8, 8, 8, 8}, got); diff != "" {
		t.Errorf("initial wait_cnt (-want +got):\n%s", diff)
	}
	mustResize(t, q, 16)
	got = got[:0]
	for i := range sbitmap.WaitQueues {
		got = append(got, q.WaitCnt(i))
	}
	if diff := cmp.Diff([]int{1, 1, 1, 1, 1, 1, 1, 1}, got); diff != "" {
		t.Errorf("wait_cnt after resize (-want +got):\n%s", diff)
	}
}
