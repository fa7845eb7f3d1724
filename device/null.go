package device

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/sim"
)

// NullParams configures a Null device: a device without media whose commands complete
// after a fixed delay, like null_blk (drivers/block/null_blk) or scsi_debug
// (drivers/scsi/scsi_debug.c) without a backing store.
type NullParams struct {
	Name string // reported by the device's Name method

	// CompletionNsec is the delay from acceptance to completion (ns, >= 0). null_blk's
	// completion_nsec (default 10,000 ns, used with irqmode=2); scsi_debug's ndelay, or
	// delay in jiffies (see ScsiDebugDelay).
	CompletionNsec sim.Time

	// MaxQueue is the number of commands the device holds at once (scsi_debug max_queue,
	// default 192). Above it Submit answers Busy, or HostBusy if HostBusyWhenFull.
	// 0 means unlimited (null_blk: the tag set depth is the only limit).
	MaxQueue int

	// HostBusyWhenFull makes a full device answer HostBusy instead of Busy (scsi_debug
	// returns SCSI_MLQUEUE_HOST_BUSY when its max_queue slots are taken).
	HostBusyWhenFull bool

	// MBps caps bandwidth in MiB/s (2^20 bytes per second; null_blk's mbps parameter,
	// default 0 = no cap). Commands are transferred one after another at this rate and
	// complete at the later of their delay and their transfer end. null_blk itself stops
	// its queues when the budget of a 20 ms timer tick is used up; this model spreads the
	// same rate evenly instead. Range [0, MaxNullMBps].
	MBps int64

	// BusyProbability is the chance (in [0, 1)) that Submit refuses a command with
	// BusyStatus, drawn from a PCG seeded with Seed; 0 disables. It models an LLD that
	// rejects a command for a transient resource (cases R08: 1% host busy).
	BusyProbability float64
	// BusyStatus is the answer for random refusals: Busy or HostBusy (Accepted is
	// invalid when BusyProbability > 0).
	BusyStatus Status
	// Seed seeds the PCG used for BusyProbability and RandomDelay.
	Seed uint64

	// RandomDelay is scsi_debug's random=1 (sdebug_random; schedule_resp in
	// drivers/scsi/scsi_debug.c, v5.8+, 6.1): each command's delay is drawn uniformly
	// from [0, CompletionNsec) (prandom_u32_max of ndelay, or of the delay's ns when
	// given in jiffies) instead of being CompletionNsec. Commands then complete out of
	// submission order. scsi_debug's 4 µs rounding of jiffy delays above 2^32 ns
	// (4.29 s) is not modelled. false = the fixed delay.
	RandomDelay bool
}

// NullBlkParams returns null_blk's defaults: completion_nsec 10,000 ns, no queue limit
// beyond the tag set, no bandwidth cap (drivers/block/null_blk/main.c module defaults).
func NullBlkParams() NullParams {
	return NullParams{Name: "nullb0", CompletionNsec: 10 * sim.Microsecond}
}

// ScsiDebugParams returns scsi_debug's defaults: delay = 1 jiffy (DEF_DELAY), which is
// 4 ms at HZ=250 (Debian's kernel configuration), ndelay 0, max_queue 192
// (SDEBUG_CANQUEUE = 3 words × 64 bits), HOST_BUSY when full.
func ScsiDebugParams() NullParams {
	return NullParams{
		Name:             "scsi_debug",
		CompletionNsec:   ScsiDebugDelay(1, 0, 250),
		MaxQueue:         192,
		HostBusyWhenFull: true,
	}
}

// ScsiDebugDelay converts scsi_debug's delay parameters to a completion delay (ns):
// ndelay (ns) if it is positive, otherwise delay jiffies at the kernel's HZ (1 jiffy =
// 1e9/hz ns; HZ=250 on Debian gives 4 ms per jiffy). delay=0 and ndelay=0 mean the
// command completes without delay; so do a negative delay (scsi_debug's -1 and -2,
// a tiny delay from a tasklet or workqueue) and hz <= 0. A delay whose nanoseconds
// overflow int64 saturates at the largest sim.Time instead of wrapping negative.
func ScsiDebugDelay(delayJiffies int, ndelay sim.Time, hz int) sim.Time {
	if ndelay > 0 {
		return ndelay
	}
	if hz <= 0 || delayJiffies <= 0 {
		return 0
	}
	if int64(delayJiffies) > math.MaxInt64/int64(sim.Second) {
		return math.MaxInt64
	}
	return sim.Time(delayJiffies) * sim.Second / sim.Time(hz)
}

// MaxNullMBps is the largest NullParams.MBps: null_blk's mbps is an unsigned int
// (drivers/block/null_blk/main.c, g_mbps and nullb_device.mbps), and its bytes per
// second (MBps·2^20) then stay far inside int64.
const MaxNullMBps = math.MaxUint32

// Validate checks the parameters and returns an error naming the first bad field.
func (p NullParams) Validate() error {
	switch {
	case p.CompletionNsec < 0:
		return fmt.Errorf("device: null %q: CompletionNsec %v out of range [0, inf)", p.Name, p.CompletionNsec)
	case p.MaxQueue < 0:
		return fmt.Errorf("device: null %q: MaxQueue %d out of range [0 (unlimited), inf)", p.Name, p.MaxQueue)
	case p.MBps < 0 || p.MBps > MaxNullMBps:
		return fmt.Errorf("device: null %q: MBps %d out of range [0 (no cap), %d]", p.Name, p.MBps, MaxNullMBps)
	case !(p.BusyProbability >= 0 && p.BusyProbability < 1):
		return fmt.Errorf("device: null %q: BusyProbability %v out of range [0, 1)", p.Name, p.BusyProbability)
	case p.BusyProbability > 0 && p.BusyStatus != Busy && p.BusyStatus != HostBusy:
		return fmt.Errorf("device: null %q: BusyStatus %v must be busy or host-busy", p.Name, p.BusyStatus)
	}
	return nil
}

// Null is a fixed-delay device (null_blk / scsi_debug). See NullParams.
type Null struct {
	p        NullParams
	eng      *sim.Engine
	rng      *sim.Rand
	done     fifoDone
	rdone    randomDone // RandomDelay completions (out of order)
	inFlight int
	linkFree sim.Time
	nsPerB   float64 // transfer time per byte when MBps > 0
	linkRem  float64 // fractional ns carried between transfers
}

// NewNull builds a Null device on eng. It returns Validate's error for bad parameters.
func NewNull(eng *sim.Engine, p NullParams) (*Null, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkEngine("null", p.Name, eng); err != nil {
		return nil, err
	}
	d := &Null{p: p, eng: eng, rng: sim.NewRand(p.Seed)}
	if p.MBps > 0 {
		d.nsPerB = 1e9 / float64(p.MBps<<20)
	}
	d.done.init(eng, d)
	d.rdone.init(eng, d)
	return d, nil
}

// Name returns NullParams.Name.
func (d *Null) Name() string { return d.p.Name }

// InFlight returns the accepted, not yet completed commands.
func (d *Null) InFlight() int { return d.inFlight }

// Params returns the device's parameters.
func (d *Null) Params() NullParams { return d.p }

// Submit accepts cmd unless MaxQueue commands are in flight or a random refusal draws.
// Completion time: max(now + CompletionNsec, end of the command's transfer at MBps);
// with RandomDelay the delay is drawn from [0, CompletionNsec).
func (d *Null) Submit(cmd *Command) Status {
	checkCommand(d.p.Name, cmd)
	if d.p.MaxQueue > 0 && d.inFlight >= d.p.MaxQueue {
		if d.p.HostBusyWhenFull {
			return HostBusy
		}
		return Busy
	}
	if d.p.BusyProbability > 0 && d.rng.Float64() < d.p.BusyProbability {
		return d.p.BusyStatus
	}
	now := d.eng.Now()
	cmd.Submitted = now
	d.inFlight++
	if d.p.RandomDelay {
		at := now
		if d.p.CompletionNsec > 0 {
			at += sim.Time(d.rng.Int64N(int64(d.p.CompletionNsec)))
		}
		if d.nsPerB > 0 {
			if end := d.transfer(now, cmd.Length); end > at {
				at = end
			}
		}
		d.rdone.push(cmd, at)
		return Accepted
	}
	at := now + d.p.CompletionNsec
	if d.nsPerB > 0 {
		if end := d.transfer(now, cmd.Length); end > at {
			at = end
		}
	}
	d.done.push(cmd, at)
	return Accepted
}

// transfer reserves the serial link for n bytes from now and returns the end time.
func (d *Null) transfer(now sim.Time, n int64) sim.Time {
	start := d.linkFree
	if now > start {
		start = now
		d.linkRem = 0
	}
	x := float64(n)*d.nsPerB + d.linkRem
	whole := math.Floor(x)
	d.linkRem = x - whole
	d.linkFree = start + sim.Time(whole)
	return d.linkFree
}

// SetStuck holds all completions (on) or releases them (off): a device that stops
// answering, for hang tests (cases: "a stuck-device mode"). Held commands stay in
// flight; on release those already due complete at the release time, in order.
func (d *Null) SetStuck(on bool) {
	d.done.hold(on)
	d.rdone.hold(on)
}

func (d *Null) finish(cmd *Command, now sim.Time) {
	d.inFlight--
	cmd.Done.Complete(cmd, now)
}

// randomDone completes commands at arbitrary times (RandomDelay): one engine event per
// command. While held (SetStuck) due completions wait, and on release they complete at
// the release time in the order they fell due.
type randomDone struct {
	eng    *sim.Engine
	owner  finisher
	held   bool
	waited []*Command
}

func (r *randomDone) init(eng *sim.Engine, owner finisher) { r.eng, r.owner = eng, owner }

// randomEvent is one command's completion event.
type randomEvent struct {
	r   *randomDone
	cmd *Command
}

func (e *randomEvent) Fire(now sim.Time) {
	if e.r.held {
		e.r.waited = append(e.r.waited, e.cmd)
		return
	}
	e.r.owner.finish(e.cmd, now)
}

func (r *randomDone) push(cmd *Command, at sim.Time) { r.eng.At(at, &randomEvent{r, cmd}) }

func (r *randomDone) hold(on bool) {
	r.held = on
	if on {
		return
	}
	w := r.waited
	r.waited = nil
	now := r.eng.Now()
	for _, c := range w {
		r.owner.finish(c, now)
	}
}
