package legacy

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
	"github.com/google/go-cmp/cmp"
)

const kib = 1024

// elevatorSizes lists the requests held by the elevator, by dispatching them into
// a throwaway slice (the queue is not used afterwards).
func elevatorSizes(q *Queue) []int64 {
	var out []int64
	for rq := q.elv.Dispatch(q.eng.Now()); rq != nil; rq = q.elv.Dispatch(q.eng.Now()) {
		out = append(out, rq.length/kib)
	}
	return out
}

func TestMergeLimits(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		bios func(end BioEndIO) []*Bio
		want []int64 // request sizes (KiB) left in the elevator, dispatch order
	}{
		{
			name: "max_sectors/back-merges-stop-at-512KiB",
			cfg:  Config{QueueDepth: 1},
			bios: func(e BioEndIO) (bs []*Bio) {
				for i := int64(0); i < 160; i++ { // 640 KiB in 4 KiB bios
					bs = append(bs, bio(device.OpWrite, false, 1<<20+i*4*kib, 4*kib, e))
				}
				return bs
			},
			want: []int64{512, 128},
		},
		{
			name: "max_segments/64-segments-of-4KiB",
			cfg:  Config{QueueDepth: 1, MaxSegments: 64},
			bios: func(e BioEndIO) (bs []*Bio) {
				for i := int64(0); i < 100; i++ {
					bs = append(bs, bio(device.OpWrite, false, 1<<20+i*4*kib, 4*kib, e))
				}
				return bs
			},
			want: []int64{256, 144},
		},
		{
			// The bio ending where a queued request starts merges in front of it,
			// found through the sort list (the request is not last_merge).
			name: "front-merge/deadline",
			cfg:  Config{QueueDepth: 1},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e),
					bio(device.OpWrite, false, 50<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{8, 4},
		},
		{
			// noop has no elevator_merge_fn: only last_merge could front-merge.
			name: "front-merge/noop-has-none",
			cfg:  Config{QueueDepth: 1, Elevator: NewNoop()},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e),
					bio(device.OpWrite, false, 50<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{4, 4, 4},
		},
		{
			name: "front-merge/noop-through-last_merge",
			cfg:  Config{QueueDepth: 1, Elevator: NewNoop()},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{8},
		},
		{
			// B back-merges into A (found through the hash), which then merges with
			// its sort successor C: one 12 KiB request (attempt_back_merge).
			name: "request-merge/back-then-latter",
			cfg:  Config{QueueDepth: 1},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e),
					bio(device.OpWrite, false, 50<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{12, 4},
		},
		{
			// B front-merges into C (last_merge), whose former request A then
			// absorbs it (attempt_front_merge).
			name: "request-merge/front-then-former",
			cfg:  Config{QueueDepth: 1},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e),
					bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{12},
		},
		{
			name: "request-merge/noop-latter-is-list-neighbour",
			cfg:  Config{QueueDepth: 1, Elevator: NewNoop()},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e),
					bio(device.OpWrite, false, 50<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{12, 4},
		},
		{
			name: "request-merge/limited-by-max_sectors",
			cfg:  Config{QueueDepth: 1, MaxSectorsBytes: 8 * kib},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+8*kib, 4*kib, e),
					bio(device.OpWrite, false, 50<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{8, 4, 4},
		},
		{
			name: "direction/read-never-merges-into-write",
			cfg:  Config{QueueDepth: 1},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20, 4*kib, e), bio(device.OpRead, true, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{4, 4},
		},
		{
			name: "nomerges",
			cfg:  Config{QueueDepth: 1, NoMerges: true},
			bios: func(e BioEndIO) []*Bio {
				return []*Bio{bio(device.OpWrite, false, 1<<20, 4*kib, e), bio(device.OpWrite, false, 1<<20+4*kib, 4*kib, e)}
			},
			want: []int64{4, 4},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, dev, _ := newTestQueue(tc.cfg)
			e := &nopEnd{}
			// Occupy the single tag with a read far away so the rest stays queued.
			q.SubmitBio(bio(device.OpRead, true, 0, 4*kib, e), nil)
			if len(dev.cmds) != 1 {
				t.Fatalf("device holds %d commands, want 1", len(dev.cmds))
			}
			// request_fn peeks the next request onto the dispatch list before it
			// finds the device busy (as scsi_request_fn does): a filler takes that
			// place, where it can no longer merge.
			q.SubmitBio(bio(device.OpWrite, false, 100<<20, 4*kib, e), nil)
			if got := len(q.DispatchList()); got != 1 {
				t.Fatalf("dispatch list holds %d requests, want the filler", got)
			}
			for _, b := range tc.bios(e) {
				if q.SubmitBio(b, nil) {
					t.Fatal("blocked")
				}
			}
			got := elevatorSizes(q)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("request sizes KiB (-want +got):\n%s", diff)
			}
		})
	}
}

// Bios submitted under a plug merge in the plug; the plug is flushed when it
// holds BlkMaxRequestCount requests, and on Finish.
func TestPlugMergeAndFlush(t *testing.T) {
	q, dev, _ := newTestQueue(Config{QueueDepth: 32, NrRequests: 128})
	e := &nopEnd{}
	p := q.StartPlug()
	// 20 discontiguous 8 KiB extents, each written as two 4 KiB bios.
	for i := int64(0); i < 20; i++ {
		for j := int64(0); j < 2; j++ {
			q.SubmitBio(bio(device.OpWrite, false, i*1<<20+j*4*kib, 4*kib, e), p)
		}
	}
	if got, want := p.Len(), 4; got != want {
		t.Errorf("plug holds %d requests after an automatic flush at 16, want %d", got, want)
	}
	if got, want := len(dev.cmds), 16; got != want {
		t.Errorf("device holds %d commands, want %d", got, want)
	}
	p.Finish()
	if got, want := len(dev.cmds), 20; got != want {
		t.Errorf("after Finish the device holds %d commands, want %d", got, want)
	}
	for _, c := range dev.cmds {
		if c.Length != 8*kib {
			t.Errorf("command %d+%d: want 8 KiB (plug merge)", c.Offset, c.Length)
		}
	}
	if s := q.Stats(); s.PlugMerges != 20 {
		t.Errorf("PlugMerges = %d, want 20", s.PlugMerges)
	}
}

// The request pool: the 129th async request blocks the submitter, who is woken
// when a request is freed.
func TestRequestPoolSleep(t *testing.T) {
	q, dev, eng := newTestQueue(Config{QueueDepth: 1, NrRequests: 4})
	e := &nopEnd{}
	for i := int64(0); i < 4; i++ {
		if q.SubmitBio(bio(device.OpWrite, false, i<<20, 4*kib, e), nil) {
			t.Fatalf("bio %d blocked", i)
		}
	}
	b := bio(device.OpWrite, false, 9<<20, 4*kib, e)
	if !q.SubmitBio(b, nil) {
		t.Fatal("5th request allocated with nr_requests 4")
	}
	woken := false
	q.WaitRequest(false, sim.HandlerFunc(func(sim.Time) { woken = true }))
	// A sync read has its own pool.
	if q.SubmitBio(bio(device.OpRead, true, 20<<20, 4*kib, e), nil) {
		t.Fatal("sync read blocked by a full async pool")
	}
	eng.Run()
	if woken {
		t.Fatal("woken before any request was freed")
	}
	dev.complete(0)
	if !woken {
		t.Fatal("not woken after a request was freed")
	}
}

// startView is the state after a step of TestStartTagRefusal.
type startView struct {
	Device   []cmdView
	Dispatch []string
}

func views(q *Queue, dev *holdDev) startView {
	v := startView{Device: dev.view()}
	for _, rq := range q.DispatchList() {
		v.Dispatch = append(v.Dispatch, rq.String())
	}
	return v
}

// Async requests are confined to the low-numbered tags: with three tags and the
// old formula, a sync request holding tag 0 blocks async writes even though tags
// 1 and 2 are free. The refused write waits at the head of the dispatch list
// (blocking the sync read behind it) and starts at the next completion. With the
// v3.11 formula the write takes tag 1.
func TestStartTagRefusal(t *testing.T) {
	const W, R = device.OpWrite, device.OpRead
	for _, tc := range []struct {
		name                  string
		old                   bool
		wantBefore, wantAfter startView
	}{
		{
			name: "004/old-formula/sync-on-tag0-blocks-async",
			old:  true,
			wantBefore: startView{
				Device:   []cmdView{{R, true, 0, 4 * kib, 0}},
				Dispatch: []string{"writeA@1048576+4096"},
			},
			// The completion of the read frees tag 0: the write starts on it and the
			// next read (dispatched by deadline after the write) takes tag 1.
			wantAfter: startView{
				Device: []cmdView{{W, false, 1 << 20, 4 * kib, 0}, {R, true, 8 << 20, 4 * kib, 1}},
			},
		},
		{
			name: "004/new-formula/async-takes-tag1",
			wantBefore: startView{
				Device: []cmdView{{R, true, 0, 4 * kib, 0}, {W, false, 1 << 20, 4 * kib, 1}, {R, true, 8 << 20, 4 * kib, 2}},
			},
			wantAfter: startView{
				Device: []cmdView{{W, false, 1 << 20, 4 * kib, 1}, {R, true, 8 << 20, 4 * kib, 2}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, dev, _ := newTestQueue(Config{QueueDepth: 3, PreA6b3f7614ca6: tc.old})
			e := &nopEnd{}
			q.SubmitBio(bio(R, true, 0, 4*kib, e), nil)
			q.SubmitBio(bio(W, false, 1<<20, 4*kib, e), nil)
			q.SubmitBio(bio(R, true, 8<<20, 4*kib, e), nil)
			if diff := cmp.Diff(tc.wantBefore, views(q, dev)); diff != "" {
				t.Errorf("before completion (-want +got):\n%s", diff)
			}
			dev.complete(0)
			if diff := cmp.Diff(tc.wantAfter, views(q, dev)); diff != "" {
				t.Errorf("after completion (-want +got):\n%s", diff)
			}
			if e.n != 1 {
				t.Errorf("%d bios completed, want 1", e.n)
			}
		})
	}
}

// Old formula, two async writes: the second is refused while the first holds tag
// 0 (in_flight[async] = 1 is not > 1, but tag 0 is the only async tag) and
// starts after the first completes.
func TestAsyncSingleTagOldFormula(t *testing.T) {
	q, dev, _ := newTestQueue(Config{QueueDepth: 3, PreA6b3f7614ca6: true})
	e := &nopEnd{}
	q.SubmitBio(bio(device.OpWrite, false, 0, 4*kib, e), nil)
	q.SubmitBio(bio(device.OpWrite, false, 1<<20, 4*kib, e), nil)
	if got := len(dev.cmds); got != 1 {
		t.Fatalf("device holds %d async writes, want 1", got)
	}
	if s := q.Stats(); s.TagRefusals[0] != 1 {
		t.Errorf("async refusals = %d, want 1", s.TagRefusals[0])
	}
	dev.complete(0)
	if diff := cmp.Diff([]cmdView{{device.OpWrite, false, 1 << 20, 4 * kib, 0}}, dev.view()); diff != "" {
		t.Errorf("after completion (-want +got):\n%s", diff)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{QueueDepth: 0}, {QueueDepth: 5000}, {QueueDepth: 3, NrRequests: -1},
		{QueueDepth: 3, MaxSectorsBytes: 1000}, {QueueDepth: 3, MaxSegments: -2},
		{QueueDepth: 3, IssueLatency: -1}, {QueueDepth: 3, CompletionLatency: -1},
	} {
		if _, err := New(sim.NewEngine(), &holdDev{}, c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestSubmitBioPanics(t *testing.T) {
	q, _, _ := newTestQueue(Config{QueueDepth: 1})
	for name, b := range map[string]*Bio{
		"nil-end":      {Op: device.OpRead, Length: 4096},
		"unaligned":    {Op: device.OpRead, Offset: 100, Length: 4096, End: &nopEnd{}},
		"above-limits": {Op: device.OpRead, Length: 1 << 20, End: &nopEnd{}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			q.SubmitBio(b, nil)
		})
	}
}

// busyOnce answers Busy to its first command, then holds commands like holdDev.
type busyOnce struct {
	holdDev
	refused bool
}

func (d *busyOnce) Submit(c *device.Command) device.Status {
	if !d.refused {
		d.refused = true
		return device.Busy
	}
	return d.holdDev.Submit(c)
}

// A device busy answer puts the request back at the head of the dispatch list,
// frees its tag and reruns the queue after SCSI_QUEUE_DELAY (3 ms).
func TestDeviceBusyRequeue(t *testing.T) {
	eng := sim.NewEngine()
	d := &busyOnce{holdDev: holdDev{eng: eng}}
	q, err := New(eng, d, Config{QueueDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	q.SubmitBio(bio(device.OpRead, true, 0, 4*kib, &nopEnd{}), nil)
	if got := len(q.DispatchList()); got != 1 {
		t.Fatalf("dispatch list holds %d, want the refused request", got)
	}
	if s, a := q.Tags().InFlight(); s+a != 0 {
		t.Fatalf("tags held after a busy answer: sync %d async %d", s, a)
	}
	eng.Run()
	if got, want := eng.Now(), ScsiQueueDelay; got != want {
		t.Errorf("rerun at %v, want %v", got, want)
	}
	if diff := cmp.Diff([]cmdView{{device.OpRead, true, 0, 4 * kib, 0}}, d.view()); diff != "" {
		t.Errorf("after the delayed run (-want +got):\n%s", diff)
	}
	if s := q.Stats(); s.DeviceBusy != 1 || s.Started[1] != 1 || s.ReadCmds != 1 {
		t.Errorf("DeviceBusy = %d, Started[sync] = %d, ReadCmds = %d; want 1, 1, 1", s.DeviceBusy, s.Started[1], s.ReadCmds)
	}
}
