package device

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/sim"
)

// HDDParams configures a hard disk: a spindle at RPM, a seek curve through three data
// sheet points, zoned recording (the media rate falls from the outer to the inner
// zone), rotational position tracked against virtual time, a per-command overhead, an
// optional write-back cache and optional queued reordering (tagged command queueing).
type HDDParams struct {
	Name string // reported by the device's Name method

	// RPM is the spindle speed (revolutions per minute, in [1, 1000000]).
	RPM int
	// CapacityBytes is the addressable size (bytes, > 0).
	CapacityBytes int64

	// TrackToTrackSeek, AverageSeek and FullStrokeSeek are read seek times (ns, at most
	// MaxCommandTime) for a
	// one-track move, averaged over all seek pairs, and across the whole stroke. They
	// must satisfy 0 < TrackToTrack < Average < FullStroke, and the average must lie in
	// the range a seek curve a·sqrt(d)+b·d can reach (see Validate).
	TrackToTrackSeek, AverageSeek, FullStrokeSeek sim.Time
	// WriteSeekExtra is added to every write seek (ns, in [0, MaxCommandTime]): data sheets quote write
	// seeks longer than reads (extra settle time).
	WriteSeekExtra sim.Time

	// OuterBytesPerSec and InnerBytesPerSec are the sustained media rates of the first
	// (outer) and last (inner) zone (bytes/s, Outer >= Inner >= 1).
	OuterBytesPerSec, InnerBytesPerSec float64
	// Zones is the number of recording zones, in [1, 65536] (NewHDD allocates one
	// entry each); rates step linearly between the outer and the inner rate.
	Zones int

	// CommandOverhead is the drive's processing time per command before positioning
	// starts (ns, in [0, MaxCommandTime]). Commands are processed one at a time, overlapped with media
	// work, so a queued command is ready when the previous one finishes.
	CommandOverhead sim.Time

	// WriteCache enables the write-back cache (WCE): a write completes once its data
	// is in the buffer (at InterfaceBytesPerSec) and reaches the media later. When the
	// buffer holds WriteCacheBytes of dirty data, writes wait for destaging.
	WriteCache      bool
	WriteCacheBytes int64 // dirty-data capacity (bytes, > 0 when WriteCache)
	// InterfaceBytesPerSec is the host interface rate for cached transfers
	// (bytes/s, >= 1).
	InterfaceBytesPerSec float64

	// QueuedReordering makes the drive serve its queued commands in shortest
	// positioning time first order (as tagged command queueing firmware does) instead of
	// arrival order.
	QueuedReordering bool
	// AgingLimit bounds how long reordering may pass over a command (ns, >= 0): once
	// the oldest queued command has waited this long since it became ready, it is
	// served next (firmware command aging). 0 means no limit, so a random read can
	// starve behind a stream of sequential writes. Ignored without QueuedReordering.
	AgingLimit sim.Time
	// MaxQueue is the drive's queue depth; above it Submit answers Busy (SCSI TASK SET
	// FULL). 0 means unlimited.
	MaxQueue int
}

// Cheetah15K7Params is a 15,000 rpm SAS disk of the era of source 004 (2013): the
// Seagate Cheetah 15K.7 ST3600057SS (product manual 100516226). From the manual:
// 600 GB (10^9 bytes), 15K rpm (2.0 ms average rotational latency), sustained media rate
// 204 MB/s outer to 122 MB/s inner, SAS 600 MB/s interface, 16 MiB buffer. Seek figures
// as recalled from the manual's access-time table (not re-verified here): average read
// 3.4 ms, write 3.9 ms (WriteSeekExtra 0.5 ms), track-to-track read 0.2 ms.
//
// Assumptions: full-stroke seek 7.0 ms (≈ 2× average, typical for 15K drives of the
// period); 16 zones; command overhead 150 µs; write cache off (as on RAID adapters,
// which disable drive caches); the whole 16 MiB buffer usable for dirty data when on;
// queue depth 64 with reordering on and an aging limit of 250 ms.
func Cheetah15K7Params() HDDParams {
	return HDDParams{
		Name:                 "cheetah-15k7",
		RPM:                  15000,
		CapacityBytes:        600e9,
		TrackToTrackSeek:     200 * sim.Microsecond,
		AverageSeek:          3400 * sim.Microsecond,
		FullStrokeSeek:       7 * sim.Millisecond,
		WriteSeekExtra:       500 * sim.Microsecond,
		OuterBytesPerSec:     204e6,
		InnerBytesPerSec:     122e6,
		Zones:                16,
		CommandOverhead:      150 * sim.Microsecond,
		WriteCacheBytes:      16 << 20,
		InterfaceBytesPerSec: 600e6,
		QueuedReordering:     true,
		AgingLimit:           250 * sim.Millisecond,
		MaxQueue:             64,
	}
}

// Cheetah15K3Params is the 15,000 rpm disk named in source 004 (the IBM 573E adapter's
// "ST373453LC"): a Seagate Cheetah 15K.3, 73.4 GB, Ultra320 SCSI. Figures recalled from
// the Cheetah 15K.3 product manual, not re-verified here: average seek 3.6 ms read,
// 4.0 ms write (WriteSeekExtra 0.4 ms), track-to-track 0.2 ms, sustained media rate
// 75 MB/s outer to 49 MB/s inner, 320 MB/s interface.
//
// Assumptions: full stroke 7.4 ms, 12 zones, 100 µs command overhead, write cache off
// (usual behind IBM RAID adapters), 8 MiB buffer for dirty data when on, queue depth 64,
// queued commands in arrival order (set QueuedReordering and AgingLimit to model TCQ
// reordering).
func Cheetah15K3Params() HDDParams {
	return HDDParams{
		Name:                 "cheetah-15k3",
		RPM:                  15000,
		CapacityBytes:        73.4e9,
		TrackToTrackSeek:     200 * sim.Microsecond,
		AverageSeek:          3600 * sim.Microsecond,
		FullStrokeSeek:       7400 * sim.Microsecond,
		WriteSeekExtra:       400 * sim.Microsecond,
		OuterBytesPerSec:     75e6,
		InnerBytesPerSec:     49e6,
		Zones:                12,
		CommandOverhead:      100 * sim.Microsecond,
		WriteCacheBytes:      8 << 20,
		InterfaceBytesPerSec: 320e6,
		MaxQueue:             64,
	}
}

// seekShapeRange is the attainable (AverageSeek−T2T)/(FullStroke−T2T) for the curve
// f(x) = α√x + (1−α)x, α ∈ [0, 1], averaged over seek distances of uniformly random
// pairs (density 2(1−x)): E[x] = 1/3, E[√x] = 8/15.
const (
	seekShapeMin = 1.0 / 3
	seekShapeMax = 8.0 / 15
)

// Validate checks the parameters and returns an error naming the first bad field.
func (p HDDParams) Validate() error {
	// maxHDDZones bounds NewHDD's zone table (real drives have tens of zones);
	// maxHDDRPM keeps a revolution (60 s / RPM) at 60 µs or more, well above any
	// spindle and far from a zero revolution time.
	const maxHDDZones, maxHDDRPM = 1 << 16, 1_000_000
	bad := func(field string, v any, rng string) error {
		return fmt.Errorf("device: hdd %q: %s %v out of range %s", p.Name, field, v, rng)
	}
	switch {
	case p.RPM <= 0 || p.RPM > maxHDDRPM:
		return bad("RPM", p.RPM, fmt.Sprintf("[1, %d]", maxHDDRPM))
	case p.CapacityBytes <= 0:
		return bad("CapacityBytes", p.CapacityBytes, "[1, inf)")
	case p.TrackToTrackSeek <= 0:
		return bad("TrackToTrackSeek", p.TrackToTrackSeek, "(0, AverageSeek)")
	case p.AverageSeek <= p.TrackToTrackSeek:
		return bad("AverageSeek", p.AverageSeek, fmt.Sprintf("(TrackToTrackSeek %v, FullStrokeSeek)", p.TrackToTrackSeek))
	case p.FullStrokeSeek <= p.AverageSeek || p.FullStrokeSeek > MaxCommandTime:
		return bad("FullStrokeSeek", p.FullStrokeSeek, fmt.Sprintf("(AverageSeek %v, %v]", p.AverageSeek, MaxCommandTime))
	case p.WriteSeekExtra < 0 || p.WriteSeekExtra > MaxCommandTime:
		return bad("WriteSeekExtra", p.WriteSeekExtra, fmt.Sprintf("[0, %v]", MaxCommandTime))
	case !(p.InnerBytesPerSec >= minBytesPerSec) || math.IsInf(p.InnerBytesPerSec, 0):
		return bad("InnerBytesPerSec", p.InnerBytesPerSec, "[1, inf)")
	case !(p.OuterBytesPerSec >= p.InnerBytesPerSec) || math.IsInf(p.OuterBytesPerSec, 0):
		return bad("OuterBytesPerSec", p.OuterBytesPerSec, fmt.Sprintf("[InnerBytesPerSec %v, inf)", p.InnerBytesPerSec))
	case p.Zones < 1 || p.Zones > maxHDDZones:
		return bad("Zones", p.Zones, fmt.Sprintf("[1, %d]", maxHDDZones))
	case p.CommandOverhead < 0 || p.CommandOverhead > MaxCommandTime:
		return bad("CommandOverhead", p.CommandOverhead, fmt.Sprintf("[0, %v]", MaxCommandTime))
	case p.WriteCache && p.WriteCacheBytes <= 0:
		return bad("WriteCacheBytes", p.WriteCacheBytes, "[1, inf) with WriteCache")
	case !(p.InterfaceBytesPerSec >= minBytesPerSec) || math.IsInf(p.InterfaceBytesPerSec, 0):
		return bad("InterfaceBytesPerSec", p.InterfaceBytesPerSec, "[1, inf)")
	case p.MaxQueue < 0:
		return bad("MaxQueue", p.MaxQueue, "[0 (unlimited), inf)")
	case p.AgingLimit < 0:
		return bad("AgingLimit", p.AgingLimit, "[0 (no limit), inf)")
	}
	r := float64(p.AverageSeek-p.TrackToTrackSeek) / float64(p.FullStrokeSeek-p.TrackToTrackSeek)
	if r < seekShapeMin || r > seekShapeMax {
		lo := p.TrackToTrackSeek + sim.Time(seekShapeMin*float64(p.FullStrokeSeek-p.TrackToTrackSeek))
		hi := p.TrackToTrackSeek + sim.Time(seekShapeMax*float64(p.FullStrokeSeek-p.TrackToTrackSeek))
		return bad("AverageSeek", p.AverageSeek, fmt.Sprintf("[%v, %v] for the given track-to-track and full-stroke seeks", lo, hi))
	}
	return nil
}

// RevolutionTime returns the time of one revolution (ns): 60 s / RPM.
func (p HDDParams) RevolutionTime() sim.Time { return sim.Time(60 * int64(sim.Second) / int64(p.RPM)) }

// zone is one recording zone: tracks of equal size.
type zone struct {
	start      int64 // first byte
	trackBytes int64 // bytes per track
	firstTrack int64
}

// hddJob is one media operation: a command, or (cmd == nil) a write-cache destage.
type hddJob struct {
	cmd    *Command
	op     Op
	offset int64
	length int64
	track  int64    // track of the first byte
	angle  sim.Time // rotational position of the first byte (ns after the index)
	ready  sim.Time // when the job joined the media queue
}

// HDD is a hard-disk model. See HDDParams. Media operations run one at a time; the
// head's track and the platter's angle (from virtual time) decide each operation's
// positioning time. Not modelled: read-ahead and reads served from the buffer (every
// read goes to the media), head and cylinder switches within a sequential transfer
// (assumed hidden by track skew), and seek-time variation.
type HDD struct {
	p        HDDParams
	eng      *sim.Engine
	rev      sim.Time
	zones    []zone
	tracks   int64   // total tracks
	alpha    float64 // seek curve shape
	ctrlFree sim.Time
	inFlight int

	queue     ring[hddJob] // ready jobs, arrival order
	busy      bool         // a media operation is running
	cur       hddJob
	headTrack int64
	media     hddMedia

	dirty     int64          // bytes in the write cache not yet on media
	cacheWait ring[*Command] // writes waiting for cache space, FIFO

	readyEvs pool[hddReady]
	doneEvs  pool[hddDone]
}

type hddReady struct {
	d   *HDD
	cmd *Command
}

func (e *hddReady) Fire(now sim.Time) {
	d, cmd := e.d, e.cmd
	d.readyEvs.put(e)
	d.ready(cmd, now)
}

type hddDone struct {
	d   *HDD
	cmd *Command
}

func (e *hddDone) Fire(now sim.Time) {
	d, cmd := e.d, e.cmd
	d.doneEvs.put(e)
	d.complete(cmd, now)
}

type hddMedia struct{ d *HDD }

func (e *hddMedia) Fire(now sim.Time) { e.d.mediaDone(now) }

// NewHDD builds an HDD on eng with the head on track 0 and the platter at angle 0 at
// time 0. It returns Validate's error for bad parameters.
func NewHDD(eng *sim.Engine, p HDDParams) (*HDD, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkEngine("hdd", p.Name, eng); err != nil {
		return nil, err
	}
	d := &HDD{p: p, eng: eng, rev: p.RevolutionTime()}
	d.media.d = d
	d.layoutZones()
	r := float64(p.AverageSeek-p.TrackToTrackSeek) / float64(p.FullStrokeSeek-p.TrackToTrackSeek)
	d.alpha = (r - seekShapeMin) / (seekShapeMax - seekShapeMin)
	return d, nil
}

// layoutZones gives every zone the same number of tracks, enough to hold the capacity.
func (d *HDD) layoutZones() {
	z := d.p.Zones
	var perSet int64
	tb := make([]int64, z)
	for i := range tb {
		rate := d.p.OuterBytesPerSec
		if z > 1 {
			rate -= (d.p.OuterBytesPerSec - d.p.InnerBytesPerSec) * float64(i) / float64(z-1)
		}
		tb[i] = max(1, int64(rate*d.rev.Seconds()))
		perSet += tb[i]
	}
	perZone := ceilDiv(d.p.CapacityBytes, perSet)
	var start, track int64
	for i := range tb {
		d.zones = append(d.zones, zone{start: start, trackBytes: tb[i], firstTrack: track})
		start += perZone * tb[i]
		track += perZone
	}
	d.tracks = track
}

// Name returns HDDParams.Name.
func (d *HDD) Name() string { return d.p.Name }

// InFlight returns the accepted, not yet completed commands.
func (d *HDD) InFlight() int { return d.inFlight }

// Params returns the device's parameters.
func (d *HDD) Params() HDDParams { return d.p }

// Submit accepts cmd unless MaxQueue commands are held (Busy). The command is ready for
// the media after CommandOverhead (commands are processed one at a time). It panics if
// the command reaches beyond CapacityBytes (a programming error, like a malformed
// command).
func (d *HDD) Submit(cmd *Command) Status {
	checkCommand(d.p.Name, cmd)
	if cmd.Offset+cmd.Length > d.p.CapacityBytes {
		panic(fmt.Sprintf("device %s: command ID %d [%d, %d) beyond CapacityBytes %d", d.p.Name, cmd.ID, cmd.Offset, cmd.Offset+cmd.Length, d.p.CapacityBytes))
	}
	if d.p.MaxQueue > 0 && d.inFlight >= d.p.MaxQueue {
		return Busy
	}
	now := d.eng.Now()
	cmd.Submitted = now
	d.inFlight++
	d.ctrlFree = max(now, d.ctrlFree) + d.p.CommandOverhead
	ev := d.readyEvs.get()
	ev.d, ev.cmd = d, cmd
	d.eng.At(d.ctrlFree, ev)
	return Accepted
}

// ready hands a processed command to the cache or the media queue.
func (d *HDD) ready(cmd *Command, now sim.Time) {
	if cmd.Op == OpWrite && d.p.WriteCache {
		if d.cacheWait.len() == 0 && d.dirty+cmd.Length <= d.p.WriteCacheBytes {
			d.cacheWrite(cmd, now)
		} else {
			d.cacheWait.push(cmd)
		}
		return
	}
	d.enqueue(hddJob{cmd: cmd, op: cmd.Op, offset: cmd.Offset, length: cmd.Length}, now)
}

// cacheWrite takes a write into the buffer: it completes after the interface transfer
// and is destaged later.
func (d *HDD) cacheWrite(cmd *Command, now sim.Time) {
	d.dirty += cmd.Length
	ev := d.doneEvs.get()
	ev.d, ev.cmd = d, cmd
	d.eng.At(now+sim.Time(math.Ceil(float64(cmd.Length)*1e9/d.p.InterfaceBytesPerSec)), ev)
	d.enqueue(hddJob{op: OpWrite, offset: cmd.Offset, length: cmd.Length}, now)
}

func (d *HDD) enqueue(j hddJob, now sim.Time) {
	j.track, j.angle, j.ready = d.trackOf(j.offset), d.angleOf(j.offset), now
	d.queue.push(j)
	if !d.busy {
		d.startMedia(now)
	}
}

// startMedia picks the next job (arrival order, or shortest positioning time) and
// schedules its end.
func (d *HDD) startMedia(now sim.Time) {
	if d.queue.len() == 0 {
		return
	}
	pick := 0
	if d.p.QueuedReordering && !d.aged(now) {
		best := sim.MaxTime
		for i := 0; i < d.queue.len(); i++ {
			s, w := d.position(now, d.queue.at(i))
			if s == 0 && w < rotationSlack {
				pick = i
				break // nothing beats a job under the head
			}
			if pt := s + w; pt < best {
				best, pick = pt, i
			}
		}
	}
	j := d.queue.removeAt(pick)
	s, w := d.position(now, &j)
	end := max(now, now+s+w+d.transferTime(j.offset, j.length))
	d.headTrack = d.trackOf(j.offset + j.length - 1)
	d.cur = j
	d.busy = true
	d.eng.At(end, &d.media)
}

// aged reports whether the oldest queued job has waited AgingLimit or longer.
func (d *HDD) aged(now sim.Time) bool {
	return d.p.AgingLimit > 0 && now-d.queue.at(0).ready >= d.p.AgingLimit
}

// mediaDone finishes the running job and starts the next.
func (d *HDD) mediaDone(now sim.Time) {
	j := d.cur
	d.cur = hddJob{}
	d.busy = false
	if j.cmd != nil {
		d.complete(j.cmd, now)
	} else {
		d.dirty -= j.length
		for d.cacheWait.len() > 0 && d.dirty+(*d.cacheWait.at(0)).Length <= d.p.WriteCacheBytes {
			d.cacheWrite(d.cacheWait.removeAt(0), now)
		}
	}
	if !d.busy {
		d.startMedia(now)
	}
}

func (d *HDD) complete(cmd *Command, now sim.Time) {
	d.inFlight--
	cmd.Done.Complete(cmd, now)
}

// zoneIndex returns the index of the zone holding byte off (binary search).
func (d *HDD) zoneIndex(off int64) int {
	lo, hi := 0, len(d.zones)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.zones[mid].start <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// zoneOf returns the zone holding byte off.
func (d *HDD) zoneOf(off int64) *zone { return &d.zones[d.zoneIndex(off)] }

// trackOf returns the track holding byte off.
func (d *HDD) trackOf(off int64) int64 {
	z := d.zoneOf(off)
	return z.firstTrack + (off-z.start)/z.trackBytes
}

// angleOf returns the rotational position of byte off, as ns after the index mark.
func (d *HDD) angleOf(off int64) sim.Time {
	z := d.zoneOf(off)
	return sim.Time((off - z.start) % z.trackBytes * int64(d.rev) / z.trackBytes)
}

// rotationSlack is how far (ns) a sector may be behind the head and still count as
// under it. Angles are integer ns, so the end of one transfer and the start of the next
// contiguous one can differ by a few ns; the slack keeps back-to-back sequential
// transfers from losing a revolution to rounding.
const rotationSlack = 100 * sim.Nanosecond

// position returns the seek time and the signed rotational wait (ns) for job j starting
// at now. The wait lies in (−rotationSlack, rev − rotationSlack]: a slightly negative
// wait means the sector is just under the head, and keeps the head's angle exact across
// contiguous transfers (no drift from rounding).
func (d *HDD) position(now sim.Time, j *hddJob) (seek, wait sim.Time) {
	seek = d.SeekTime(d.headTrack, j.track)
	if seek > 0 && j.op == OpWrite {
		seek += d.p.WriteSeekExtra
	}
	head := (now + seek) % d.rev
	wait = (j.angle - head + d.rev) % d.rev
	if wait > d.rev-rotationSlack {
		wait -= d.rev
	}
	return seek, wait
}

// positioning returns seek plus rotational wait (ns, >= 0) for job j starting at now.
func (d *HDD) positioning(now sim.Time, j *hddJob) sim.Time {
	s, w := d.position(now, j)
	return s + max(w, 0)
}

// transferTime returns the media time (ns) for n bytes from off, at each zone's rate.
func (d *HDD) transferTime(off, n int64) sim.Time {
	var t sim.Time
	for n > 0 {
		zi := d.zoneIndex(off)
		z := &d.zones[zi]
		c := n
		if zi+1 < len(d.zones) {
			c = min(n, d.zones[zi+1].start-off)
		}
		t += sim.Time(math.Ceil(float64(c) * float64(d.rev) / float64(z.trackBytes)))
		off += c
		n -= c
	}
	return t
}

// SeekTime returns the seek time (ns, read) from track a to track b: 0 for the same
// track or the next track forward (track and head skew hide sequential switches),
// otherwise TrackToTrack + (FullStroke − TrackToTrack)·(α·√x + (1−α)·x) with x the
// distance as a fraction of the stroke and α fitted so that the mean over uniformly
// random pairs equals AverageSeek.
func (d *HDD) SeekTime(a, b int64) sim.Time {
	dist := b - a
	if dist == 0 || dist == 1 {
		return 0
	}
	if dist < 0 {
		dist = -dist
	}
	x := 0.0
	if d.tracks > 2 {
		x = float64(dist-1) / float64(d.tracks-2)
	}
	f := d.alpha*math.Sqrt(x) + (1-d.alpha)*x
	return d.p.TrackToTrackSeek + sim.Time(f*float64(d.p.FullStrokeSeek-d.p.TrackToTrackSeek))
}
