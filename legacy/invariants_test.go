package legacy

import (
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/sim"
)

// countEnd counts completions per bio.
type countEnd struct{ ends map[*Bio]int }

func (c *countEnd) EndIO(b *Bio, _ sim.Time) { c.ends[b]++ }

// Random bios (mergeable neighbours, both directions, sync and async, with and
// without a plug, a tiny request pool) against a device that completes commands
// in random order: every bio ends exactly once, the tag map never exceeds the
// async limit for async requests, and the queue drains completely.
func TestRandomWorkloadInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		for _, old := range []bool{true, false} {
			name := fmt.Sprintf("seed=%d/old=%v", seed, old)
			t.Run(name, func(t *testing.T) {
				rnd := sim.NewRand(seed)
				var elv Elevator = NewNoop()
				if seed%2 == 0 {
					elv, _ = NewDeadline(DefaultDeadlineParams())
				}
				q, dev, eng := newTestQueue(Config{QueueDepth: 1 + int(seed%4), PreA6b3f7614ca6: old,
					NrRequests: 3, MaxSectorsBytes: 64 * kib, MaxSegments: 8, Elevator: elv})
				ce := &countEnd{ends: map[*Bio]int{}}
				var all []*Bio
				var waiting []*Bio
				plug := q.StartPlug()
				for step := 0; step < 400; step++ {
					switch r := rnd.IntN(10); {
					case r < 6 && len(waiting) == 0:
						op := device.Op(rnd.IntN(2))
						b := bio(op, rnd.IntN(2) == 0, int64(rnd.IntN(64))*4*kib, int64(1+rnd.IntN(4))*4*kib, ce)
						all = append(all, b)
						var p *Plug
						if rnd.IntN(2) == 0 {
							p = plug
						}
						if q.SubmitBio(b, p) {
							waiting = append(waiting, b)
							sync := b.Sync || b.Op == device.OpRead
							q.WaitRequest(sync, sim.HandlerFunc(func(sim.Time) {
								w := waiting[0]
								waiting = waiting[1:]
								if q.SubmitBio(w, nil) {
									t.Fatalf("woken submitter blocked again")
								}
							}))
						}
					case r < 7:
						plug.Flush()
					default:
						if len(dev.cmds) > 0 {
							dev.complete(rnd.IntN(len(dev.cmds)))
						}
					}
					checkTags(t, q)
				}
				plug.Finish()
				for guard := 0; len(dev.cmds) > 0 || len(waiting) > 0; guard++ {
					if guard > 10000 || len(dev.cmds) == 0 {
						t.Fatalf("did not drain: %d commands, %d waiting, %d queued, %d dispatch",
							len(dev.cmds), len(waiting), q.elv.Queued(), len(q.dispatch))
					}
					dev.complete(0)
					checkTags(t, q)
				}
				eng.Run()
				for i, b := range all {
					if ce.ends[b] != 1 {
						t.Fatalf("bio %d (%+v) ended %d times", i, *b, ce.ends[b])
					}
				}
				if q.Allocated(true)+q.Allocated(false) != 0 || q.elv.Queued() != 0 || len(q.dispatch) != 0 || len(q.hash) != 0 {
					t.Errorf("not empty: allocated %d/%d, elevator %d, dispatch %d, hash %d",
						q.Allocated(false), q.Allocated(true), q.elv.Queued(), len(q.dispatch), len(q.hash))
				}
			})
		}
	}
}

func checkTags(t *testing.T, q *Queue) {
	t.Helper()
	s, a := q.Tags().InFlight()
	if s+a > q.cfg.QueueDepth {
		t.Fatalf("%d tags in flight > depth %d", s+a, q.cfg.QueueDepth)
	}
	for _, c := range q.dev.(*holdDev).cmds {
		rq := c.Priv.(*Request)
		if !rq.sync && q.cfg.QueueDepth > 1 {
			lim := q.cfg.QueueDepth - 2
			if !q.cfg.PreA6b3f7614ca6 && q.cfg.QueueDepth == 3 {
				lim = 2
			}
			lim = max(lim, 1)
			if rq.tag >= lim {
				t.Fatalf("async request on tag %d, limit %d", rq.tag, lim)
			}
		}
		if rq.length > q.cfg.MaxSectorsBytes || rq.segments > q.cfg.MaxSegments {
			t.Fatalf("request %v above limits (%d segments)", rq, rq.segments)
		}
	}
}
