package sim

import (
	"math/rand/v2"
	"testing"
)

// TestBelowSameAsUint64N: Rand's own bounded draws (IntN, Int64N, Uniform) return what
// math/rand/v2's Rand returns from the same PCG state, bounds of every kind included:
// powers of two, small bounds, and bounds near 2^63 and 2^64 where draws are rejected.
func TestBelowSameAsUint64N(t *testing.T) {
	bounds := []uint64{1, 2, 3, 5, 7, 10, 64, 100, 1000, 1 << 20, 1<<20 + 1, 3_000_000_007,
		1<<62 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, 3 << 62, 1<<64 - 1}
	for seed := uint64(1); seed <= 4; seed++ {
		r := NewRand(seed)
		ref := rand.New(rand.NewPCG(seed, seedStream))
		for i := 0; i < 20000; i++ {
			n := bounds[i%len(bounds)]
			if got, want := r.below(n), ref.Uint64N(n); got != want {
				t.Fatalf("seed %d draw %d: below(%d) = %d, Uint64N = %d", seed, i, n, got, want)
			}
			if n <= 1<<62 {
				if got, want := r.IntN(int(n)), ref.IntN(int(n)); got != want {
					t.Fatalf("seed %d draw %d: IntN(%d) = %d, rand.IntN = %d", seed, i, n, got, want)
				}
				if got, want := r.Int64N(int64(n)), ref.Int64N(int64(n)); got != want {
					t.Fatalf("seed %d draw %d: Int64N(%d) = %d, rand.Int64N = %d", seed, i, n, got, want)
				}
				lo := Time(i) - 500
				if got, want := r.Uniform(lo, lo+Time(n)-1), lo+Time(ref.Uint64N(n)); got != want {
					t.Fatalf("seed %d draw %d: Uniform over %d values = %d, want %d", seed, i, n, got, want)
				}
			}
		}
	}
}
