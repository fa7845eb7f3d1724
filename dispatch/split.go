package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// Splitting a direct I/O into the requests the device sees.
//
// A Bio handed to SubmitBio is one direct I/O as fio issues it (an io_u). The kernel
// turns it into requests in two steps, both modelled here:
//
//  1. block/fops.c (__blkdev_direct_IO, and iomap on a file system) maps the user
//     buffer into bios of at most BIO_MAX_VECS (256) bvecs. fio's buffers are page
//     aligned and their 4 KiB pages are assumed physically discontiguous (anonymous
//     memory), so each bvec is one page and each bio at most 1 MiB.
//  2. blk_mq_submit_bio splits each bio to the queue limits (block/blk-merge.c,
//     __bio_split_to_limits → bio_split_rw with get_max_io_size): the front part is
//     at most max_sectors (aligned to the physical block when the I/O is long enough)
//     and max_segments segments (one per page-sized bvec); the rest is resubmitted
//     and split again. Each part gets a request of its own, so each needs a tag.
//
// The parts are submitted in order by the submitting task (current->bio_list): a part
// that sleeps in blk_mq_get_tag holds back the parts after it. The I/O completes (one
// EndBio to the caller) when every part has completed (bio_chain).
//
// REQ_NOWAIT I/O that needs more than one bio or a split fails with -EAGAIN before
// any part is queued (fops.c since 5.15.y/6.1.y via the IOCB_NOWAIT check, and
// bio_split_rw's "We can't sanely support splitting for a REQ_NOWAIT bio"): SubmitBio
// returns WouldBlock and io_uring retries the I/O from io-wq, blocking.
//
// A split part carries REQ_NOMERGE in the kernel; here every part but the last is
// already as large as the merge limit (max_sectors and max_segments pages), so no
// merge could take it anyway and the flag is not modelled.

// pageSize is PAGE_SIZE on x86-64 (bytes).
const pageSize = 4096

// bioMaxVecs is BIO_MAX_VECS: the bvecs one bio holds (include/linux/bio.h).
const bioMaxVecs = 256

// dioBioBytes is the largest bio __blkdev_direct_IO builds from page-sized bvecs.
const dioBioBytes = bioMaxVecs * pageSize

// sectorSize is SECTOR_SIZE (bytes).
const sectorSize = 512

// QueueLimits are the request-size limits of a request queue (struct queue_limits, as
// sysfs queue/ shows them). Zero fields take the defaults in their comments; the
// defaults keep a queue without limits as the model always had it.
type QueueLimits struct {
	// MaxSectors is max_sectors in 512-byte sectors (sysfs max_sectors_kb × 2): the
	// largest request built by merging or left by splitting. 0 = MaxSectorsKB × 2.
	MaxSectors int
	// MaxHwSectors is max_hw_sectors (sectors), the driver's limit MaxSectors may
	// not exceed (queue_max_sectors_store). 0 = no limit.
	MaxHwSectors int
	// MaxSegments is max_segments: the scatter-gather entries of one request; each
	// page-sized bvec is one. 0 = no limit.
	MaxSegments int
	// MaxSegmentSize is max_segment_size (bytes). A page-sized bvec is one segment
	// whatever this limit (bio_split_rw's fast path; blk_queue_max_segment_size
	// raises it to PAGE_SIZE), so it only documents the queue. 0 = 65536
	// (BLK_MAX_SEGMENT_SIZE).
	MaxSegmentSize int64
	// LogicalBlockSize and PhysicalBlockSize are in bytes, powers of two in
	// [512, 65536]; 0 = 512.
	LogicalBlockSize, PhysicalBlockSize int
}

// withDefaults fills the zero fields; maxSectorsKB is LUNConfig.MaxSectorsKB.
func (l QueueLimits) withDefaults(maxSectorsKB int) QueueLimits {
	if l.MaxSectors == 0 {
		l.MaxSectors = maxSectorsKB * 2
	}
	if l.MaxSegmentSize == 0 {
		l.MaxSegmentSize = 65536
	}
	if l.LogicalBlockSize == 0 {
		l.LogicalBlockSize = sectorSize
	}
	if l.PhysicalBlockSize == 0 {
		l.PhysicalBlockSize = l.LogicalBlockSize
	}
	return l
}

// Validate returns an error naming the first limit out of range, after the zero
// fields take their defaults (maxSectorsKB is LUNConfig.MaxSectorsKB, 0 = 1280).
func (l QueueLimits) Validate(maxSectorsKB int) error {
	if maxSectorsKB == 0 {
		maxSectorsKB = 1280
	}
	return l.withDefaults(maxSectorsKB).validate()
}

// validate returns an error naming the first field out of range.
func (l QueueLimits) validate() error {
	pow2 := func(n int) bool { return n >= 512 && n <= 65536 && n&(n-1) == 0 }
	switch {
	case l.MaxSectors < pageSize/sectorSize || l.MaxSectors > 1<<31-1:
		return fmt.Errorf("max_sectors %d out of range [%d, %d]", l.MaxSectors, pageSize/sectorSize, 1<<31-1)
	case l.MaxHwSectors < 0 || l.MaxHwSectors > 0 && l.MaxSectors > l.MaxHwSectors:
		return fmt.Errorf("max_sectors %d above max_hw_sectors %d", l.MaxSectors, l.MaxHwSectors)
	case l.MaxSegments < 0 || l.MaxSegments > 65535:
		return fmt.Errorf("max_segments %d out of range [0 (= no limit), 65535]", l.MaxSegments)
	case l.MaxSegmentSize < pageSize:
		return fmt.Errorf("max_segment_size %d below PAGE_SIZE %d", l.MaxSegmentSize, pageSize)
	case !pow2(l.LogicalBlockSize) || !pow2(l.PhysicalBlockSize) || l.PhysicalBlockSize < l.LogicalBlockSize:
		return fmt.Errorf("logical/physical block size %d/%d: want powers of two in [512, 65536], physical >= logical", l.LogicalBlockSize, l.PhysicalBlockSize)
	}
	return nil
}

// mergeBytes is the largest request merging may build: max_sectors, and max_segments
// page-sized segments (ll_back_merge_fn's sector and ll_new_hw_segment's segment
// checks, with one segment per page of a page-aligned buffer).
func (l *QueueLimits) mergeBytes() int64 {
	b := int64(l.MaxSectors) * sectorSize
	if l.MaxSegments > 0 {
		b = min(b, int64(l.MaxSegments)*pageSize)
	}
	return b
}

// maxIOBytes is get_max_io_size for a bio starting at byte off: max_sectors, ending
// on a physical-block boundary when that leaves something, else on a logical one.
func (l *QueueLimits) maxIOBytes(off int64) int64 {
	pbs := int64(l.PhysicalBlockSize / sectorSize)
	lbs := int64(l.LogicalBlockSize / sectorSize)
	maxSec := int64(l.MaxSectors)
	start := (off / sectorSize) & (pbs - 1)
	if end := (start + maxSec) &^ (pbs - 1); end > start {
		return (end - start) * sectorSize
	}
	return (maxSec &^ (lbs - 1)) * sectorSize
}

// splitLen is bio_split_rw for the bio [off, end) of the I/O that starts at ioStart
// (the buffer's page boundaries are at ioStart + k·4 KiB): the length of the front
// part that fits the limits, end − off when no split is needed.
func (l *QueueLimits) splitLen(ioStart, off, end int64) int64 {
	maxBytes := l.maxIOBytes(off)
	maxSegs := l.MaxSegments
	if maxSegs == 0 {
		maxSegs = 1 << 30
	}
	var bytes int64
	nsegs := 0
	for p := off; p < end; {
		pageEnd := ioStart + ((p-ioStart)/pageSize+1)*pageSize
		bv := min(pageEnd, end) - p // one bvec: the rest of this page
		if nsegs < maxSegs && bytes+bv <= maxBytes {
			nsegs++
			bytes += bv
			p += bv
			continue
		}
		// bvec_split_segs: take what still fits of this bvec, then split
		if nsegs < maxSegs {
			bytes += min(bv, maxBytes-bytes)
		}
		return max(bytes&^int64(l.LogicalBlockSize-1), int64(l.LogicalBlockSize))
	}
	return end - off
}

// nextPart returns the length of the next part of the I/O b from byte off: the rest
// of its direct-I/O bio (1 MiB from the I/O's start), cut to the queue limits.
func (q *Queue) nextPart(b *Bio, off int64) int64 {
	dioEnd := min(b.Offset+((off-b.Offset)/dioBioBytes+1)*dioBioBytes, b.end())
	return q.limits.splitLen(b.Offset, off, dioEnd)
}

// needsSplit reports whether the I/O b becomes more than one request's bio.
func (q *Queue) needsSplit(b *Bio) bool {
	return b.Length > q.splitFree && (b.Length > dioBioBytes || q.nextPart(b, b.Offset) < b.Length)
}

// splitState is the progress of one split I/O (the parent bio).
type splitState struct {
	next    int64 // first byte not yet submitted
	pending int   // parts submitted and not completed
	done    bool  // every part submitted
	err     error
	first   *Bio // parts not completed, oldest first (hang reports)
}

// splitEnd is the bi_end_io of the parts (bio_chain's parent accounting).
type splitEnd struct{ q *Queue }

// EndBio completes one part; the last one completes the I/O.
func (e *splitEnd) EndBio(c *Bio, now sim.Time, err error) {
	p := c.parent
	sp := p.split
	p.IssuedAt = max(p.IssuedAt, c.IssuedAt)
	if c.DispatchListAt > 0 && (p.DispatchListAt == 0 || c.DispatchListAt < p.DispatchListAt) {
		p.DispatchListAt = c.DispatchListAt
	}
	if err != nil && sp.err == nil {
		sp.err = err
	}
	sp.unlink(c)
	sp.pending--
	e.q.freePart(c)
	if sp.pending == 0 && sp.done {
		e.q.finishSplit(p, now)
	}
}

// unlink removes c from the list of parts in flight.
func (sp *splitState) unlink(c *Bio) {
	if sp.first == c {
		sp.first = c.nextPart
	} else {
		for x := sp.first; x != nil; x = x.nextPart {
			if x.nextPart == c {
				x.nextPart = c.nextPart
				break
			}
		}
	}
	c.nextPart = nil
}

// finishSplit ends the parent I/O.
func (q *Queue) finishSplit(p *Bio, now sim.Time) {
	sp := p.split
	p.split = nil
	err := sp.err
	*sp = splitState{}
	q.splitPool = append(q.splitPool, sp)
	p.End.EndBio(p, now, err)
}

// allocPart takes a part bio from the queue's pool.
func (q *Queue) allocPart() *Bio {
	if n := len(q.partPool); n > 0 {
		c := q.partPool[n-1]
		q.partPool = q.partPool[:n-1]
		return c
	}
	return &Bio{End: &q.partEnd}
}

func (q *Queue) freePart(c *Bio) {
	*c = Bio{End: &q.partEnd}
	q.partPool = append(q.partPool, c)
}

// submitSplit is SubmitBioPlug for an I/O that needs more than one bio: -EAGAIN for
// REQ_NOWAIT, else its parts in order until one sleeps.
func (q *Queue) submitSplit(b *Bio, cpu int, nowait bool, tw *TagWaiter, plug *Plug) SubmitResult {
	if nowait {
		q.stats.SplitNowait++
		return WouldBlock
	}
	q.stats.SplitIOs++
	var sp *splitState
	if n := len(q.splitPool); n > 0 {
		sp, q.splitPool = q.splitPool[n-1], q.splitPool[:n-1]
	} else {
		sp = &splitState{}
	}
	sp.next = b.Offset
	b.split = sp
	return q.continueSplit(b, cpu, tw, plug)
}

// continueSplit submits the remaining parts of p from cpu (submit_bio_noacct's loop
// over current->bio_list), stopping when one sleeps in blk_mq_get_tag (tw's Fire
// resumes it).
func (q *Queue) continueSplit(p *Bio, cpu int, tw *TagWaiter, plug *Plug) SubmitResult {
	sp := p.split
	for sp.next < p.end() {
		n := q.nextPart(p, sp.next)
		c := q.allocPart()
		c.Op, c.Offset, c.Length, c.Sync, c.parent = p.Op, sp.next, n, p.Sync, p
		sp.next += n
		sp.pending++
		if sp.first == nil {
			sp.first = c
		} else {
			x := sp.first
			for x.nextPart != nil {
				x = x.nextPart
			}
			x.nextPart = c
		}
		q.stats.SplitParts++
		if q.submitOne(c, cpu, false, tw, plug) == Sleeping {
			return Sleeping
		}
	}
	sp.done = true
	p.AllocatedAt = q.eng.Now()
	if sp.pending == 0 {
		q.finishSplit(p, q.eng.Now())
	}
	return Queued
}

// splitWait is the part of b that a hang report should describe: the oldest part in
// flight of a split I/O, b itself otherwise.
func splitWait(b *Bio) *Bio {
	if b.split != nil && b.split.first != nil {
		return b.split.first
	}
	return b
}
