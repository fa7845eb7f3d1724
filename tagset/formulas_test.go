package tagset_test

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/tagset"
	"github.com/google/go-cmp/cmp"
)

// fairShareByCounting computes max(ceil(depth/users), 4) without division: the
// smallest per-user share k with k*users >= depth, floored at 4.
func fairShareByCounting(depth, users int) int {
	k := 0
	for k*users < depth {
		k++
	}
	if k < 4 {
		k = 4
	}
	return k
}

func TestFairShareDepthTable(t *testing.T) {
	for users := 1; users <= 64; users++ {
		for depth := 1; depth <= 1024; depth++ {
			if got, want := tagset.FairShareDepth(depth, users), fairShareByCounting(depth, users); got != want {
				t.Fatalf("FairShareDepth(depth=%d, users=%d) = %d, want %d", depth, users, got, want)
			}
		}
	}
	// Listed values from the kernel behaviour notes and cases.
	for _, c := range []struct{ depth, users, want int }{
		{32, 2, 16}, {32, 8, 4}, {32, 16, 4}, {192, 15, 13}, {15, 16, 4}, {1024, 64, 16}, {1, 1, 4}, {3, 1, 4},
	} {
		if got := tagset.FairShareDepth(c.depth, c.users); got != c.want {
			t.Errorf("FairShareDepth(%d, %d) = %d, want %d", c.depth, c.users, got, c.want)
		}
	}
}

func TestDefaultNrRequests(t *testing.T) {
	for _, c := range []struct {
		qd       int
		elevator bool
		want     int
	}{
		{1, true, 2}, {15, true, 30}, {64, true, 128}, {128, true, 256}, {129, true, 256},
		{192, true, 256}, {1024, true, 256}, {15, false, 15}, {192, false, 192}, {1024, false, 1024},
	} {
		if got := tagset.DefaultNrRequests(c.qd, c.elevator); got != c.want {
			t.Errorf("DefaultNrRequests(%d, elevator=%v) = %d, want %d", c.qd, c.elevator, got, c.want)
		}
	}
}

func TestLegacyAsyncLimitTable(t *testing.T) {
	// Depths 1..8, listed from block/blk-tag.c (old) and commit a6b3f7614ca6 (new).
	wantNew := []int{1, 1, 2, 2, 3, 4, 5, 6}
	wantOld := []int{1, 1, 1, 2, 3, 4, 5, 6}
	var gotNew, gotOld []int
	for d := 1; d <= 8; d++ {
		gotNew = append(gotNew, tagset.LegacyAsyncLimit(d, false))
		gotOld = append(gotOld, tagset.LegacyAsyncLimit(d, true))
	}
	if diff := cmp.Diff(wantNew, gotNew); diff != "" {
		t.Errorf("a6b3f7614ca6 rule (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantOld, gotOld); diff != "" {
		t.Errorf("pre-a6b3f7614ca6 rule (-want +got):\n%s", diff)
	}
}

// asyncCapacity starts async requests until refused and returns how many ran.
func asyncCapacity(t *testing.T, depth int, pre bool) int {
	t.Helper()
	lt, err := tagset.NewLegacyTags(tagset.LegacyConfig{MaxDepth: depth, PreA6b3f7614ca6: pre})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, ok := lt.StartTag(true); !ok {
			return n
		}
		n++
	}
}

func TestLegacyStartTag(t *testing.T) {
	t.Run("seed004/three-tags-async-gets-two", func(t *testing.T) {
		if got := asyncCapacity(t, 3, false); got != 2 {
			t.Errorf("async requests in flight with 3 tags = %d, want 2", got)
		}
	})
	t.Run("seed004/pre-a6b3f7614ca6-three-tags-async-gets-one", func(t *testing.T) {
		if got := asyncCapacity(t, 3, true); got != 1 {
			t.Errorf("async requests in flight with 3 tags = %d, want 1", got)
		}
	})
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("sync-on-tag0-blocks-async/pre=%v", pre), func(t *testing.T) {
			lt, _ := tagset.NewLegacyTags(tagset.LegacyConfig{MaxDepth: 3, PreA6b3f7614ca6: pre})
			if tag, ok := lt.StartTag(false); !ok || tag != 0 {
				t.Fatalf("sync StartTag = %d, %v; want lowest tag 0", tag, ok)
			}
			tag, ok := lt.StartTag(true)
			if pre {
				if ok {
					t.Errorf("async got tag %d although the only async tag 0 is held by sync I/O", tag)
				}
				return
			}
			if !ok || tag != 1 {
				t.Errorf("async StartTag = %d, %v; want tag 1", tag, ok)
			}
		})
	}
	t.Run("greater-than-not-greater-or-equal", func(t *testing.T) {
		// Depth 8: sync holds 0..3, async 4,5. Shrink to 4 (async limit 2): two
		// async in flight is not > 2, so a third async may take free tag 0 once
		// sync frees it; a '>=' check would refuse.
		lt, _ := tagset.NewLegacyTags(tagset.LegacyConfig{MaxDepth: 8})
		for i := 0; i < 4; i++ {
			lt.StartTag(false)
		}
		lt.StartTag(true)
		lt.StartTag(true)
		for i := 0; i < 4; i++ {
			lt.EndTag(i)
		}
		if err := lt.ResizeTags(4); err != nil {
			t.Fatal(err)
		}
		if tag, ok := lt.StartTag(true); !ok || tag != 0 {
			t.Errorf("third async StartTag = %d, %v; want tag 0 (in_flight 2 is not > limit 2)", tag, ok)
		}
		if tag, ok := lt.StartTag(true); ok {
			t.Errorf("fourth async StartTag got %d; want refusal (in_flight 3 > 2)", tag)
		}
	})
}

func TestLegacyBadInput(t *testing.T) {
	for _, d := range []int{0, -1, tagset.LegacyMaxDepth + 1} {
		if _, err := tagset.NewLegacyTags(tagset.LegacyConfig{MaxDepth: d}); err == nil {
			t.Errorf("NewLegacyTags(max_depth=%d) succeeded", d)
		} else if want := "max_depth"; !contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	lt, _ := tagset.NewLegacyTags(tagset.LegacyConfig{MaxDepth: 4})
	if err := lt.ResizeTags(5); err == nil {
		t.Error("ResizeTags above the allocated depth succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("EndTag of a free tag did not panic")
		}
	}()
	lt.EndTag(2)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestDefaultElevator(t *testing.T) {
	for _, c := range []struct {
		hwq          int
		shared, none bool
		want         bool
	}{
		{1, false, false, true}, {16, false, false, false}, {16, true, false, true}, {1, false, true, false},
	} {
		if got := tagset.DefaultElevator(c.hwq, c.shared, c.none); got != c.want {
			t.Errorf("DefaultElevator(%d, shared=%v, noSched=%v) = %v, want %v", c.hwq, c.shared, c.none, got, c.want)
		}
	}
}
