package dispatch

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

// parts cuts the I/O [off, off+n) as SubmitBio does.
func parts(lim QueueLimits, off, n int64) []int64 {
	q := &Queue{limits: lim.withDefaults(1280)}
	b := &Bio{Offset: off, Length: n}
	var out []int64
	for p := off; p < off+n; {
		l := q.nextPart(b, p)
		out = append(out, l)
		p += l
	}
	return out
}

func TestSplitParts(t *testing.T) {
	const k, m = 1024, 1 << 20
	rep := func(n int, v int64, tail ...int64) []int64 {
		var out []int64
		for range n {
			out = append(out, v)
		}
		return append(out, tail...)
	}
	tests := []struct {
		name    string
		lim     QueueLimits
		off, n  int64
		want    []int64
		merge   int64
		maxIOAt int64
	}{
		{name: "max_sectors_kb=128: 1 MiB is 8 requests", lim: QueueLimits{MaxSectors: 256}, n: m, want: rep(8, 128*k), merge: 128 * k},
		// null_blk: BLK_SAFE_MAX_SECTORS (255 sectors): parts end inside a page
		{name: "null_blk 255 sectors", lim: QueueLimits{MaxSectors: 255, MaxSegments: 128}, n: m, want: rep(8, 255*512, 4096), merge: 255 * 512},
		// NVMe PCIe: 127 segments (NVME_MAX_SEGS) bind before max_sectors_kb 1280
		{name: "nvme 127 segments", lim: QueueLimits{MaxSectors: 2560, MaxHwSectors: 8192, MaxSegments: 127}, n: m, want: []int64{127 * 4096, 127 * 4096, 8192}, merge: 127 * 4096},
		{name: "fits: no split", lim: QueueLimits{MaxSectors: 2560}, n: 512 * k, want: []int64{512 * k}, merge: 1280 * k},
		// max_sectors above 1 MiB: the direct-I/O bios of 256 pages are the parts
		{name: "4 MiB in 1 MiB dio bios", lim: QueueLimits{MaxSectors: 8192}, n: 4 * m, want: rep(4, m), merge: 4 * m},
		// a 4 KiB physical block: the first part ends on a physical-block boundary
		{name: "unaligned start, 4 KiB physical blocks", lim: QueueLimits{MaxSectors: 256, PhysicalBlockSize: 4096}, off: 512, n: 256 * k,
			want: []int64{128*k - 512, 128 * k, 512}, merge: 128 * k},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parts(tt.lim, tt.off, tt.n)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("parts (-want +got):\n%s", d)
			}
			lim := tt.lim.withDefaults(1280)
			if g := lim.mergeBytes(); g != tt.merge {
				t.Errorf("mergeBytes = %d, want %d", g, tt.merge)
			}
		})
	}
}

func TestQueueLimitsRejected(t *testing.T) {
	for _, lim := range []QueueLimits{
		{MaxSectors: 4},
		{MaxSectors: 512, MaxHwSectors: 256},
		{MaxSegments: -1},
		{MaxSegmentSize: 2048},
		{LogicalBlockSize: 1000},
		{LogicalBlockSize: 4096, PhysicalBlockSize: 512},
	} {
		if err := lim.withDefaults(1280).validate(); err == nil {
			t.Errorf("%+v: no error", lim)
		}
	}
}

// splitTask submits one I/O and records its completions.
type splitTask struct {
	tw        TagWaiter
	bio       Bio
	done      int
	unblocked int
	doneAt    sim.Time
}

func (s *splitTask) WakeCPU(sim.Time) int                 { return 0 }
func (s *splitTask) Unblocked(*Bio, sim.Time)             { s.unblocked++ }
func (s *splitTask) EndBio(_ *Bio, now sim.Time, _ error) { s.done++; s.doneAt = now }

func TestSplitIOEndToEnd(t *testing.T) {
	tests := []struct {
		name      string
		canQueue  int
		qd        int
		wantRes   SubmitResult
		unblocked int
	}{
		// 64 tags: every part gets one at once
		{name: "enough tags", canQueue: 64, qd: 64, wantRes: Queued},
		// 2 tags: the task sleeps in blk_mq_get_tag between parts, and returns once
		{name: "two tags", canQueue: 2, qd: 2, wantRes: Sleeping, unblocked: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: tt.canQueue},
				testLUN{QueueDepth: tt.qd, Elevator: "none", MaxSectorsKB: 128},
				device.NullParams{CompletionNsec: 100 * sim.Microsecond})
			s := &splitTask{}
			s.tw.S = s
			s.bio = Bio{Op: device.OpRead, Length: 1 << 20, Sync: true, End: s}
			if got := rig.q.SubmitBio(&s.bio, 0, false, &s.tw); got != tt.wantRes {
				t.Fatalf("SubmitBio = %v, want %v", got, tt.wantRes)
			}
			rig.eng.Run()
			st := rig.q.Stats()
			got := []uint64{uint64(s.done), uint64(len(rig.dev.order)), st.Dispatched, st.Completed, st.SplitIOs, st.SplitParts, uint64(s.unblocked)}
			want := []uint64{1, 8, 8, 8, 1, 8, uint64(tt.unblocked)}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("[fio completions, device commands, dispatched, completed, split I/Os, parts, unblocked] (-want +got):\n%s", d)
			}
			for i, off := range rig.dev.order {
				if off != int64(i)*128<<10 {
					t.Errorf("command %d at %d, want %d", i, off, i*128<<10)
				}
			}
			if len(rig.q.partPool) != 8 && tt.canQueue == 64 || s.bio.split != nil {
				t.Errorf("parts not returned to the pool: %d pooled, split state %v", len(rig.q.partPool), s.bio.split)
			}
		})
	}
}

func TestSplitNowaitIsEAGAIN(t *testing.T) {
	rig := newRig(t, HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: 64},
		testLUN{QueueDepth: 64, Elevator: "none", MaxSectorsKB: 128}, device.NullParams{CompletionNsec: sim.Microsecond})
	s := &splitTask{}
	s.bio = Bio{Op: device.OpRead, Length: 256 << 10, Sync: true, End: s}
	if got := rig.q.SubmitBio(&s.bio, 0, true, nil); got != WouldBlock {
		t.Fatalf("SubmitBio(nowait) = %v, want would-block", got)
	}
	rig.eng.Run()
	if st := rig.q.Stats(); st.Dispatched != 0 || st.SplitNowait != 1 || s.done != 0 {
		t.Errorf("dispatched %d, split-nowait %d, completions %d; want 0, 1, 0", st.Dispatched, st.SplitNowait, s.done)
	}
	// an I/O within the limits still goes inline
	s.bio = Bio{Op: device.OpRead, Length: 128 << 10, Sync: true, End: s}
	if got := rig.q.SubmitBio(&s.bio, 0, true, nil); got != Queued {
		t.Fatalf("SubmitBio(nowait, 128 KiB) = %v, want queued", got)
	}
}
