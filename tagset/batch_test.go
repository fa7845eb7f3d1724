package tagset_test

import (
	"math/bits"
	"testing"

	"github.com/blkmq/blkmq/tagset"
)

func TestGetTagsBatch(t *testing.T) {
	s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 64, ReservedTags: 2, NrCPUs: 1})
	q := mustQueue(t, s, tagset.QueueConfig{})
	h := q.Hctx(0)
	// 62 normal tags: 8-bit words (sbitmap_calculate_shift); a batch of 8 takes a
	// whole empty word with one compare-and-swap.
	off, mask := h.GetTagsBatch(0, 8, 0, false)
	n := bits.OnesCount64(mask)
	if n != 8 || mask != 0xff || off < 2 || (off-2)%8 != 0 {
		t.Fatalf("batch of 8: offset %d mask %#x (%d tags), want one whole word after the 2 reserved", off, mask, n)
	}
	if got := h.Tags().Busy(); got != n {
		t.Errorf("Busy %d, want %d", got, n)
	}
	if got := h.ActiveRequests(); got != n {
		t.Errorf("ActiveRequests %d, want %d", got, n)
	}
	var tags []int
	for i := range 64 {
		if mask&(1<<i) != 0 {
			tags = append(tags, off+i)
		}
	}
	h.PutTagsBatch(tags, false, 0)
	if h.Tags().Busy() != 0 || h.ActiveRequests() != 0 {
		t.Errorf("after PutTagsBatch: Busy %d, ActiveRequests %d, want 0 0", h.Tags().Busy(), h.ActiveRequests())
	}

	// The cases blk_mq_get_tags refuses: the caller falls back to one tag.
	for _, c := range []struct {
		name             string
		n, shallow       int
		reserved, shared bool
	}{
		{"one-tag", 1, 0, false, false},
		// __sbitmap_queue_get_batch needs first-zero-bit + n to fit one word.
		{"batch-wider-than-a-word", 24, 0, false, false},
		{"shallow-depth", 24, 8, false, false},
		{"reserved", 24, 0, true, false},
		{"tag-queue-shared", 24, 0, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustSet(t, tagset.Config{NrHwQueues: 1, QueueDepth: 64, ReservedTags: 2, NrCPUs: 1})
			h := mustQueue(t, s, tagset.QueueConfig{}).Hctx(0)
			if c.shared {
				mustQueue(t, s, tagset.QueueConfig{})
			}
			if off, mask := h.GetTagsBatch(0, c.n, c.shallow, c.reserved); off != 0 || mask != 0 {
				t.Errorf("got offset %d mask %#x, want no batch", off, mask)
			}
		})
	}
}
