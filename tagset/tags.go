package tagset

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blkmq/blkmq/sbitmap"
	"golang.org/x/sys/cpu"
)

// cpuHints holds one CPU's allocation hints (the kernel's per-CPU alloc_hint of
// each sbitmap), padded so that CPUs do not share a cache line.
type cpuHints struct {
	normal, reserved uint32
	_                cpu.CacheLinePad
}

// Tags models struct blk_mq_tags: nr_tags tags of which the first nr_reserved
// are reserved. Normal tags come from the Bitmap queue and are numbered
// bit + nr_reserved; reserved tags come from the Reserved queue and are numbered
// by their bit. It also carries active_queues, the number of active users for
// fair sharing.
//
// Get and Put are safe for concurrent use provided two goroutines never use the
// same cpu index at once (each CPU index owns one allocation hint per bitmap).
// Take one from TagSet.Tags or Hctx.Tags: the zero Tags has no bitmap, so its Get
// returns −1 and Put, Busy and NrTags panic naming tagset.New.
type Tags struct {
	nrTags, nrReserved int
	bitmap             *sbitmap.Queue
	reserved           *sbitmap.Queue // nil when nrReserved == 0

	mu           sync.Mutex   // tags->lock: active_queues and wake_batch updates
	activeQueues atomic.Int32 // tags->active_queues

	hints []cpuHints
}

// newTags models blk_mq_init_tags: bitmaps with the default shift (or the given
// capacity for later growth by Resize), round-robin if rr.
func newTags(nrTags, nrReserved, capacity, nrCPUs int, seed uint64, qo sbitmap.QueueOptions) (*Tags, error) {
	qo.Shift = 0
	t := &Tags{nrTags: nrTags, nrReserved: nrReserved, hints: make([]cpuHints, nrCPUs)}
	var err error
	qo.Kernel.CalculateShift = true // blk_mq_init_bitmaps: sbitmap_calculate_shift
	if t.bitmap, err = sbitmap.NewQueue(capacity-nrReserved, qo); err != nil {
		return nil, fmt.Errorf("tagset: tags: %w", err)
	}
	if nrTags < capacity {
		if err = t.bitmap.Resize(nrTags - nrReserved); err != nil {
			return nil, fmt.Errorf("tagset: tags: %w", err)
		}
	}
	if nrReserved > 0 {
		if t.reserved, err = sbitmap.NewQueue(nrReserved, qo); err != nil {
			return nil, fmt.Errorf("tagset: reserved tags: %w", err)
		}
	}
	for i := range t.hints {
		s := seed ^ uint64(i+1)*0x9e3779b97f4a7c15
		t.hints[i].normal = t.bitmap.Sbitmap().InitHint(s)
		if t.reserved != nil {
			t.hints[i].reserved = t.reserved.Sbitmap().InitHint(s + 1)
		}
	}
	return t, nil
}

// NrTags returns nr_tags (normal plus reserved) as currently sized.
func (t *Tags) NrTags() int { t.made(); return t.nrReserved + t.bitmap.Depth() }

// made panics on a zero Tags (one not allocated by tagset.New or AddQueue).
func (t *Tags) made() {
	if t.bitmap == nil {
		panic("tagset: zero Tags: take one from TagSet.Tags or Hctx.Tags of a set made by tagset.New")
	}
}

// NrReserved returns nr_reserved_tags.
func (t *Tags) NrReserved() int { return t.nrReserved }

// Bitmap returns the normal-tag queue (bitmap_tags).
func (t *Tags) Bitmap() *sbitmap.Queue { return t.bitmap }

// Reserved returns the reserved-tag queue (breserved_tags), or nil without
// reserved tags.
func (t *Tags) Reserved() *sbitmap.Queue { return t.reserved }

// ActiveQueues returns active_queues: the users counted by fair sharing.
func (t *Tags) ActiveQueues() int { return int(t.activeQueues.Load()) }

// bt returns the queue for a normal or reserved allocation.
func (t *Tags) bt(reserved bool) *sbitmap.Queue {
	if reserved {
		return t.reserved
	}
	return t.bitmap
}

func (t *Tags) hint(cpu int, reserved bool) *uint32 {
	if cpu < 0 || cpu >= len(t.hints) {
		panic(fmt.Sprintf("tagset: cpu %d out of range [0, %d)", cpu, len(t.hints)))
	}
	if reserved {
		return &t.hints[cpu].reserved
	}
	return &t.hints[cpu].normal
}

// get allocates from bt (shallow if shallow > 0) and returns the kernel tag
// number, or -1.
func (t *Tags) get(cpu int, reserved bool, shallow int) int {
	bt := t.bt(reserved)
	if bt == nil {
		return -1
	}
	var bit int
	if shallow > 0 {
		bit = bt.GetShallow(t.hint(cpu, reserved), shallow)
	} else {
		bit = bt.Get(t.hint(cpu, reserved))
	}
	if bit < 0 || reserved {
		return bit
	}
	return bit + t.nrReserved
}

// Get models the non-blocking tag allocation __sbitmap_queue_get on the normal
// or reserved bitmap, without fair sharing: it returns a tag with the kernel's
// numbering, or -1 if none is free (or reserved is asked without reserved
// tags). cpu selects the allocation hint, in [0, NrCPUs); it panics outside.
func (t *Tags) Get(cpu int, reserved bool) int { return t.get(cpu, reserved, 0) }

// IsReserved models blk_mq_tag_is_reserved: tag < nr_reserved.
func (t *Tags) IsReserved(tag int) bool { return tag < t.nrReserved }

// Put models blk_mq_put_tag: the tag's bit is cleared with sbitmap_queue_clear,
// which may wake waiters synchronously, and cpu's hint (the CPU that allocated
// the tag) is set to it. A hint is plain memory owned by its cpu index: a Go
// program freeing from another goroutine than the one using cpu passes cpu = −1,
// which skips the hint update (the kernel's remote write is a benign race Go
// does not allow). It panics if tag is out of range or not held.
func (t *Tags) Put(tag, cpu int) {
	t.checkTag(tag)
	reserved := tag < t.nrReserved
	var hint *uint32
	if cpu >= 0 {
		hint = t.hint(cpu, reserved)
	}
	if reserved {
		t.reserved.Clear(tag, hint)
		return
	}
	t.bitmap.Clear(tag-t.nrReserved, hint)
}

// checkTag panics if tag is outside [0, NrTags()) (the Put of a tag that cannot be
// held).
func (t *Tags) checkTag(tag int) {
	t.made()
	if tag < 0 || tag >= t.nrReserved+t.bitmap.Sbitmap().Capacity() {
		panic(fmt.Sprintf("tagset: Put of tag %d out of range [0, %d)", tag, t.NrTags()))
	}
}

// Busy returns the number of tags held (normal and reserved), counting bits
// freed but not yet folded as free (sbitmap_weight).
func (t *Tags) Busy() int {
	t.made()
	n := t.bitmap.Sbitmap().Weight()
	if t.reserved != nil {
		n += t.reserved.Sbitmap().Weight()
	}
	return n
}

// updateWakeBatch models blk_mq_update_wake_batch: both bitmaps recalculate
// their wake batch for users; users == 0 leaves them unchanged.
func (t *Tags) updateWakeBatch(users int) {
	if users == 0 {
		return
	}
	t.bitmap.RecalculateWakeBatch(users)
	if t.reserved != nil {
		t.reserved.RecalculateWakeBatch(users)
	}
}

// WakeAll models blk_mq_tag_wakeup_all: every waiter of both bitmaps is woken.
func (t *Tags) WakeAll() {
	t.bitmap.WakeAll()
	if t.reserved != nil {
		t.reserved.WakeAll()
	}
}
