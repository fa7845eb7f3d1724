package legacy

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// BioEndIO receives the completion of a Bio (the bi_end_io callback of
// include/linux/bio.h). Implement it on a long-lived struct.
type BioEndIO interface {
	// EndIO is called once per submitted bio at the virtual time now (ns) when
	// the request carrying it completes.
	EndIO(b *Bio, now sim.Time)
}

// Bio is one block I/O (struct bio): a contiguous byte range of the disk in one
// direction. The submitter owns it and must not modify it until EndIO.
type Bio struct {
	Op     device.Op // read or write (bio_data_dir)
	Sync   bool      // REQ_SYNC: reads, O_SYNC/fsync writes; false for writeback
	Offset int64     // bytes from the start of the disk, >= 0, multiple of 512
	Length int64     // bytes, > 0, multiple of 512
	// Segments is the number of physical segments (bi_phys_segments): one per
	// page when pages are not physically contiguous. 0 is taken as 1.
	Segments int
	End      BioEndIO // called on completion; must not be nil
	Priv     any      // submitter's data; never touched here
	// CPU is the submitting task's CPU (used with Config.CPU): the steps of the
	// submission are charged there, and it becomes the request's rq->cpu.
	CPU int
	// IssuedAt is set by the queue to the time (ns) request_fn started the request
	// carrying the bio.
	IssuedAt sim.Time
}

func (b *Bio) end() int64 { return b.Offset + b.Length }

func (b *Bio) segments() int { return max(b.Segments, 1) }

// Request is one queued request (struct request): bios merged into one contiguous
// range of one direction, issued to the device as one command. Requests are
// allocated from the queue's pool and never touched by callers except through the
// read-only accessors.
type Request struct {
	op       device.Op
	sync     bool
	offset   int64
	length   int64
	segments int
	bios     []*Bio
	fifoTime sim.Time // deadline expiry (ns)
	tag      int      // legacy tag while started, -1 otherwise
	where    place
	cmd      device.Command
	q        *Queue
	plugged  *Plug
	seq      uint64   // allocation order, for deterministic tie-breaks
	started  sim.Time // when request_fn started it (ns)
	cpu      int      // rq->cpu: the CPU that allocated it (rq_affinity target)
	issueCPU int      // the CPU whose request_fn started it
	compCPU  int      // the CPU running its completion (with Config.CPU)
}

type place uint8

const (
	inNowhere place = iota
	inPlug
	inElevator
	inDispatch
	inDevice
)

// Op returns the request's direction.
func (rq *Request) Op() device.Op { return rq.op }

// Sync reports whether the request is synchronous (rq_is_sync): reads and
// REQ_SYNC writes.
func (rq *Request) Sync() bool { return rq.sync }

// Offset returns the first byte (blk_rq_pos × 512).
func (rq *Request) Offset() int64 { return rq.offset }

// Length returns the size in bytes (blk_rq_bytes).
func (rq *Request) Length() int64 { return rq.length }

// Segments returns the number of physical segments (nr_phys_segments).
func (rq *Request) Segments() int { return rq.segments }

// Tag returns the legacy tag while the request is in the device, -1 otherwise.
func (rq *Request) Tag() int { return rq.tag }

// FifoTime returns the deadline scheduler's expiry time (ns) set on insertion.
func (rq *Request) FifoTime() sim.Time { return rq.fifoTime }

func (rq *Request) end() int64 { return rq.offset + rq.length }

// String describes the request for test failures.
func (rq *Request) String() string {
	s := "A"
	if rq.sync {
		s = "S"
	}
	return fmt.Sprintf("%s%s@%d+%d", rq.op, s, rq.offset, rq.length)
}
