package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blkmq/blkmq/sim"
)

// curve runs n CPUs that each repeat: work ns of their own, then one operation on the
// shared object, 20000 operations in all, and returns the operations per µs.
func curve(n int, work sim.Time, op func(now, at sim.Time, cpu int) sim.Time) float64 {
	free := make([]sim.Time, n)
	rnd := rand.New(rand.NewPCG(1, uint64(n)))
	const ops = 20000
	for range ops {
		// The CPU whose timeline is furthest behind goes next (the engine's order);
		// ties, which are the contended case, are broken at random, as the
		// interconnect's arbitration does.
		now := slices.Min(free)
		c := -1
		seen := 0
		for i, f := range free {
			if f == now {
				seen++
				if rnd.IntN(seen) == 0 {
					c = i
				}
			}
		}
		free[c] += work
		free[c] += op(now, free[c], c)
	}
	return float64(ops) / (float64(slices.Max(free)) / 1e3)
}

func skylake(n int) *sim.Topology {
	s := 1
	if n > 1 {
		s = 2
	}
	t := sim.Topology{Sockets: s, CoresPerSocket: max(n/s, 1), ThreadsPerCore: 1,
		Costs: sim.TransferCosts{Self: 5, SMT: 5, Node: 50, Socket: 50, Remote: 109}}
	return &t
}

// TestContendedCurves checks the shapes the published measurements show and logs the
// model's curves (go test -v -run ContendedCurves ./sim): atomic and queued-lock
// throughput stay flat once the line is saturated (one transfer per operation), the
// ticket lock's falls with the number of CPUs (Boyd-Wickizer et al. 2012).
func TestContendedCurves(t *testing.T) {
	var rows []string
	var lastQ, lastT float64
	for _, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		top := skylake(n)
		a := sim.NewAtomicLine(top)
		q := sim.NewSpinLock(top, sim.Queued)
		k := sim.NewSpinLock(top, sim.Ticket)
		fa := curve(n, 0, a.RMW)
		fq := curve(n, 200, func(now, at sim.Time, c int) sim.Time { return q.LockData(now, at, c, 100, 2) })
		fk := curve(n, 200, func(now, at sim.Time, c int) sim.Time { return k.LockData(now, at, c, 100, 2) })
		rows = append(rows, fmt.Sprintf("| %d | %.1f | %.2f | %.2f |", n, fa, fq, fk))
		if n >= 8 && (fa < 8 || fa > 14) {
			t.Errorf("n=%d: atomic throughput %.1f Mops/s, want one transfer per RMW (half of them across sockets: 8-14)", n, fa)
		}
		if n >= 8 {
			if lastQ > 0 && fq < 0.9*lastQ {
				t.Errorf("n=%d: queued lock throughput %.2f fell from %.2f", n, fq, lastQ)
			}
			if lastT > 0 && fk >= lastT {
				t.Errorf("n=%d: ticket lock throughput %.2f did not fall from %.2f", n, fk, lastT)
			}
			lastQ, lastT = fq, fk
		}
	}
	t.Log("\n| CPUs | atomic RMW Mops/s | queued lock Mops/s (hold 100 + 2 lines, 200 ns outside) | ticket lock Mops/s |\n|---|---|---|---|\n" + strings.Join(rows, "\n"))
}
