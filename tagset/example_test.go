package tagset_test

import (
	"fmt"

	"github.com/blkmq/blkmq/tagset"
)

// A host-wide tag set of depth 32 used by two LUNs (request queues). Once both
// have allocated, each may hold at most its fair share, max(ceil(32/2), 4) = 16
// driver tags.
func Example_fairShare() {
	set, err := tagset.New(tagset.Config{NrHwQueues: 4, QueueDepth: 32, HostTagset: true})
	if err != nil {
		panic(err)
	}
	lun0, _ := set.AddQueue(tagset.QueueConfig{})
	lun1, _ := set.AddQueue(tagset.QueueConfig{})
	fmt.Println("shared:", set.QueueShared(), "nr_requests:", lun0.NrRequests())

	lun1.Hctx(0).GetDriverTag(0, false) // lun1 becomes an active user
	got := 0
	for lun0.Hctx(got%4).GetDriverTag(0, false) >= 0 {
		got++
	}
	fmt.Println("active queues:", set.Tags(0).ActiveQueues(), "lun0 holds:", got)
	// Output:
	// shared: true nr_requests: 32
	// active queues: 2 lun0 holds: 16
}

// Legacy blk-tag: with three tags, asynchronous writeback may use two of them
// since commit a6b3f7614ca6, one before it.
func ExampleLegacyAsyncLimit() {
	fmt.Println(tagset.LegacyAsyncLimit(3, false), tagset.LegacyAsyncLimit(3, true))
	// Output: 2 1
}
