package tagset

import (
	"fmt"
	"math/bits"
)

// LegacyMaxDepth is the largest tag depth accepted by NewLegacyTags. The legacy
// block layer had no fixed limit; 4096 is far above any adapter it served.
const LegacyMaxDepth = 4096

// LegacyConfig configures a pre-blk-mq tag map (block/blk-tag.c, struct
// blk_queue_tag), used by the legacy request_fn path until ~v4.20/v5.0.
type LegacyConfig struct {
	// MaxDepth is the number of tags (bqt->max_depth), in [1, LegacyMaxDepth].
	MaxDepth int
	// PreA6b3f7614ca6 selects the async limit used before commit a6b3f7614ca6
	// (Jan Kara, v3.11, "block: Reserve only one queue tag for sync IO if only 3
	// tags are available"): max(depth-2, 1). The zero value is the v3.11+ rule.
	PreA6b3f7614ca6 bool
}

// LegacyAsyncLimit returns the number of tags asynchronous requests may use on a
// legacy tag map of maxDepth tags (the max_depth adjustment in
// block/blk-tag.c:blk_queue_start_tag). Synchronous requests may use all maxDepth.
//
// Rule since a6b3f7614ca6 (v3.11): depth 1 → 1, 2 → 1, 3 → 2, otherwise depth−2.
// Rule before (preA6b3f7614ca6 = true): depth 1 → 1, otherwise max(depth−2, 1).
// maxDepth < 1 returns 0.
func LegacyAsyncLimit(maxDepth int, preA6b3f7614ca6 bool) int {
	if maxDepth < 1 {
		return 0
	}
	if maxDepth == 1 {
		return 1
	}
	if preA6b3f7614ca6 {
		return max(maxDepth-2, 1)
	}
	switch maxDepth {
	case 2:
		return 1
	case 3:
		return 2
	default:
		return maxDepth - 2
	}
}

// LegacyTags is a legacy tag map (struct blk_queue_tag) together with the
// queue's in-flight counters that blk_queue_start_tag consults. It always hands
// out the lowest free tag, so asynchronous requests are confined to the
// low-numbered tags [0, LegacyAsyncLimit): a synchronous request holding tag 0
// can block asynchronous ones even while a higher tag is free.
//
// A LegacyTags is not safe for concurrent use; the legacy path ran under the
// queue lock.
type LegacyTags struct {
	cfg      LegacyConfig
	words    []uint64
	inFlight [2]int // [0] sync, [1] async (q->in_flight[BLK_RW_SYNC/ASYNC])
	owner    []int8 // 0 free, 1 sync, 2 async: to catch misuse in EndTag
}

// NewLegacyTags models blk_queue_init_tags. It returns an error naming the field
// when MaxDepth is outside [1, LegacyMaxDepth].
func NewLegacyTags(cfg LegacyConfig) (*LegacyTags, error) {
	if cfg.MaxDepth < 1 || cfg.MaxDepth > LegacyMaxDepth {
		return nil, fmt.Errorf("tagset: legacy max_depth %d out of range [1, %d]", cfg.MaxDepth, LegacyMaxDepth)
	}
	return &LegacyTags{
		cfg:   cfg,
		words: make([]uint64, (cfg.MaxDepth+63)/64),
		owner: make([]int8, cfg.MaxDepth),
	}, nil
}

// MaxDepth returns the number of tags.
func (t *LegacyTags) MaxDepth() int { return t.cfg.MaxDepth }

// InFlight returns the number of started synchronous and asynchronous requests.
func (t *LegacyTags) InFlight() (sync, async int) { return t.inFlight[0], t.inFlight[1] }

// StartTag models blk_queue_start_tag for a request of the given kind. For an
// asynchronous request on a map deeper than one tag, the limit is
// LegacyAsyncLimit and the request is refused when the async in-flight count is
// strictly greater than ('>', not '>=') that limit. The tag is the lowest free
// bit below the limit; none free means refusal (the request stays queued and the
// driver retries on its next request_fn call). On success the in-flight counter
// of the kind is incremented (blk_start_request) and the tag returned with
// ok = true.
func (t *LegacyTags) StartTag(async bool) (tag int, ok bool) {
	limit := t.cfg.MaxDepth
	if async && limit > 1 {
		limit = LegacyAsyncLimit(limit, t.cfg.PreA6b3f7614ca6)
		if t.inFlight[1] > limit {
			return -1, false
		}
	}
	tag = t.lowestFree(limit)
	if tag < 0 {
		return -1, false
	}
	t.words[tag/64] |= 1 << (tag % 64)
	k := kindIndex(async)
	t.inFlight[k]++
	t.owner[tag] = int8(k + 1)
	return tag, true
}

// EndTag models blk_queue_end_tag plus the in-flight decrement of request
// completion. It panics if tag is not held, naming the tag.
func (t *LegacyTags) EndTag(tag int) {
	if tag < 0 || tag >= len(t.owner) || t.owner[tag] == 0 {
		panic(fmt.Sprintf("tagset: legacy EndTag of tag %d that is not held", tag))
	}
	t.words[tag/64] &^= 1 << (tag % 64)
	t.inFlight[t.owner[tag]-1]--
	t.owner[tag] = 0
}

func (t *LegacyTags) lowestFree(limit int) int {
	for i, w := range t.words {
		if ^w == 0 {
			continue
		}
		b := i*64 + bits.TrailingZeros64(^w)
		if b < limit {
			return b
		}
		return -1
	}
	return -1
}

func kindIndex(async bool) int {
	if async {
		return 1
	}
	return 0
}

// ResizeTags models blk_queue_resize_tags within the allocated map: max_depth
// becomes depth; tags already held above it stay held until EndTag. Errors name
// the field when depth is outside [1, allocated depth].
func (t *LegacyTags) ResizeTags(depth int) error {
	if depth < 1 || depth > len(t.owner) {
		return fmt.Errorf("tagset: legacy max_depth %d out of range [1, %d]", depth, len(t.owner))
	}
	t.cfg.MaxDepth = depth
	return nil
}
