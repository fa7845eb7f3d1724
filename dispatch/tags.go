package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sbitmap"
)

// Tags is one blk_mq_tags (block/blk-mq-tag.c) as dispatch uses it: a bitmap of tags
// (an sbitmap.Queue with eight wait queues), the requests that hold them, and the
// active-queue count used by fair sharing when the tag set is shared by several
// request queues. Reserved tags are not modelled (nr_reserved_tags = 0), so a tag is
// its bit number.
type Tags struct {
	bitmap       *sbitmap.Queue
	rqs          []*Request
	activeQueues int
	hints        []uint32 // per-CPU allocation hints (alloc_hint)
}

// newTags builds a Tags of depth bits with nrCPUs allocation hints.
func newTags(depth, nrCPUs int, opt sbitmap.QueueOptions) (*Tags, error) {
	bm, err := sbitmap.NewQueue(depth, opt)
	if err != nil {
		return nil, fmt.Errorf("dispatch: tags of depth %d: %w", depth, err)
	}
	t := &Tags{bitmap: bm, rqs: make([]*Request, depth), hints: make([]uint32, nrCPUs)}
	for i := range t.hints {
		t.hints[i] = bm.Sbitmap().InitHint(uint64(i))
	}
	return t, nil
}

// Bitmap returns the tag bitmap.
func (t *Tags) Bitmap() *sbitmap.Queue { return t.bitmap }

// Depth returns the number of tags.
func (t *Tags) Depth() int { return t.bitmap.Depth() }

// InUse returns the number of tags held.
func (t *Tags) InUse() int { return t.bitmap.Sbitmap().Weight() }

// ActiveQueues returns tags->active_queues.
func (t *Tags) ActiveQueues() int { return t.activeQueues }

// get takes a tag for a task on cpu (__blk_mq_get_tag), honouring a shallow depth
// (0 = none). It returns -1 when no tag is free.
func (t *Tags) get(cpu int, shallow int) int {
	h := &t.hints[cpu]
	if shallow > 0 && shallow < t.bitmap.Depth() {
		return t.bitmap.GetShallow(h, shallow)
	}
	return t.bitmap.Get(h)
}

// put frees tag, allocated on cpu (blk_mq_put_tag → sbitmap_queue_clear), waking
// waiters per the queue's wake scheme.
func (t *Tags) put(tag, cpu int) {
	t.rqs[tag] = nil
	t.bitmap.Clear(tag, &t.hints[cpu])
}

// resize changes the depth (blk_mq_tag_update_depth, shrink of driver tags or sched
// tags within their allocation).
func (t *Tags) resize(depth int) error {
	if depth > len(t.rqs) {
		rqs := make([]*Request, depth)
		copy(rqs, t.rqs)
		t.rqs = rqs
	}
	return t.bitmap.Resize(depth)
}
