package fio

import (
	"cmp"
	"slices"
	"time"
)

// Report is the results of one run arranged as fio prints them.
type Report struct {
	// Jobs has one entry per job instance, except that a job with
	// group_reporting is merged into the entry before it when both are in
	// the same group (fio stat.c, __show_run_stats). Order is the input's.
	Jobs []*Result
	// Sources has, per entry of Jobs, the indices of the input results it
	// holds (one, or a group_reporting group's).
	Sources [][]int
	// Groups has the "Run status group N" aggregates, by increasing GroupID.
	Groups []*GroupStatus
}

// GroupStatus is one reporting group's aggregate (fio's group_run_stats),
// computed, as fio does, over the group's report entries: its instances,
// or its one merged entry under group_reporting.
type GroupStatus struct {
	GroupID int
	Dirs    [NrDirs]GroupDir
}

// GroupDir is a group's aggregate for one direction. Directions without I/O
// are all zero.
type GroupDir struct {
	IOBytes int64 // bytes, summed over the group's jobs
	// AggBW is IOBytes over MaxRuntime, bytes/s; MinBW and MaxBW are the
	// lowest and highest bandwidths of the group's entries, bytes/s.
	AggBW, MinBW, MaxBW float64
	// MinRuntime and MaxRuntime span the jobs' runtimes.
	MinRuntime, MaxRuntime time.Duration
}

// NewReport arranges per-instance results (from Collector.Finish, in Spec
// order) into fio's per-job entries and group aggregates. Entries that are
// merged are new Results; the inputs are not modified.
func NewReport(results []*Result) *Report {
	rep := &Report{}
	var pending []*Result
	var idx []int
	flush := func() {
		if len(pending) > 0 {
			rep.Sources = append(rep.Sources, idx)
			idx = nil
		}
		if len(pending) == 1 {
			rep.Jobs = append(rep.Jobs, pending[0])
		} else if len(pending) > 1 {
			rep.Jobs = append(rep.Jobs, Merge(pending...))
		}
		pending = nil
	}
	for i, r := range results {
		if len(pending) > 0 && (!r.GroupReporting || r.GroupID != pending[len(pending)-1].GroupID) {
			flush()
		}
		pending = append(pending, r)
		idx = append(idx, i)
	}
	flush()
	rep.Groups = groupStatus(rep.Jobs)
	return rep
}

// groupStatus computes the group aggregates (fio stat.c, __show_run_stats).
func groupStatus(entries []*Result) []*GroupStatus {
	byID := map[int]*GroupStatus{}
	var groups []*GroupStatus
	for _, r := range entries {
		g := byID[r.GroupID]
		if g == nil {
			g = &GroupStatus{GroupID: r.GroupID}
			byID[r.GroupID] = g
			groups = append(groups, g)
		}
		for i := range r.Dirs {
			d, gd := &r.Dirs[i], &g.Dirs[i]
			if d.Runtime == 0 {
				continue
			}
			if gd.MaxRuntime == 0 {
				gd.MinRuntime, gd.MinBW, gd.MaxBW = d.Runtime, d.BW, d.BW
			}
			gd.MinRuntime, gd.MaxRuntime = min(gd.MinRuntime, d.Runtime), max(gd.MaxRuntime, d.Runtime)
			gd.MinBW, gd.MaxBW = min(gd.MinBW, d.BW), max(gd.MaxBW, d.BW)
			gd.IOBytes += d.IOBytes
		}
	}
	for _, g := range groups {
		for i := range g.Dirs {
			if gd := &g.Dirs[i]; gd.MaxRuntime > 0 {
				gd.AggBW = float64(gd.IOBytes) / gd.MaxRuntime.Seconds()
			}
		}
	}
	slices.SortFunc(groups, func(a, b *GroupStatus) int { return cmp.Compare(a.GroupID, b.GroupID) })
	return groups
}

// group returns the aggregate of group id, or nil.
func (r *Report) group(id int) *GroupStatus {
	for _, g := range r.Groups {
		if g.GroupID == id {
			return g
		}
	}
	return nil
}

// bwAggPercent is fio's "per=" / bw_agg: the entry's mean interval
// bandwidth as a percentage of its group's aggregate, at most 100; 100 when
// the aggregate is at most 1 KiB/s; 0 without samples (stat.c,
// convert_agg_kbytes_percent).
func (r *Report) bwAggPercent(e *Result, d Dir) float64 {
	s := &e.Dirs[d].BWSamples
	if s.N == 0 {
		return 0
	}
	g := r.group(e.GroupID)
	if g == nil || g.Dirs[d].AggBW <= 1024 {
		return 100
	}
	return min(100, s.Mean*100/(g.Dirs[d].AggBW/1024))
}
