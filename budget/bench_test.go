package budget_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/blkmq/blkmq/budget"
	"github.com/blkmq/blkmq/tagset"
)

// BenchmarkIOPath measures the per-I/O CPU cost of the tag and budget steps on
// real code, in the setup of seed 003 (scsi_debug host_max_queue=192,
// submit_queues=nproc): host-wide tags of depth 192, one LUN with queue_depth
// 192 = can_queue. Each goroutine (one per GOMAXPROCS, b.RunParallel) does
// driver tag get → budget get → budget put → driver tag put. budget=map is the
// current kernel (an sbitmap get/put on the LUN's budget map per I/O);
// budget=skip is the proposal (no map: get always succeeds); budget=counter is
// the v4.15–v5.12 device_busy atomic counter, for comparison.
//
// Metrics: ns/op is wall time per I/O over all goroutines; "ns/IO-core" is CPU
// time per I/O on one core (ns/op × GOMAXPROCS) and "IOPS/core" its inverse.
func BenchmarkIOPath(b *testing.B) {
	for _, c := range []struct {
		name          string
		skip, counter bool
	}{{"budget=map", false, false}, {"budget=skip", true, false}, {"budget=counter", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			procs := runtime.GOMAXPROCS(0)
			set, err := tagset.New(tagset.Config{NrHwQueues: procs, QueueDepth: 192, HostTagset: true, NrCPUs: procs})
			if err != nil {
				b.Fatal(err)
			}
			q, err := set.AddQueue(tagset.QueueConfig{})
			if err != nil {
				b.Fatal(err)
			}
			h, err := budget.NewHost(budget.HostConfig{CanQueue: 192, NrHwQueues: procs, HostTagset: true,
				Options: budget.Options{BudgetMapSkip: c.skip, DeviceBusyCounter: c.counter}})
			if err != nil {
				b.Fatal(err)
			}
			tg, _ := h.NewTarget(0, false)
			d, err := h.NewDevice(tg, 192)
			if err != nil {
				b.Fatal(err)
			}
			if d.HasBudgetMap() == (c.skip || c.counter) {
				b.Fatalf("HasBudgetMap = %v with skip = %v", d.HasBudgetMap(), c.skip)
			}
			var next atomic.Int32
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				cpu := int(next.Add(1)-1) % procs
				hctx := q.Hctx(cpu)
				hint := d.InitHint(uint64(cpu))
				for pb.Next() {
					tag := hctx.GetDriverTag(cpu, false)
					tok, _ := d.GetBudget(&hint)
					d.PutBudget(tok, &hint)
					hctx.PutDriverTag(tag, cpu)
				}
			})
			nsPerIOCore := float64(b.Elapsed().Nanoseconds()) * float64(procs) / float64(b.N)
			b.ReportMetric(nsPerIOCore, "ns/IO-core")
			b.ReportMetric(1e9/nsPerIOCore, "IOPS/core")
		})
	}
}

// BenchmarkGetBudgetFull measures a failed budget get on a LUN whose budget map is
// full (queue_depth 32 of a 256-deep host, all 32 held): the case a dispatch loop meets
// after every completion-less run. The busy count kept beside the map answers it
// without walking the map's words or counting bits.
func BenchmarkGetBudgetFull(b *testing.B) {
	h, err := budget.NewHost(budget.HostConfig{CanQueue: 256, NrHwQueues: 1})
	if err != nil {
		b.Fatal(err)
	}
	tg, _ := h.NewTarget(0, false)
	d, err := h.NewDevice(tg, 32)
	if err != nil {
		b.Fatal(err)
	}
	hint := d.InitHint(1)
	for range 32 {
		if tok, _ := d.GetBudget(&hint); tok < 0 {
			b.Fatal("budget map full too early")
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if tok, _ := d.GetBudget(&hint); tok >= 0 {
			b.Fatal("got budget from a full map")
		}
	}
}

// BenchmarkIOPathHeld is BenchmarkIOPath's budget=map and budget=skip loop on one
// goroutine with held of the 192 driver tags and budgets already taken (held by
// earlier I/Os still in flight): the search sbitmap_get does from the per-CPU hint
// when almost every bit of the words is set. Seed 003's job never gets there: with
// delay=0 scsi_debug answers inside queuecommand (schedule_resp: delta_jiff == 0 →
// respond_in_thread → scsi_done), so each command's tag and budget are put before the
// next is dispatched and the maps hold at most one bit, whatever fio's iodepth; this
// measures what a device that keeps its commands would pay.
func BenchmarkIOPathHeld(b *testing.B) {
	for _, held := range []int{0, 96, 184, 191} {
		for _, skip := range []bool{false, true} {
			name := fmt.Sprintf("held=%d/budget=map", held)
			if skip {
				name = fmt.Sprintf("held=%d/budget=skip", held)
			}
			b.Run(name, func(b *testing.B) {
				set, err := tagset.New(tagset.Config{NrHwQueues: 1, QueueDepth: 192, HostTagset: true, NrCPUs: 1})
				if err != nil {
					b.Fatal(err)
				}
				q, err := set.AddQueue(tagset.QueueConfig{})
				if err != nil {
					b.Fatal(err)
				}
				h, err := budget.NewHost(budget.HostConfig{CanQueue: 192, NrHwQueues: 1, HostTagset: true,
					Options: budget.Options{BudgetMapSkip: skip}})
				if err != nil {
					b.Fatal(err)
				}
				tg, _ := h.NewTarget(0, false)
				d, err := h.NewDevice(tg, 192)
				if err != nil {
					b.Fatal(err)
				}
				hctx := q.Hctx(0)
				hint := d.InitHint(0)
				for range held {
					if tag := hctx.GetDriverTag(0, false); tag < 0 {
						b.Fatal("driver tags exhausted while filling")
					}
					if tok, _ := d.GetBudget(&hint); tok < 0 {
						b.Fatal("budget exhausted while filling")
					}
				}
				b.ResetTimer()
				for b.Loop() {
					tag := hctx.GetDriverTag(0, false)
					tok, _ := d.GetBudget(&hint)
					if tag < 0 || tok < 0 {
						b.Fatal("no tag or budget with one left")
					}
					d.PutBudget(tok, &hint)
					hctx.PutDriverTag(tag, 0)
				}
			})
		}
	}
}
