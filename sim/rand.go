package sim

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Rand is a seeded pseudo-random source (math/rand/v2 PCG) with the distributions the
// models need, in virtual-time units. Two Rands built with the same seed return the same
// sequence on every platform. A Rand is not safe for concurrent use.
type Rand struct {
	pcg rand.PCG
	r   *rand.Rand
}

// seedStream is the second PCG seed word. It is a fixed constant (the 64-bit golden
// ratio) so that a single uint64 seed selects the stream; its value is arbitrary.
const seedStream = 0x9e3779b97f4a7c15

// NewRand returns a PCG-backed Rand seeded with (seed, a fixed stream constant).
func NewRand(seed uint64) *Rand {
	r := &Rand{}
	r.pcg.Seed(seed, seedStream)
	r.r = rand.New(&r.pcg)
	return r
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// IntN returns a uniform int in [0, n). It panics if n <= 0.
func (r *Rand) IntN(n int) int {
	if n <= 0 {
		panic("sim: IntN with n <= 0")
	}
	return int(r.below(uint64(n)))
}

// Int64N returns a uniform int64 in [0, n). It panics if n <= 0.
func (r *Rand) Int64N(n int64) int64 {
	if n <= 0 {
		panic("sim: Int64N with n <= 0")
	}
	return int64(r.below(uint64(n)))
}

// below returns a uniform value in [0, n), n > 0, drawn from the PCG state directly
// rather than through rand.Rand's Source interface. It is the reduction math/rand/v2's
// Rand.Uint64N makes (a mask for a power of two, else the high word of the 128-bit
// product of a draw and n, drawing again while the low word falls in the 2^64 mod n
// values that would bias it: Lemire's method), so the values are the ones Uint64N
// returned from the same state (TestBelowSameAsUint64N).
func (r *Rand) below(n uint64) uint64 {
	if n&(n-1) == 0 {
		return r.pcg.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.pcg.Uint64(), n)
	if lo < n {
		reject := -n % n // 2^64 mod n
		for lo < reject {
			hi, lo = bits.Mul64(r.pcg.Uint64(), n)
		}
	}
	return hi
}

// Float64 returns a uniform float64 in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// Uniform returns a uniform Time in [lo, hi]. It panics if hi < lo.
func (r *Rand) Uniform(lo, hi Time) Time {
	if hi < lo {
		panic(fmt.Sprintf("sim: Uniform with hi %v < lo %v", hi, lo))
	}
	span := uint64(hi-lo) + 1 // in uint64: [MinInt64, MaxInt64] spans 2^64 values
	if span == 0 {
		return Time(r.pcg.Uint64())
	}
	return lo + Time(r.below(span))
}

// Exp returns an exponentially distributed Time with the given mean (ns), rounded to the
// nearest nanosecond. It panics if mean < 0.
func (r *Rand) Exp(mean Time) Time {
	if mean < 0 {
		panic(fmt.Sprintf("sim: Exp with negative mean %v", mean))
	}
	return Time(math.Round(r.r.ExpFloat64() * float64(mean)))
}

// NormalClipped returns a normally distributed Time with the given mean and standard
// deviation, clipped to [lo, hi] (values outside are set to the nearer bound, not
// redrawn). It panics if sd < 0 or hi < lo.
func (r *Rand) NormalClipped(mean, sd, lo, hi Time) Time {
	if sd < 0 || hi < lo {
		panic(fmt.Sprintf("sim: NormalClipped with sd %v < 0 or hi %v < lo %v", sd, hi, lo))
	}
	v := float64(mean) + r.r.NormFloat64()*float64(sd)
	switch {
	case v <= float64(lo):
		return lo
	case v >= float64(hi):
		return hi
	}
	return Time(math.Round(v))
}
