package fio

import "strconv"

// DepthStats are fio's I/O depth distributions of one job instance (stat.c
// io_u_map, io_u_submit, io_u_complete), counted over the measurement window:
// Level[i] counts I/Os queued while the job had 1, 2, 4, 8, 16, 32 or ≥ 64 I/Os
// in flight (io_u_mark_depth); Submit[i] and Complete[i] count the submitting
// calls and the reaping calls by how many I/Os each carried: 0, 1–4, 5–8,
// 9–16, 17–32, 33–64, > 64 (io_u_mark_submit, io_u_mark_complete).
type DepthStats struct {
	Level, Submit, Complete    [7]int64
	TotalSubmit, TotalComplete int64
	totalLevel                 int64
}

// MarkDepth counts nr I/Os queued with cur I/Os in flight.
func (d *DepthStats) MarkDepth(cur, nr int) {
	idx := 6
	switch {
	case cur <= 1:
		idx = 0
	case cur < 4:
		idx = 1
	case cur < 8:
		idx = 2
	case cur < 16:
		idx = 3
	case cur < 32:
		idx = 4
	case cur < 64:
		idx = 5
	}
	d.Level[idx] += int64(nr)
	d.totalLevel += int64(nr)
}

func batchIdx(nr int) int {
	switch {
	case nr <= 0:
		return 0
	case nr <= 4:
		return 1
	case nr <= 8:
		return 2
	case nr <= 16:
		return 3
	case nr <= 32:
		return 4
	case nr <= 64:
		return 5
	}
	return 6
}

// MarkSubmit counts one submitting call of nr I/Os.
func (d *DepthStats) MarkSubmit(nr int) { d.Submit[batchIdx(nr)]++; d.TotalSubmit++ }

// MarkComplete counts one reaping call of nr I/Os.
func (d *DepthStats) MarkComplete(nr int) { d.Complete[batchIdx(nr)]++; d.TotalComplete++ }

// Add merges o into d (group reporting).
func (d *DepthStats) Add(o *DepthStats) {
	for i := range d.Level {
		d.Level[i] += o.Level[i]
		d.Submit[i] += o.Submit[i]
		d.Complete[i] += o.Complete[i]
	}
	d.TotalSubmit += o.TotalSubmit
	d.TotalComplete += o.TotalComplete
	d.totalLevel += o.totalLevel
}

func dist(counts []int64, total int64) []float64 {
	out := make([]float64, len(counts))
	if total == 0 {
		return out
	}
	for i, c := range counts {
		out[i] = 100 * float64(c) / float64(total)
	}
	return out
}

// jsonMaps returns fio's iodepth_level, iodepth_submit and iodepth_complete
// objects (percentages; keys as fio writes them).
func (d *DepthStats) jsonMaps() (level, submit, complete map[string]float64) {
	level, submit, complete = map[string]float64{}, map[string]float64{}, map[string]float64{}
	for i, v := range dist(d.Level[:], d.totalLevel) {
		k := strconv.Itoa(1 << i)
		if i == 6 {
			k = ">=64"
		}
		level[k] = v
	}
	sk := func(i int) string {
		switch i {
		case 0:
			return "0"
		case 6:
			return ">=64"
		}
		return strconv.Itoa(1 << (i + 1))
	}
	for i, v := range dist(d.Submit[:], d.TotalSubmit) {
		submit[sk(i)] = v
	}
	for i, v := range dist(d.Complete[:], d.TotalComplete) {
		complete[sk(i)] = v
	}
	return level, submit, complete
}
