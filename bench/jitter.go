package bench

import "sync"

// JitterSeedParam is the Scale entry that carries a stack.Config.JitterSeed instead of
// a factor: the benchmarks give each iteration its own jitter stream (kblockd, wake-up
// and reap delays, tag hints), so that benchstat over -count shows the model's spread
// rather than ±0 %. Absent (the claims runner, sensitivity runs) = the default stream,
// so the claims' figures are unchanged. It is not a parameter of any scenario.
const JitterSeedParam = "bench.jitter-seed"

// jitterSeed returns the JitterSeed the Scale carries (0 = stack.DefaultJitterSeed).
func (s Scale) jitterSeed() uint64 { return uint64(s[JitterSeedParam]) }

// jitterRuns counts, per benchmark name, the runs handed a jitter seed so far in this
// process: successive iterations and successive -count rounds get seeds 1, 2, 3, …
var (
	jitterMu   sync.Mutex
	jitterRuns = map[string]uint64{}
)

// nextJitter returns a Scale with the next jitter seed of benchmark name.
func nextJitter(name string) Scale {
	jitterMu.Lock()
	defer jitterMu.Unlock()
	jitterRuns[name]++
	return Scale{JitterSeedParam: float64(jitterRuns[name])}
}
