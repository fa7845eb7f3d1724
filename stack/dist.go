package stack

import (
	"math"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
)

// offsetGen draws the block index of a random I/O the way fio's
// random_distribution= generators do (io_u.c get_next_rand_offset, lib/zipf.c,
// lib/gauss.c), over nranges blocks of the job's smallest block size. The
// uniform draws come from the job's PCG stream instead of fio's Tausworthe
// generator, so the sequence differs from fio's while the distribution is
// the same.
type offsetGen struct {
	kind    fio.DistKind
	nranges uint64
	rnd     *sim.Rand

	// zipf / pareto (lib/zipf.c)
	theta, zetan, zeta2 float64
	paretoPow           float64
	randOff             uint64
	// normal (lib/gauss.c)
	stddev uint64
	// zoned: cumulative access and range boundaries in blocks
	zoneAccess []float64
	zoneStart  []uint64
	zoneLen    []uint64
}

// zipfMaxGen caps the terms of zeta(n) fio sums (lib/zipf.c ZIPF_MAX_GEN).
const zipfMaxGen = 10_000_000

// goldenRatio64 is fio's hash multiplier (hash.h GOLDEN_RATIO_64): __hash_u64
// scatters the ranks of zipf/pareto/normal so the hot blocks are not adjacent.
const goldenRatio64 = 0x61C8864680B583EB

// rangeSize is the bytes of one block (zoned_abs zones are given in bytes).
func newOffsetGen(d fio.Distribution, nranges uint64, rangeSize int64, rnd *sim.Rand) *offsetGen {
	g := &offsetGen{kind: d.Kind, nranges: max(nranges, 1), rnd: rnd}
	n := g.nranges
	switch d.Kind {
	case fio.DistZipf, fio.DistPareto:
		// shared_rand_init: a random rotation unless a center is given
		g.randOff = rnd.Uint64() & 0xffffffff
		if d.Center >= 0 {
			g.randOff = uint64(float64(n) * d.Center)
		}
		if d.Kind == fio.DistZipf {
			g.theta = d.Param
			g.zeta2 = math.Pow(1.0, g.theta) + math.Pow(0.5, g.theta)
			for i := range min(n, zipfMaxGen) {
				g.zetan += math.Pow(1.0/float64(i+1), g.theta)
			}
		} else {
			g.paretoPow = math.Log(d.Param) / math.Log(1.0-d.Param)
		}
	case fio.DistNormal:
		if d.Param != 0 {
			g.stddev = uint64(math.Ceil(float64(n) * d.Param / 100))
			g.stddev = min(g.stddev, n/2)
		}
		if d.Center >= 0 {
			g.randOff = uint64(float64(n) * (d.Center - 0.5))
		}
	case fio.DistZoned, fio.DistZonedAbs:
		cum, start := 0.0, uint64(0)
		sizePct := 0.0
		for _, z := range d.Zones {
			cum += z.Access
			var l uint64
			if d.Kind == fio.DistZoned {
				// __get_next_rand_offset_zoned: zone bounds in percent of the range
				lo := uint64(sizePct * float64(n) / 100)
				sizePct += z.Size
				hi := uint64(sizePct * float64(n) / 100)
				start, l = lo, hi-lo
			} else {
				l = uint64(z.SizeBytes / max(rangeSize, 1))
			}
			g.zoneAccess = append(g.zoneAccess, cum)
			g.zoneStart = append(g.zoneStart, start)
			g.zoneLen = append(g.zoneLen, l)
			if d.Kind == fio.DistZonedAbs {
				start += l
			}
		}
	}
	return g
}

// next returns a block index in [0, nranges).
func (g *offsetGen) next() uint64 {
	n := g.nranges
	switch g.kind {
	case fio.DistZipf:
		alpha := 1.0 / (1.0 - g.theta)
		eta := (1.0 - math.Pow(2.0/float64(n), 1.0-g.theta)) / (1.0 - g.zeta2/g.zetan)
		u := g.rnd.Float64()
		z := u * g.zetan
		var v uint64
		switch {
		case z < 1.0:
			v = 1
		case z < 1.0+math.Pow(0.5, g.theta):
			v = 2
		default:
			v = 1 + uint64(float64(n)*math.Pow(eta*u-eta+1.0, alpha))
		}
		v--
		return (v*goldenRatio64 + g.randOff) % n
	case fio.DistPareto:
		u := g.rnd.Float64()
		v := uint64(float64(n-1) * math.Pow(u, g.paretoPow))
		return (v*goldenRatio64 + g.randOff) % n
	case fio.DistNormal:
		// gauss_next: the mean of 12 uniform draws over [0, nranges], plus a
		// uniform deviation of up to stddev
		var sum uint64
		for range 12 {
			sum += g.rnd.Uint64() % (n + 1)
		}
		sum = (sum + 11) / 12
		if g.stddev > 0 {
			dev := int64(float64(g.stddev)*g.rnd.Float64()) - int64(g.stddev/2)
			for dev+int64(sum) >= int64(n) {
				dev /= 2
			}
			sum = uint64(int64(sum) + dev)
		}
		return (sum*goldenRatio64 + g.randOff) % n
	case fio.DistZoned, fio.DistZonedAbs:
		// a zone by its access share (fio draws 1..100 against the cumulative
		// shares; here a draw in (0, 100] so fractional shares work), then
		// uniform inside it
		v := (1 - g.rnd.Float64()) * 100
		for i, c := range g.zoneAccess {
			if v <= c+1e-9 || i == len(g.zoneAccess)-1 {
				if g.zoneLen[i] == 0 {
					return g.zoneStart[i] % n
				}
				return (g.zoneStart[i] + g.rnd.Uint64()%g.zoneLen[i]) % n
			}
		}
	}
	return g.rnd.Uint64() % n
}
