package legacy

import (
	"fmt"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// WritebackParams describe a flusher thread writing back one large file
// sequentially (fs/fs-writeback.c wb_writeback → the filesystem's writepages →
// mpage-style bios), with dirty data always available.
type WritebackParams struct {
	// Offset is the file's first byte on the disk (bytes, >= 0, multiple of 512).
	Offset int64
	// FileBytes is the file size (bytes); writeback wraps to Offset after it.
	// Default 8 GiB.
	FileBytes int64
	// PageBytes is the page size (bytes): 4096 (x86) or 65536 (ppc64 kernels).
	// Default 4096. Pages are taken as physically discontiguous: one segment each.
	PageBytes int64
	// ChunkBytes is what one writeback pass submits under one plug
	// (MAX_WRITEBACK_PAGES = 1024 pages). Default 1024 × PageBytes.
	ChunkBytes int64
}

func (p WritebackParams) withDefaults() WritebackParams {
	if p.FileBytes == 0 {
		p.FileBytes = 8 << 30
	}
	if p.PageBytes == 0 {
		p.PageBytes = 4096
	}
	if p.ChunkBytes == 0 {
		p.ChunkBytes = 1024 * p.PageBytes
	}
	return p
}

// BioPages models bio_get_nr_vecs of v3.10: a bio holds at most
// min(max_sectors / page, max_segments, BIO_MAX_PAGES = 256) pages.
func BioPages(cfg Config, pageBytes int64) int {
	return int(min(cfg.MaxSectorsBytes/pageBytes, int64(cfg.MaxSegments), 256))
}

// Writeback is the flusher thread of WritebackParams on one queue. It counts the
// bytes whose bios completed.
type Writeback struct {
	q       *Queue
	p       WritebackParams
	bioLen  int64
	pages   int
	pos     int64 // next byte of the file to submit (relative)
	chunk   int64 // bytes submitted in the current pass
	plug    *Plug
	pending *Bio
	free    []*Bio
	// Bytes counts completed writeback bytes.
	Bytes int64
}

// NewWriteback returns a flusher for q; call Start to begin. Zero fields take the
// defaults; errors name the bad field and its range.
func NewWriteback(q *Queue, p WritebackParams) (*Writeback, error) {
	p = p.withDefaults()
	switch {
	case p.Offset < 0 || p.Offset%512 != 0:
		return nil, fmt.Errorf("legacy: writeback Offset %d out of range [0, inf) (multiple of 512)", p.Offset)
	case p.PageBytes < 512 || p.PageBytes%512 != 0 || p.PageBytes > q.cfg.MaxSectorsBytes:
		return nil, fmt.Errorf("legacy: writeback PageBytes %d out of range [512, %d] (multiple of 512)", p.PageBytes, q.cfg.MaxSectorsBytes)
	case p.FileBytes < p.PageBytes:
		return nil, fmt.Errorf("legacy: writeback FileBytes %d out of range [PageBytes %d, inf)", p.FileBytes, p.PageBytes)
	case p.ChunkBytes < p.PageBytes:
		return nil, fmt.Errorf("legacy: writeback ChunkBytes %d out of range [PageBytes %d, inf)", p.ChunkBytes, p.PageBytes)
	}
	w := &Writeback{q: q, p: p}
	w.pages = BioPages(q.cfg, p.PageBytes)
	w.bioLen = int64(w.pages) * p.PageBytes
	return w, nil
}

// BioBytes returns the size of the writeback bios (bytes).
func (w *Writeback) BioBytes() int64 { return w.bioLen }

// Start schedules the flusher to run at the engine's current time.
func (w *Writeback) Start() { w.q.eng.At(w.q.eng.Now(), w) }

// Fire runs the flusher until it sleeps for a request (sim.Handler).
func (w *Writeback) Fire(sim.Time) {
	if w.plug == nil {
		w.plug = w.q.StartPlug()
	}
	for {
		b := w.pending
		if b == nil {
			b = w.nextBio()
		}
		if w.q.SubmitBio(b, w.plug) {
			w.pending = b
			w.q.WaitRequest(false, w)
			return
		}
		w.pending = nil
		if w.chunk >= w.p.ChunkBytes {
			w.plug.Finish()
			w.chunk = 0
		}
	}
}

func (w *Writeback) nextBio() *Bio {
	var b *Bio
	if n := len(w.free); n > 0 {
		b = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		b = &Bio{End: w}
	}
	n := min(w.bioLen, w.p.ChunkBytes-w.chunk, w.p.FileBytes-w.pos)
	*b = Bio{Op: device.OpWrite, Offset: w.p.Offset + w.pos, Length: n,
		Segments: int((n + w.p.PageBytes - 1) / w.p.PageBytes), End: w}
	w.pos += n
	if w.pos >= w.p.FileBytes {
		w.pos = 0
	}
	w.chunk += n
	return b
}

// EndIO counts the written bytes (BioEndIO).
func (w *Writeback) EndIO(b *Bio, _ sim.Time) {
	w.Bytes += b.Length
	w.free = append(w.free, b)
}

// PostmarkParams describe a postmark-like small-file workload: one thread doing
// transactions of IOsPerTxn small synchronous I/Os at random places of a region
// (file reads that miss the cache, O_SYNC appends, metadata and journal writes),
// each waiting for the previous one.
type PostmarkParams struct {
	// RegionOffset and RegionBytes place the file set on the disk (bytes).
	RegionOffset, RegionBytes int64
	// IOsPerTxn is the number of synchronous I/Os per transaction, in [1, 64];
	// default 4.
	IOsPerTxn int
	// ReadPercent is the share of reads among the I/Os, in [0, 100]; default 50.
	ReadPercent int
	// IOBytes is the size of each I/O (bytes, multiple of 512); default 4096.
	IOBytes int64
	// ThinkTime is CPU time between I/Os (ns, >= 0).
	ThinkTime sim.Time
	// Seed seeds the offsets and directions.
	Seed uint64
}

// Postmark is the running workload of PostmarkParams.
type Postmark struct {
	q    *Queue
	p    PostmarkParams
	rnd  *sim.Rand
	bio  Bio
	left int
	// Txns counts completed transactions; IOs completed I/Os.
	Txns, IOs uint64
	// LatencyNs sums the submit-to-completion time (ns) of the completed I/Os.
	LatencyNs sim.Time
	issued    sim.Time
}

// NewPostmark returns the workload on q; call Start to begin. Zero fields take the
// defaults; errors name the bad field and its range.
func NewPostmark(q *Queue, p PostmarkParams) (*Postmark, error) {
	if p.IOsPerTxn == 0 {
		p.IOsPerTxn = 4
	}
	if p.ReadPercent == 0 {
		p.ReadPercent = 50
	}
	if p.IOBytes == 0 {
		p.IOBytes = 4096
	}
	switch {
	case p.IOsPerTxn < 1 || p.IOsPerTxn > 64:
		return nil, fmt.Errorf("legacy: postmark IOsPerTxn %d out of range [1, 64]", p.IOsPerTxn)
	case p.ReadPercent < 0 || p.ReadPercent > 100:
		return nil, fmt.Errorf("legacy: postmark ReadPercent %d out of range [0, 100]", p.ReadPercent)
	case p.IOBytes < 512 || p.IOBytes%512 != 0 || p.IOBytes > q.cfg.MaxSectorsBytes:
		return nil, fmt.Errorf("legacy: postmark IOBytes %d out of range [512, %d] (multiple of 512)", p.IOBytes, q.cfg.MaxSectorsBytes)
	case p.RegionOffset < 0 || p.RegionOffset%512 != 0:
		return nil, fmt.Errorf("legacy: postmark RegionOffset %d out of range [0, inf) (multiple of 512)", p.RegionOffset)
	case p.RegionBytes < p.IOBytes:
		return nil, fmt.Errorf("legacy: postmark RegionBytes %d out of range [IOBytes %d, inf)", p.RegionBytes, p.IOBytes)
	case p.ThinkTime < 0:
		return nil, fmt.Errorf("legacy: postmark ThinkTime %v out of range [0, inf)", p.ThinkTime)
	}
	return &Postmark{q: q, p: p, rnd: sim.NewRand(p.Seed)}, nil
}

// Start schedules the first transaction at the engine's current time.
func (m *Postmark) Start() { m.q.eng.At(m.q.eng.Now(), m) }

// Fire issues the next I/O (sim.Handler).
func (m *Postmark) Fire(sim.Time) {
	if m.left == 0 {
		m.left = m.p.IOsPerTxn
	}
	op := device.OpWrite
	if m.rnd.IntN(100) < m.p.ReadPercent {
		op = device.OpRead
	}
	slots := m.p.RegionBytes / m.p.IOBytes
	m.bio = Bio{Op: op, Sync: true, Offset: m.p.RegionOffset + m.rnd.Int64N(slots)*m.p.IOBytes,
		Length: m.p.IOBytes, Segments: int(max(1, m.p.IOBytes/4096)), End: m}
	m.issued = m.q.eng.Now()
	if m.q.SubmitBio(&m.bio, nil) {
		m.q.WaitRequest(true, m)
	}
}

// EndIO completes one I/O and schedules the next after ThinkTime (BioEndIO).
func (m *Postmark) EndIO(_ *Bio, now sim.Time) {
	m.IOs++
	m.LatencyNs += now - m.issued
	m.left--
	if m.left == 0 {
		m.Txns++
	}
	m.q.eng.At(now+m.p.ThinkTime, m)
}
