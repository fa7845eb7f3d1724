package fio

import (
	"cmp"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
)

// DefaultHistogramBits is the latency histogram precision fio itself uses
// (FIO_IO_U_PLAT_BITS in fio's stat.h): each power-of-two range of values is
// split into 2^6 = 64 bins, so a bin's midpoint is within 1/128 (0.78%) of
// any value in it, and values below 128 ns are exact.
const DefaultHistogramBits = 6

// MaxHistogramBits bounds the histogram precision a Collector accepts: at
// 16 bits a histogram may grow to 19·2^16 bins (9.5 MiB) when every bin is hit.
const MaxHistogramBits = 16

// histMSB is the highest value bit the histogram resolves: values of 2^34 ns
// (17.2 s) and more fall in the last bin, as in fio (FIO_IO_U_PLAT_GROUP_NR
// 29 groups of 64 bins at 6 bits).
const histMSB = 33

// platHist is fio's latency histogram (stat.c: plat_val_to_idx,
// plat_idx_to_val, io_u_plat[]), with a configurable number of bits per
// group. Bins are stored per group (one page of 2^bits counters, allocated
// when a value first falls in it), so memory follows the range of values
// seen: at the default 6 bits a page is 512 B and a full histogram 14.5 KiB.
type platHist struct {
	bits  uint
	pages [][]uint64 // pages[g] holds bins g·2^bits … (g+1)·2^bits − 1; nil until used
}

func newPlatHist(b int) *platHist {
	return &platHist{bits: uint(b), pages: make([][]uint64, histNrBins(b)>>uint(b))}
}

// HistogramMaxBytes is the most memory one latency histogram of b bits takes
// (every bin hit): (35−b)·2^b counters of 8 bytes, 14.5 KiB at fio's 6 bits.
func HistogramMaxBytes(b int) int { return histNrBins(b) * 8 }

// histNrBins is the bin count at b bits: two linear groups for values below
// 2^(b+1), then one group per value bit up to histMSB.
func histNrBins(b int) int { return (histMSB - b + 2) << uint(b) }

// index returns the bin of v (plat_val_to_idx): values below 2^(bits+1) are
// their own bin; above, the value's top bits+1 bits select the bin.
func (h *platHist) index(v uint64) int {
	msb := 0
	if v != 0 {
		msb = bits.Len64(v) - 1
	}
	if msb <= int(h.bits) {
		return int(v)
	}
	eb := uint(msb) - h.bits
	idx := int((eb+1)<<h.bits) + int(v>>eb&(1<<h.bits-1))
	return min(idx, len(h.pages)<<h.bits-1)
}

// value returns the value fio reports for bin idx (plat_idx_to_val): the
// bin itself below 2^(bits+1), else the middle of the bin's range, truncated.
func (h *platHist) value(idx int) int64 {
	if idx < 2<<h.bits {
		return int64(idx)
	}
	eb := uint(idx>>h.bits) - 1
	base := uint64(1) << (eb + h.bits)
	k := uint64(idx) & (1<<h.bits - 1)
	// base + (k + 0.5)·2^eb, as fio computes it in floating point
	return int64(base + k<<eb + (uint64(1)<<eb)/2)
}

func (h *platHist) record(v int64) {
	i := h.index(uint64(v))
	g := i >> h.bits
	p := h.pages[g]
	if p == nil {
		p = make([]uint64, 1<<h.bits)
		h.pages[g] = p
	}
	p[i&(1<<h.bits-1)]++
}

// merge adds o's counts (fio's sum_thread_stats adds io_u_plat arrays).
func (h *platHist) merge(o *platHist) {
	if h.bits != o.bits {
		panic(fmt.Sprintf("fio: merging latency histograms of %d and %d bits", h.bits, o.bits))
	}
	for g, op := range o.pages {
		if op == nil {
			continue
		}
		if h.pages[g] == nil {
			h.pages[g] = make([]uint64, 1<<h.bits)
		}
		for i, c := range op {
			h.pages[g][i] += c
		}
	}
}

// percentiles returns, for each percent of plist, the value of the first bin
// at which the cumulative count reaches percent/100 of n
// (calc_clat_percentiles): one pass over the bins, the percents taken in
// increasing order.
func (h *platHist) percentiles(plist []float64, n int64) []int64 {
	out := make([]int64, len(plist))
	order := make([]int, len(plist))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(plist[a], plist[b]) })
	ranks := make([]uint64, len(plist))
	for i, p := range plist {
		ranks[i] = percentileRank(p, n)
	}
	j := 0
	var sum uint64
	for g, pg := range h.pages {
		for i, c := range pg {
			if c == 0 {
				continue
			}
			sum += c
			for j < len(order) && sum >= ranks[order[j]] {
				out[order[j]] = h.value(g<<h.bits + i)
				j++
			}
			if j == len(order) {
				return out
			}
		}
	}
	return out
}

// percentileRank returns the smallest cumulative count fio accepts for
// percent p of n samples: fio compares sum >= p / 100.0 * nr in long double
// (x87 extended precision, 64-bit mantissa), so the threshold is computed
// with that precision and rounding, and rounded up to an integer. (For
// p = 99.9 and n = 20000 the threshold is just above 19980: fio reports the
// 19981st sample.)
func percentileRank(p float64, n int64) uint64 {
	const prec = 64
	t := new(big.Float).SetPrec(prec).SetFloat64(p)
	t.Quo(t, new(big.Float).SetPrec(prec).SetInt64(100))
	t.Mul(t, new(big.Float).SetPrec(prec).SetInt64(n))
	r, _ := t.Uint64() // truncated
	if !t.IsInt() {
		r++
	}
	return min(max(r, 1), uint64(n))
}

// bins returns the non-empty bins in increasing order (fio json+ "bins").
func (h *platHist) bins() []Bin {
	var out []Bin
	for g, pg := range h.pages {
		for i, c := range pg {
			if c > 0 {
				out = append(out, Bin{Value: h.value(g<<h.bits + i), Count: int64(c)})
			}
		}
	}
	return out
}

// bytes returns the memory the histogram holds (bins and page table).
func (h *platHist) bytes() int {
	n := 24 * len(h.pages)
	for _, p := range h.pages {
		n += 8 * len(p)
	}
	return n
}
