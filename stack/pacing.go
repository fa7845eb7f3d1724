package stack

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// pacing is a job's rate and thinktime state: fio's rate_bps,
// rate_io_issue_bytes, rate_next_io_time and last_usec per direction
// (backend.c usec_for_io, io_u.c rate_ddir), its thinktime block counter
// (backend.c handle_thinktime) and rate_min's cycle (check_min_rate).
type pacing struct {
	bps       [2]uint64 // bytes/s per direction; 0 = not limited
	poisson   bool
	minBS     [2]int64
	epoch     sim.Time // the job's start: rate times count from it
	issuedB   [2]uint64
	lastUsec  [2]uint64 // poisson: the last issue time, µs after epoch
	nextAt    [2]sim.Time
	thinkNext int64 // thinktime: the block count at which the next think is due
	thinking  bool  // a think is due: quiesce, then sleep ThinkTime
	// quiesce: reap every I/O in flight before the job sleeps (io_u_quiesce)
	quiesce  bool
	sleeping bool
	wakeEv   wakeEvent
	// rate_min: bytes (and I/Os) completed at the start of the current cycle
	minBps     [2]uint64
	minIOPS    [2]uint64
	cycleStart sim.Time
	cycleBytes [2]uint64
	cycleIOs   [2]uint64
	doneBytes  [2]uint64
	doneIOs    [2]uint64
	issuedIOs  int64
	doneTotal  int64
	cycle      sim.Time
	ss         steadyState
}

// init sets the rates as fio's __setup_rate does: rate= in bytes/s, else
// rate_iops= × the direction's smallest block size.
func (p *pacing) init(s *fio.Spec) {
	for d := range 2 {
		p.minBS[d] = s.MinBlockSize(fio.Dir(d))
		switch {
		case s.Rate[d] > 0:
			p.bps[d] = uint64(s.Rate[d])
		case s.RateIOPS[d] > 0:
			p.bps[d] = uint64(s.RateIOPS[d]) * uint64(p.minBS[d])
		}
		switch {
		case s.RateMin[d] > 0:
			p.minBps[d] = uint64(s.RateMin[d])
		case s.RateIOPSMin[d] > 0:
			p.minIOPS[d] = uint64(s.RateIOPSMin[d])
		}
	}
	p.poisson = s.RatePoisson
	p.thinkNext = int64(max(s.ThinkTimeBlocks, 1))
	p.cycle = sim.Time(s.RateCycle)
	if p.cycle <= 0 {
		p.cycle = sim.Second
	}
}

// limited reports whether a rate applies to some direction.
func (p *pacing) limited() bool { return p.bps[0] > 0 || p.bps[1] > 0 }

// issued advances the rate clock of direction d by one I/O of n bytes
// (td_io_queue adds to rate_io_issue_bytes, then do_io sets
// rate_next_io_time = usec_for_io).
func (p *pacing) issued(d fio.Dir, n int64, rnd *sim.Rand) {
	p.issuedIOs++
	if p.bps[d] == 0 {
		return
	}
	p.issuedB[d] += uint64(n)
	if p.poisson {
		// usec_for_io, poisson: last_usec += (1e6 / iops) × -ln(U), with fio's
		// integer division and truncation
		iops := p.bps[d] / uint64(max(p.minBS[d], 1))
		if iops == 0 {
			iops = 1
		}
		u := 1 - rnd.Float64() // (0, 1]
		p.lastUsec[d] += uint64(float64(1000000/iops) * -math.Log(u))
		p.nextAt[d] = p.epoch + sim.Time(p.lastUsec[d])*sim.Microsecond
		return
	}
	// linear: the time at which the bytes issued so far are due, in µs as fio
	// computes it
	secs, rem := p.issuedB[d]/p.bps[d], p.issuedB[d]%p.bps[d]
	hi, lo := bits.Mul64(rem, 1000000)
	us, _ := bits.Div64(hi, lo, p.bps[d])
	p.nextAt[d] = p.epoch + sim.Time(secs*1000000+us)*sim.Microsecond
}

// due reports whether the job must wait before its next I/O: a think is due,
// or the next I/O's direction is ahead of its rate. It draws that direction
// (fio draws it in get_io_u before rate_ddir).
func (p *pacing) due(j *job, now sim.Time) bool {
	s := &j.spec
	if s.ThinkTime > 0 && !p.thinking {
		n := p.doneTotal
		if s.ThinkTimeIssue {
			n = p.issuedIOs
		}
		if n >= p.thinkNext {
			p.thinking = true
		}
	}
	if p.thinking {
		return true
	}
	if !p.limited() {
		return false
	}
	d := j.drawDir()
	if p.bps[d] == 0 || p.nextAt[d] <= now {
		return false
	}
	// rate_ddir: ahead in this direction; a mixed job switches to the other
	// direction when that one is behind its rate
	o := d ^ 1
	if s.RW.Mixed() && mixShare(s, o) > 0 && p.bps[o] > 0 && p.nextAt[o] <= now {
		j.nextDir = int8(o)
		return false
	}
	return true
}

// mixShare is rwmix[d] in percent.
func mixShare(s *fio.Spec, d fio.Dir) int {
	if d == fio.DirRead {
		return s.RWMixRead
	}
	return 100 - s.RWMixRead
}

// pause is called before a submission batch: when a think is due or the rate
// is ahead, the job first reaps every I/O in flight (io_u_quiesce, as fio does
// in inline submit mode) and then sleeps until the rate allows the next I/O
// or for thinktime. It returns true when the job loop must stop (quiescing or
// asleep).
func (j *job) pause(now sim.Time) bool {
	p := &j.pace
	if !p.due(j, now) {
		return false
	}
	if j.spec.EffectiveIODepth-j.nFree > 0 {
		p.quiesce = true
		return true
	}
	var wake sim.Time
	if p.thinking {
		wake = now + sim.Time(j.spec.ThinkTime)
		p.thinking = false
		n := p.doneTotal
		if j.spec.ThinkTimeIssue {
			n = p.issuedIOs
		}
		p.thinkNext = n + int64(max(j.spec.ThinkTimeBlocks, 1))
	} else {
		d := j.drawDir()
		wake = p.nextAt[d]
		if o := d ^ 1; j.spec.RW.Mixed() && mixShare(&j.spec, o) > 0 && p.bps[o] > 0 && p.nextAt[o] < wake {
			// both ahead: sleep the shorter and switch (rate_ddir)
			wake = p.nextAt[o]
			j.nextDir = int8(o)
		}
	}
	wake = min(wake, j.stopAt) // rate_ddir caps the sleep at the job's timeout
	if wake <= now {
		return false
	}
	p.sleeping = true
	j.r.eng.At(wake, &p.wakeEv)
	return true
}

// wakeEvent ends a rate or thinktime sleep.
type wakeEvent struct{ j *job }

// Fire resumes the job loop.
func (e *wakeEvent) Fire(now sim.Time) {
	e.j.pace.sleeping = false
	e.j.run(now)
}

// completed counts a reaped I/O for thinktime_blocks and checks rate_min once
// per ratecycle in the measurement window (backend.c check_min_rate: the job
// stops with an error when a direction's rate in the cycle is below
// rate_min / rate_iops_min).
func (p *pacing) completed(j *job, d fio.Dir, n int64, now sim.Time) {
	p.doneTotal++
	if why := p.ss.completed(n, now); why != "" {
		j.stopEarly(now, why)
	}
	if p.minBps == [2]uint64{} && p.minIOPS == [2]uint64{} || now < j.windowStart {
		return
	}
	p.doneBytes[d] += uint64(n)
	p.doneIOs[d]++
	if p.cycleStart == 0 || p.cycleStart < j.windowStart {
		p.cycleStart = max(j.windowStart, 1)
		p.cycleBytes, p.cycleIOs = p.doneBytes, p.doneIOs
		return
	}
	spent := now - p.cycleStart
	if spent < p.cycle {
		return
	}
	for dd := range 2 {
		bytes, ios := p.doneBytes[dd]-p.cycleBytes[dd], p.doneIOs[dd]-p.cycleIOs[dd]
		if j.spec.RW.Reads() != (dd == 0) && !j.spec.RW.Mixed() {
			continue
		}
		rate := float64(bytes) / spent.Seconds()
		iops := float64(ios) / spent.Seconds()
		switch {
		case p.minBps[dd] > 0 && rate < float64(p.minBps[dd]):
			j.stopEarly(now, fmt.Sprintf("%s rate_min %d B/s not met: %.0f B/s over the %v cycle ending at %v (fio stops the job with an error)",
				fio.Dir(dd), p.minBps[dd], rate, spent, now))
			return
		case p.minIOPS[dd] > 0 && iops < float64(p.minIOPS[dd]):
			j.stopEarly(now, fmt.Sprintf("%s rate_iops_min %d not met: %.0f IOPS over the %v cycle ending at %v (fio stops the job with an error)",
				fio.Dir(dd), p.minIOPS[dd], iops, spent, now))
			return
		}
	}
	p.cycleStart = now
	p.cycleBytes, p.cycleIOs = p.doneBytes, p.doneIOs
}

// stopEarly makes the job issue nothing more from now, its window ending
// now, and records why.
func (j *job) stopEarly(now sim.Time, why string) {
	if j.stopNote == "" {
		j.stopNote = why
	}
	if now < j.stopAt {
		j.stopAt = now
	}
	j.stopped = true
}

// drawDir returns the direction of the next I/O, drawing it once (rwmix:
// fio's get_rw_ddir draws 1..100 against rwmixread; the draw is the job's
// first of the I/O, as it always was).
func (j *job) drawDir() fio.Dir {
	if j.nextDir >= 0 {
		return fio.Dir(j.nextDir)
	}
	s := &j.spec
	d := fio.DirRead
	if s.RW.Writes() && (!s.RW.Reads() || j.rnd.IntN(100) >= s.RWMixRead) {
		d = fio.DirWrite
	}
	j.nextDir = int8(d)
	return d
}

// buflen is the length of the next I/O of direction d (io_u.c
// get_next_buflen): the fixed block size; or bsrange's min + max × U aligned
// down to min and capped at max; or bssplit's entry whose cumulative share
// covers a draw in (0, 100].
func (j *job) buflen(d fio.Dir) int64 {
	s := &j.spec
	switch {
	case len(s.BSSplit) > 0:
		v := (1 - j.rnd.Float64()) * 100
		cum := 0.0
		for _, e := range s.BSSplit {
			if e.Percent == 0 {
				continue
			}
			cum += e.Percent
			if v <= cum+1e-9 {
				return min(e.Size, j.size)
			}
		}
		return min(s.BSSplit[len(s.BSSplit)-1].Size, j.size)
	case s.BSRangeMax > 0 && s.BSRangeMax != s.BSRangeMin:
		lo, hi := s.BSRangeMin, s.BSRangeMax
		n := lo + int64(float64(hi)*j.rnd.Float64())
		n -= n % lo
		return min(n, hi, j.size)
	case s.BSRangeMax > 0:
		return s.BSRangeMin
	}
	return s.BlockSizeFor(d)
}

// initOffsets sets up random offsets: the alignment (blockalign, default the
// smallest block size) and a random_distribution generator over the blocks of
// the job's region (filesetup.c __init_rand_distribution: ranges of the
// smallest block size).
func (j *job) initOffsets() {
	s := &j.spec
	minBS := min(s.MinBlockSize(fio.DirRead), s.MinBlockSize(fio.DirWrite))
	j.align = minBS
	if s.BlockAlign > 0 {
		j.align = s.BlockAlign
	}
	if s.Dist.Kind != fio.DistRandom && s.RW.Random() {
		n := uint64((j.size + minBS - 1) / minBS)
		j.gen = newOffsetGen(s.Dist, n, minBS, j.rnd)
	}
}

// randOffset returns a random offset in the region for an I/O of n bytes.
// The uniform case draws exactly as the model always has (one Int64N over the
// blocks), so job files without the new options keep their figures.
func (j *job) randOffset(n int64) int64 {
	s := &j.spec
	if j.gen == nil {
		if n == s.BlockSize && j.align == s.BlockSize {
			return j.rnd.Int64N(j.size/s.BlockSize) * s.BlockSize
		}
		slots := (j.size-n)/j.align + 1
		return j.rnd.Int64N(max(slots, 1)) * j.align
	}
	b := int64(j.gen.next())
	off := b * min(s.MinBlockSize(fio.DirRead), s.MinBlockSize(fio.DirWrite))
	off -= off % j.align
	if off+n > j.size {
		off = (j.size - n) / j.align * j.align
	}
	return max(off, 0)
}

// workloadSeed is the seed of a job's workload stream: randseed= when the job
// sets it (fio: the job's random generators are seeded from it), else the
// run's Config.Seed.
func workloadSeed(seed uint64, s *fio.Spec) uint64 {
	if s.RandSeedSet {
		return s.RandSeed*0x9e3779b97f4a7c15 ^ 0x72616e64 // "rand": apart from every Config.Seed stream
	}
	return seed * 0x9e3779b97f4a7c15
}

// jobOffset is where the job's I/O starts in its file: offset= plus, for clone
// i, i × offset_increment (filesetup.c get_start_offset with subjob_number).
// An offset given as a percentage (offset=25%) that setup did not resolve
// against the device's capacity counts against the stack's default 1 GiB file,
// aligned to the block size.
func jobOffset(s *fio.Spec) int64 {
	off := s.Offset
	if off == 0 && s.OffsetPercent > 0 {
		off = int64(float64(1<<30)*s.OffsetPercent/100) / s.BlockSize * s.BlockSize
	}
	return off + int64(s.Index)*s.OffsetIncrement
}
