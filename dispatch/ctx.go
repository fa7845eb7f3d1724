package dispatch

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// Ctx is a per-CPU software queue (struct blk_mq_ctx) of one request queue. Without an
// elevator, requests wait here until their hctx dispatches them.
type Ctx struct {
	cpu      int
	hctx     *Hctx
	indexHw  int // bit in hctx.ctxMap (ctx->index_hw)
	rqList   rqList
	nrMerges uint64
	lk       *sim.SpinLock // ctx->lock in the contention model (cpu.go listLockAt)
}

// CPU returns the CPU the software queue belongs to.
func (c *Ctx) CPU() int { return c.cpu }

// Hctx returns the hardware queue the ctx is mapped to.
func (c *Ctx) Hctx() *Hctx { return c.hctx }

// Len returns the number of requests queued in the ctx.
func (c *Ctx) Len() int { return c.rqList.n }

// MapQueues returns the hctx index of every CPU, as blk_mq_map_queues spreads nrCPUs
// CPUs over nrHwQueues queues (block/blk-mq-cpumap.c) under rule. It returns an error
// unless 1 <= nrHwQueues and 1 <= nrCPUs.
func MapQueues(nrCPUs, nrHwQueues int, rule MapQueuesRule) ([]int, error) {
	if nrCPUs < 1 {
		return nil, fmt.Errorf("dispatch: nr_cpus %d out of range [1, inf)", nrCPUs)
	}
	if nrHwQueues < 1 {
		return nil, fmt.Errorf("dispatch: nr_hw_queues %d out of range [1, inf)", nrHwQueues)
	}
	m := make([]int, nrCPUs)
	if rule == MapModulo {
		for cpu := range m {
			m[cpu] = cpu % nrHwQueues
		}
		return m, nil
	}
	// group_cpus_evenly: groups of nrCPUs/nrQueues CPUs, the first nrCPUs%nrQueues
	// groups one larger; with more queues than CPUs each CPU gets its own group.
	groups := min(nrHwQueues, nrCPUs)
	per, extra := nrCPUs/groups, nrCPUs%groups
	cpu := 0
	for g := 0; g < groups; g++ {
		n := per
		if g < extra {
			n++
		}
		for i := 0; i < n; i++ {
			m[cpu] = g
			cpu++
		}
	}
	return m, nil
}
