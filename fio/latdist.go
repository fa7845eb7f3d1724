package fio

import (
	"bufio"
	"fmt"
	"strings"
)

// LatencyDist counts a job's completions by completion latency in fio's
// coarse buckets (io_u.c, io_u_mark_lat_nsec/usec/msec; the JSON
// latency_ns, latency_us and latency_ms objects), all directions together.
// Bucket i of each array holds latencies, in the array's unit, from the
// previous bound up to (excluding) the i-th of 2, 4, 10, 20, 50, 100, 250,
// 500, 750, 1000, 2000; the last bucket of Ns and Us ends at 1000 and
// Ms[11] holds 2000 ms and more.
type LatencyDist struct {
	Ns [10]int64 // latencies below 1 us
	Us [10]int64 // 1 us .. below 1 ms
	Ms [12]int64 // 1 ms and above
}

// latencyBounds are the bucket upper bounds (exclusive) fio labels its
// latency buckets with.
var latencyBounds = [...]int64{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000}

// latencyKeys are the JSON keys of the buckets, in order.
var latencyKeys = [...]string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"}

// bucket returns the index of v (in the bucket's unit) among n buckets.
func latencyBucket(v int64, n int) int {
	for i := range n - 1 {
		if v < latencyBounds[i] {
			return i
		}
	}
	return n - 1
}

// add counts one completion latency in ns.
func (l *LatencyDist) add(ns int64) {
	switch {
	case ns < 1000:
		l.Ns[latencyBucket(ns, len(l.Ns))]++
	case ns < 1_000_000:
		l.Us[latencyBucket(ns/1000, len(l.Us))]++
	default:
		l.Ms[latencyBucket(ns/1_000_000, len(l.Ms))]++
	}
}

func (l *LatencyDist) sum(o *LatencyDist) {
	for i := range l.Ns {
		l.Ns[i] += o.Ns[i]
		l.Us[i] += o.Us[i]
	}
	for i := range l.Ms {
		l.Ms[i] += o.Ms[i]
	}
}

// percents converts counts to percentages of total the way fio's
// stat_calc_lat does: a non-empty bucket shows at least 0.01%.
func percents(counts []int64, total int64) map[string]float64 {
	m := make(map[string]float64, len(counts))
	for i, c := range counts {
		p := 0.0
		if total > 0 {
			p = 100 * float64(c) / float64(total)
			if c > 0 && p < 0.01 {
				p = 0.01
			}
		}
		m[latencyKeys[i]] = p
	}
	return m
}

// writeLatencyDistText prints fio's "lat (usec)   : 250=89.61%, ..." lines,
// five buckets per line, empty buckets left out (stat.c, show_lat).
func writeLatencyDistText(w *bufio.Writer, l *LatencyDist, total int64) {
	if total == 0 {
		return
	}
	for _, u := range []struct {
		unit   string
		counts []int64
	}{{"nsec", l.Ns[:]}, {"usec", l.Us[:]}, {"msec", l.Ms[:]}} {
		var parts []string
		for i, c := range u.counts {
			if c == 0 {
				continue
			}
			p := max(100*float64(c)/float64(total), 0.01)
			parts = append(parts, fmt.Sprintf("%s=%3.2f%%", latencyKeys[i], p))
		}
		for i := 0; i < len(parts); i += 5 {
			fmt.Fprintf(w, "  lat (%s)   : %s\n", u.unit, strings.Join(parts[i:min(i+5, len(parts))], ", "))
		}
	}
}
