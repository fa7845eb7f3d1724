package legacy

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/tagset"
)

// Kernel constants of the v3.10 legacy path.
const (
	// BlkdevMaxRq is the default nr_requests (BLKDEV_MAX_RQ), per sync/async pool.
	BlkdevMaxRq = 128
	// BlkDefMaxSectorsBytes is the default max_sectors_kb in bytes: BLK_DEF_MAX_SECTORS
	// = 1024 sectors (512 KiB) in v3.10, used when the HBA allows more.
	BlkDefMaxSectorsBytes = 512 << 10
	// BlkMaxSegments is the default max_segments (BLK_MAX_SEGMENTS).
	BlkMaxSegments = 128
	// BlkMaxRequestCount is the plug list length that forces a flush before a new
	// request is added (BLK_MAX_REQUEST_COUNT, 16 before v5.16).
	BlkMaxRequestCount = 16
	// ScsiQueueDelay is the delayed queue run after a refused start with nothing in
	// flight (SCSI_QUEUE_DELAY, 3 ms).
	ScsiQueueDelay = 3 * sim.Millisecond
)

// Config configures a legacy request queue. Zero values take the defaults noted.
type Config struct {
	// Elevator is the I/O scheduler; nil means deadline with default parameters.
	Elevator Elevator
	// QueueDepth is the legacy tag depth (blk_queue_init_tags max_depth) and the
	// SCSI device queue_depth, in [1, tagset.LegacyMaxDepth]. Required.
	QueueDepth int
	// PreA6b3f7614ca6 selects the async tag limit before commit a6b3f7614ca6
	// (v3.11): max(depth-2, 1). The zero value is the v3.11+ rule (3 tags → 2).
	PreA6b3f7614ca6 bool
	// NrRequests is the request pool size per sync/async class (q->nr_requests),
	// in [1, 1<<20]; default BlkdevMaxRq (128).
	NrRequests int
	// MaxSectorsBytes is max_sectors_kb × 1024: the largest request (bytes), a
	// multiple of 512 in [4096, 1<<30]; default BlkDefMaxSectorsBytes (512 KiB).
	MaxSectorsBytes int64
	// MaxSegments is max_segments, in [1, 65536]; default BlkMaxSegments (128).
	MaxSegments int
	// NoMerges disables all merging (nomerges=2).
	NoMerges bool
	// IssueLatency is the time (ns, >= 0) from request_fn starting a request to
	// the command reaching the device (driver, adapter firmware, bus).
	IssueLatency sim.Time
	// CompletionLatency is the time (ns, >= 0) from the device finishing a command
	// to the block layer ending the request and rerunning request_fn (interrupt,
	// softirq, adapter firmware).
	CompletionLatency sim.Time
	// CPU, when non-nil, is the machine whose CPUs run the queue's code: each step
	// charges Costs on the current CPU, and a completion waits for its CPU to finish
	// earlier work. nil charges nothing and completes at once (the package's
	// original model).
	CPU CPU
	// Costs are the step costs charged through CPU (ignored without CPU).
	Costs Costs
	// IRQCPU is the CPU taking the device's completion interrupt (the single
	// completion vector of a legacy host), or IRQOnIssueCPU; used with CPU only.
	IRQCPU int
}

func (c Config) validate() (Config, error) {
	if c.NrRequests == 0 {
		c.NrRequests = BlkdevMaxRq
	}
	if c.MaxSectorsBytes == 0 {
		c.MaxSectorsBytes = BlkDefMaxSectorsBytes
	}
	if c.MaxSegments == 0 {
		c.MaxSegments = BlkMaxSegments
	}
	switch {
	case c.QueueDepth < 1 || c.QueueDepth > tagset.LegacyMaxDepth:
		return c, fmt.Errorf("legacy: QueueDepth %d out of range [1, %d]", c.QueueDepth, tagset.LegacyMaxDepth)
	case c.NrRequests < 1 || c.NrRequests > 1<<20:
		return c, fmt.Errorf("legacy: NrRequests %d out of range [1, %d]", c.NrRequests, 1<<20)
	case c.MaxSectorsBytes < 4096 || c.MaxSectorsBytes > 1<<30 || c.MaxSectorsBytes%512 != 0:
		return c, fmt.Errorf("legacy: MaxSectorsBytes %d out of range [4096, %d] (multiple of 512)", c.MaxSectorsBytes, 1<<30)
	case c.MaxSegments < 1 || c.MaxSegments > 65536:
		return c, fmt.Errorf("legacy: MaxSegments %d out of range [1, 65536]", c.MaxSegments)
	case c.IssueLatency < 0:
		return c, fmt.Errorf("legacy: IssueLatency %v out of range [0, inf)", c.IssueLatency)
	case c.CompletionLatency < 0:
		return c, fmt.Errorf("legacy: CompletionLatency %v out of range [0, inf)", c.CompletionLatency)
	case !c.Costs.valid():
		return c, fmt.Errorf("legacy: Costs %+v: want every cost >= 0", c.Costs)
	case c.IRQCPU < IRQOnIssueCPU:
		return c, fmt.Errorf("legacy: IRQCPU %d out of range [%d (issue CPU), nr_cpus)", c.IRQCPU, IRQOnIssueCPU)
	}
	return c, nil
}

// Queue is one legacy request queue (struct request_queue with a request_fn
// driver) in front of one device. See the package doc for the invariant.
type Queue struct {
	cfg  Config
	eng  *sim.Engine
	dev  device.Device
	elv  Elevator
	tags *tagset.LegacyTags

	hash      map[int64]*Request // elevator requests by end byte (the rqhash)
	lastMerge *Request           // q->last_merge
	dispatch  []*Request         // q->queue_head
	busy      int                // sdev->device_busy
	count     [2]int             // rl->count[BLK_RW_ASYNC/SYNC]
	waiters   [2][]sim.Handler   // rl->wait[]
	seq       uint64
	delayRun  sim.EventID
	delayCPU  int // the CPU that armed delayRun (kblockd work queued there)
	cur       int // the CPU running the current path (with Config.CPU)
	free      []*Request

	st      Stats
	stSince sim.Time
	stLast  sim.Time

	issueEvs, endEvs []*rqEvent
	runEv            runEvent
}

// New builds a queue on eng in front of dev. It returns an error naming the field
// for bad configuration, or when eng or dev is nil.
func New(eng *sim.Engine, dev device.Device, cfg Config) (*Queue, error) {
	if eng == nil || dev == nil {
		return nil, fmt.Errorf("legacy: New needs an engine and a device")
	}
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if cfg.Elevator == nil {
		cfg.Elevator, _ = NewDeadline(DefaultDeadlineParams())
	}
	tags, err := tagset.NewLegacyTags(tagset.LegacyConfig{MaxDepth: cfg.QueueDepth, PreA6b3f7614ca6: cfg.PreA6b3f7614ca6})
	if err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, eng: eng, dev: dev, elv: cfg.Elevator, tags: tags, hash: map[int64]*Request{}}
	q.runEv.q = q
	q.stSince, q.stLast = eng.Now(), eng.Now()
	return q, nil
}

// Config returns the queue's configuration with defaults filled in.
func (q *Queue) Config() Config { return q.cfg }

// Elevator returns the queue's scheduler.
func (q *Queue) Elevator() Elevator { return q.elv }

// Tags returns the queue's legacy tag map (read it; do not start or end tags).
func (q *Queue) Tags() *tagset.LegacyTags { return q.tags }

// DispatchList returns a copy of q->queue_head: requests taken from the
// elevator but not yet started, head first.
func (q *Queue) DispatchList() []*Request { return append([]*Request(nil), q.dispatch...) }

// Allocated returns the requests allocated from the pool of the given class
// (rl->count[sync]).
func (q *Queue) Allocated(sync bool) int { return q.count[idx(sync)] }

func idx(sync bool) int {
	if sync {
		return 1
	}
	return 0
}

// mayAllocate models the get_request limit: a request of the class may be
// allocated while fewer than nr_requests are.
func (q *Queue) mayAllocate(sync bool) bool { return q.count[idx(sync)] < q.cfg.NrRequests }

// WaitRequest registers h to fire (once, as an event at the current time) when a
// request of the class is freed and the pool is below nr_requests again: the
// sleep in get_request, woken by freed_request. Call it after SubmitBio reported
// that it blocked.
func (q *Queue) WaitRequest(sync bool, h sim.Handler) {
	q.waiters[idx(sync)] = append(q.waiters[idx(sync)], h)
}

func (q *Queue) allocRequest(b *Bio) *Request {
	var rq *Request
	if n := len(q.free); n > 0 {
		rq = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		rq = &Request{q: q}
	}
	q.seq++
	rq.op, rq.sync, rq.offset, rq.length, rq.segments = b.Op, b.Sync || b.Op == device.OpRead, b.Offset, b.Length, b.segments()
	rq.bios = append(rq.bios[:0], b)
	rq.tag, rq.where, rq.seq, rq.fifoTime, rq.plugged = -1, inNowhere, q.seq, 0, nil
	rq.cpu, rq.issueCPU = b.CPU, b.CPU
	q.count[idx(rq.sync)]++
	return rq
}

// freeRequest models __blk_put_request / freed_request: the pool count drops and
// one sleeper of the class is woken when the pool is below nr_requests.
func (q *Queue) freeRequest(rq *Request) {
	k := idx(rq.sync)
	q.count[k]--
	if q.count[k]+1 <= q.cfg.NrRequests && len(q.waiters[k]) > 0 {
		h := q.waiters[k][0]
		copy(q.waiters[k], q.waiters[k][1:])
		q.waiters[k] = q.waiters[k][:len(q.waiters[k])-1]
		q.eng.At(q.eng.Now(), h)
	}
	rq.bios = rq.bios[:0]
	rq.where = inNowhere
	q.free = append(q.free, rq)
}

func (q *Queue) checkBio(b *Bio) {
	if b == nil || b.End == nil || b.Length <= 0 || b.Offset < 0 || b.Offset%512 != 0 || b.Length%512 != 0 {
		panic(fmt.Sprintf("legacy: SubmitBio of a malformed bio %+v (need End, Offset >= 0 and Length > 0, multiples of 512)", b))
	}
	if b.Length > q.cfg.MaxSectorsBytes || b.segments() > q.cfg.MaxSegments {
		panic(fmt.Sprintf("legacy: SubmitBio of a bio of %d bytes, %d segments above the queue limits (%d bytes, %d segments): split it first",
			b.Length, b.segments(), q.cfg.MaxSectorsBytes, q.cfg.MaxSegments))
	}
}
