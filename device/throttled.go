package device

import (
	"fmt"
	"math"

	"github.com/blkmq/blkmq/sim"
)

// ThrottledParams configures a Throttled cloud disk: a device whose throughput is capped
// by an IOPS token bucket and a bandwidth token bucket, as on Azure managed disks (the
// storvsc disk of source 000) or AWS EBS volumes.
type ThrottledParams struct {
	Name string // reported by the device's Name method

	// IOPS is the I/O-per-second cap (tokens per second, > 0).
	IOPS float64
	// IOPSBurst is the IOPS bucket depth (tokens, >= 1): how many I/O tokens may be spent
	// at once after an idle period.
	IOPSBurst float64
	// IOPSUnitBytes is the I/O size counted as one I/O against the IOPS cap: a command of
	// n bytes costs ceil(n / IOPSUnitBytes) tokens (Azure counts I/Os up to 256 KiB as
	// one). 0 means every command costs one token.
	IOPSUnitBytes int64

	// BandwidthBytesPerSec is the throughput cap (bytes per second, > 0).
	BandwidthBytesPerSec float64
	// BandwidthBurstBytes is the bandwidth bucket depth (bytes, > 0).
	BandwidthBurstBytes float64

	// BaseLatency is the service time of a command once both buckets admit it (ns, >= 0).
	BaseLatency sim.Time

	// MaxOutstanding is the number of commands the disk holds (queued for tokens or in
	// service); above it Submit answers Busy. 0 means unlimited.
	MaxOutstanding int
}

// AzureP30Params is a throttled cloud disk with the limits of an Azure Premium SSD P30
// (1 TiB, 5000 IOPS, 200 MB/s; Azure "Premium SSD" size table), which counts I/Os up to
// 256 KiB as one I/O (IOPSUnitBytes 256 KiB, Azure documentation of IOPS accounting).
// MB is 10^6 bytes. Source 000's disk has exactly these limits (bench.Storvsc000Params).
//
// Assumptions (not from a data sheet): BaseLatency 2 ms — Azure documents "single-digit
// millisecond" latency for Premium SSD; bursts of 20 ms of rate (100 I/O tokens, 4 MB),
// a smoothing window for a disk without credit bursting (P30 has no credit-based burst);
// MaxOutstanding unlimited (the host side, e.g. storvsc's ring, limits outstanding
// commands).
func AzureP30Params() ThrottledParams {
	return ThrottledParams{
		Name:                 "azure-p30",
		IOPS:                 5000,
		IOPSBurst:            100,
		IOPSUnitBytes:        256 << 10,
		BandwidthBytesPerSec: 200e6,
		BandwidthBurstBytes:  4e6,
		BaseLatency:          2 * sim.Millisecond,
	}
}

// Validate checks the parameters and returns an error naming the first bad field.
// minIOPS is the smallest IOPS limit a throttled device accepts: one command per
// 1000 s. Below it a token's time overflows the clock within a few commands.
const minIOPS = 1e-3

func (p ThrottledParams) Validate() error {
	bad := func(field string, v any, rng string) error {
		return fmt.Errorf("device: throttled %q: %s %v out of range %s", p.Name, field, v, rng)
	}
	switch {
	case !(p.IOPS >= minIOPS) || math.IsInf(p.IOPS, 0):
		return bad("IOPS", p.IOPS, "[0.001 (one command per 1000 s), inf)")
	case !(p.IOPSBurst >= 1) || math.IsInf(p.IOPSBurst, 0):
		return bad("IOPSBurst", p.IOPSBurst, "[1, inf)")
	case p.IOPSUnitBytes < 0:
		return bad("IOPSUnitBytes", p.IOPSUnitBytes, "[0 (one token per command), inf)")
	case !(p.BandwidthBytesPerSec >= minBytesPerSec) || math.IsInf(p.BandwidthBytesPerSec, 0):
		return bad("BandwidthBytesPerSec", p.BandwidthBytesPerSec, "[1, inf)")
	case !(p.BandwidthBurstBytes > 0) || math.IsInf(p.BandwidthBurstBytes, 0):
		return bad("BandwidthBurstBytes", p.BandwidthBurstBytes, "(0, inf)")
	case p.BaseLatency < 0:
		return bad("BaseLatency", p.BaseLatency, "[0, inf)")
	case p.MaxOutstanding < 0:
		return bad("MaxOutstanding", p.MaxOutstanding, "[0 (unlimited), inf)")
	}
	return nil
}

// bucket is a token bucket kept as a theoretical arrival time (GCRA form): tokens are
// spent at rate 1/perToken and up to depth tokens of credit accumulate while idle. A
// command costing more than the depth is admitted when the bucket is full and leaves it
// in debt, so the long-run rate is exact for any command size.
type bucket struct {
	perToken float64 // ns per token
	depth    float64 // tokens
	tat      float64 // ns; the time at which the bucket would be full again
}

// ready returns the earliest time (ns, fractional) at which the bucket holds cost tokens
// (or is full, for a cost above the depth).
func (b *bucket) ready(cost float64) float64 {
	return b.tat - math.Max(0, b.depth-cost)*b.perToken
}

// spend charges cost tokens at admission time t (t >= ready(cost)).
func (b *bucket) spend(t float64, cost float64) {
	if t > b.tat {
		b.tat = t
	}
	b.tat += cost * b.perToken
}

// Throttled is a token-bucket-limited cloud disk. Commands wait for tokens in FIFO order
// inside the device (it does not answer busy for lack of tokens), then take BaseLatency.
type Throttled struct {
	p        ThrottledParams
	eng      *sim.Engine
	iops, bw bucket
	last     float64 // admission time of the previous command (FIFO)
	done     fifoDone
	inFlight int
}

// NewThrottled builds a Throttled disk on eng, with both buckets full. It returns
// Validate's error for bad parameters.
func NewThrottled(eng *sim.Engine, p ThrottledParams) (*Throttled, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkEngine("throttled", p.Name, eng); err != nil {
		return nil, err
	}
	d := &Throttled{p: p, eng: eng}
	d.iops.perToken = 1e9 / p.IOPS
	d.iops.depth = p.IOPSBurst
	d.bw.perToken = 1e9 / p.BandwidthBytesPerSec
	d.bw.depth = p.BandwidthBurstBytes
	now := float64(eng.Now())
	d.iops.tat, d.bw.tat, d.last = now, now, now
	d.done.init(eng, d)
	return d, nil
}

// Name returns ThrottledParams.Name.
func (d *Throttled) Name() string { return d.p.Name }

// InFlight returns the accepted, not yet completed commands (waiting for tokens or in
// service).
func (d *Throttled) InFlight() int { return d.inFlight }

// Params returns the device's parameters.
func (d *Throttled) Params() ThrottledParams { return d.p }

// IOPSCost returns the IOPS tokens a command of n bytes costs: ceil(n / IOPSUnitBytes),
// or 1 when IOPSUnitBytes is 0.
func (d *Throttled) IOPSCost(n int64) int64 {
	if d.p.IOPSUnitBytes == 0 {
		return 1
	}
	return ceilDiv(n, d.p.IOPSUnitBytes)
}

// Submit accepts cmd unless MaxOutstanding commands are held (Busy). The command is
// admitted when both buckets have credit and every earlier command was admitted, and
// completes BaseLatency later.
func (d *Throttled) Submit(cmd *Command) Status {
	checkCommand(d.p.Name, cmd)
	if d.p.MaxOutstanding > 0 && d.inFlight >= d.p.MaxOutstanding {
		return Busy
	}
	now := d.eng.Now()
	cmd.Submitted = now
	d.inFlight++
	ic, bc := float64(d.IOPSCost(cmd.Length)), float64(cmd.Length)
	t := math.Max(float64(now), d.last)
	t = math.Max(t, d.iops.ready(ic))
	t = math.Max(t, d.bw.ready(bc))
	d.iops.spend(t, ic)
	d.bw.spend(t, bc)
	d.last = t
	d.done.push(cmd, addTime(satTime(t), d.p.BaseLatency))
	return Accepted
}

func (d *Throttled) finish(cmd *Command, now sim.Time) {
	d.inFlight--
	cmd.Done.Complete(cmd, now)
}

// SetStuck holds all completions (on) or releases them (off), like Null.SetStuck: a
// disk that stops answering. Held commands stay in flight; on release those already due
// complete at the release time, in order.
func (d *Throttled) SetStuck(on bool) { d.done.hold(on) }
