package stack

import "github.com/blkmq/blkmq/sim"

// The emulated TLB's refill after a process switch (SubmitTiming.TLBWorkingSet).
//
// Basis (QEMU 7.2, the oracle's emulator; not the kernel's): with TCG every guest
// write to CR3 while paging is on goes to target/i386 cpu_x86_update_cr3, which calls
// tlb_flush on the vCPU: accel/tcg/cputlb.c flushes every MMU index's table
// (tlb_flush_by_mmuidx_async_work → tlb_flush_one_mmuidx_locked: the fast table is
// memset, the victim TLB cleared) and the vCPU's jump cache. Nothing survives: QEMU's
// softmmu keeps no PCID tags (the oracle's guest CPU, -cpu Nehalem, has no PCID
// anyway, so 6.1's switch_mm_irqs_off → load_new_mm_cr3 writes CR3 without NOFLUSH)
// and does not keep global (kernel) pages across the flush. After it, every 4 KiB page
// the incoming task touches, kernel or user, code or data, misses once: the
// softmmu slow path (load_helper / tlb_fill → x86_cpu_tlb_fill → get_physical_address,
// a four-level guest page walk, then tlb_set_page_full). The refill a switch costs
// is therefore the number of distinct pages touched until the next switch, times a
// fill's cost, and it saturates once the process's working set is back: a switch per
// command (twelve qd1 reader processes) costs about one command's footprint, two
// CPU-bound processes that alternate every few milliseconds each refill their whole
// working set. tlb_mmu_resize_locked sizes the table from the largest use seen in a
// 100 ms window, so the table holds a working set that large without conflict misses
// (not modelled: the table is assumed large enough).
//
// The model: dispatch.CPUCosts.MMSwitch is one command's refill (the pages one
// command's cycle touches: reap, submission, completion interrupt), TLBWorkingSet the
// whole working set's. A switch at a wake-up or time-slice preemption (mmRun) charges
// MMSwitch at once, as before (the first command's pages are touched by the reap
// right after it, ahead of that command's submission), and leaves the CPU
// TLBWorkingSet − MMSwitch to refill; each later command submitted on the CPU then
// charges min(MMSwitch, what is left) at its submission. A run of k commands between
// two switches costs min(k × MMSwitch, max(MMSwitch, TLBWorkingSet)): a switch per
// command costs MMSwitch, as without the option. The refill left is drawn by any
// command submitted on the CPU, whichever process submits it: the model lets
// runnable fio processes on one CPU take turns without a modelled switch (stack/
// mmswitch.go mmRun counts wake-ups and time-slice preemptions only), and in the
// kernel each such turn is a CR3 write too; the working set bounds what one flush
// can cost. Approximate: with twelve qd1 reader processes the readers that run
// without a modelled switch raise the CPU per command from 148 to 201 µs (the
// guest's 222) without changing their IOPS. The switch a preempting kblockd run
// makes (dispatch, Host.SetOtherTasks) keeps its constant MMSwitch and does not start
// a refill. Not modelled: the flush's own memset (host time proportional to the
// table's size), the jump cache's refill apart from the code pages' fills, conflict
// misses of a table smaller than the working set.

// tlbRefill is one CPU's refill state since its last CR3 write.
type tlbRefill struct {
	left  sim.Time // refill still to charge before the working set is back
	first bool     // the next command's pages were charged with the switch
	turn  bool     // a tick or drain switch: the commands that follow are one turn
}

// tlbFlushed records a CR3 write on cpu whose first command's refill (charged,
// dispatch.CPUCosts.MMSwitch) was charged with the switch: the rest of the working
// set (SubmitTiming.TLBWorkingSet) is charged by the commands that follow; turn
// says the switch ends a turn the model counts (a tick or drain switch), whose
// refill SubmitTiming.TLBRefillGrows spreads over the turn.
func (r *runner) tlbFlushed(cpu int, charged sim.Time, turn bool) {
	if r.sub.TLBWorkingSet <= 0 || cpu < 0 || cpu >= r.cfg.NrCPUs {
		return
	}
	if r.mm.refill == nil {
		r.mm.refill = make([]tlbRefill, r.cfg.NrCPUs)
	}
	r.mm.refill[cpu] = tlbRefill{left: max(r.sub.TLBWorkingSet-charged, 0), first: true, turn: turn}
}

// chargeTLBRefill charges on cpu the refill of one command's pages
// (dispatch.CPUCosts.MMSwitch, at most what is left of the working set) for a command
// submitted there since the CPU's last CR3 write (tlbFlushed), except the first one,
// whose pages the switch charged; nothing when SubmitTiming.TLBWorkingSet is 0.
func (r *runner) chargeTLBRefill(q blockQueue, cpu int) {
	if r.mm.refill == nil || cpu < 0 || cpu >= len(r.mm.refill) {
		return
	}
	s := &r.mm.refill[cpu]
	if s.first {
		s.first = false
		return
	}
	if s.left <= 0 {
		return
	}
	h := q.Host()
	t := h.CostTable()
	if t == nil || t.MMSwitch <= 0 {
		return
	}
	step := t.MMSwitch
	if r.sub.TLBRefillGrows && s.turn {
		step = tlbRefillStep(r.sub.TLBWorkingSet, t.MMSwitch)
	}
	c := min(step, s.left)
	s.left -= c
	r.mm.refilled += c
	h.OnCPU(cpu)
	h.Charge(c)
}

// TLBRefillSaturation is the number of commands on a CPU after a CR3 write by which
// SubmitTiming.TLBRefillGrows has refilled the whole working set (TLBWorkingSet):
// the turn length of DefaultTLBWorkingSet's own calibration cell
// (hold-2r-nb-none-pin, round 9: fio ctx 0.038 per command, one switch every 26.3
// commands, which that derivation took to refill the whole set). Not a new fit: it
// is the abscissa of the existing calibration point, whose other end is one command
// costing MMSwitch (hold-wake-nb-12x1-pin, a switch per command: one command's
// footprint). Between the two the refill is taken as linear in the commands of the
// turn: the first command after a flush touches the code, stack and shared kernel
// data of the whole I/O path (MMSwitch); each later one touches the pages only it
// uses (its io_u, iocb and ring slot, its request and bio), which the same path's
// code pages are not. Basis (guest facts, hosts/2026-12-04, one sitting, readers
// pinned to one CPU: extra CPU per command over hold-1r-nb-none-pin divided by the
// readers' switches per command): turns of 15 commands (qd16: 4, 6, 8 processes)
// imply 250-400 µs per switch, turns of 25-31 (qd32: 2, 3, 4 processes) 570-720 µs
// and of 70 (qd64, 2 processes) about 400 µs: growing with the turn up to about 30
// commands, then flat. Applied to the switches that end a turn the model counts
// (SubmitTiming.TickSwitchRefill's tick and drain switches, stack/tickrefill.go:
// the commands the CPU submits until the next one are that turn), not to the
// wake-up switches of mmRun, whose following commands are the model's
// command-by-command interleaving of the runnable processes rather than one
// process's turn: there the per-command MMSwitch refill stays (round 9's
// approximation; charging those the grown step instead took hold-2r-nb-none-pin,
// the calibration cell, from +1 % to +30 %, because the model wakes its two readers
// twice as often as the guest switches them).
const TLBRefillSaturation = 1 / 0.038

// tlbRefillStep is the refill a command after the switch's first charges under
// SubmitTiming.TLBRefillGrows: the rest of the working set spread over the
// TLBRefillSaturation − 1 later commands of round 9's calibration turn.
func tlbRefillStep(workingSet, first sim.Time) sim.Time {
	if workingSet <= first {
		return 0
	}
	return sim.Time(float64(workingSet-first) / (TLBRefillSaturation - 1))
}

// DefaultTLBWorkingSet is EmulationOptions.TLBWorkingSet's derived value, 35 µs
// native-equivalent (636 µs of emulated CPU at the oracle's slowdown 18.04): the
// refill of a process's whole working set after a CR3 write. Calibrated on the guest
// facts (not the IOPS rows) of one pair of cells: two CPU-bound 4k reader processes
// at iodepth 32 pinned to one CPU (hold-2r-nb-none-pin: fio usr+sys 49.4 µs per
// command, fio ctx 0.038 per command, the mean of its two runs) against one such
// reader at iodepth 128 (hold-1r-nb-none-pin: 23.45 µs, 0.003): (49.4 − 23.45 −
// 0.038 × 49.5 µs per sleep-and-wake cycle) / 0.038 switches = 636 µs per switch
// (37 µs if each ctx is charged one context switch, 18 µs, instead of a whole
// cycle). hold-2r's two runs alone give 28 and 43 µs (±20 %); three readers
// (hold-3r-nb-none-pin, 44.0 µs, 0.033) give 32 µs independently (a check: both
// cells switch every 26-30 commands, so both refill the whole set). Twelve qd1 reader processes against
// their thread twin (hold-wake-nb-12x1-pin: 151 µs more per switch, 8.4 µs
// native-equivalent) measure one command's footprint, about a quarter of the set.
// hold-2r-nb-none-pin's rows therefore follow from the value and are not
// reproductions. Sensitivity on the reference set (case rows / effect signs):
// ×0.5 537 / 110, ×1 542 / 108, ×2 545 / 107 (without the option 537 / 104).
const DefaultTLBWorkingSet = 35 * sim.Microsecond

// DefaultTLBHostRefill is EmulationOptions.TLBHostRefill's value, 636 µs of emulated
// (host) CPU time per CR3 write: DefaultTLBWorkingSet's own derivation before it was
// divided by the reference set's slowdown (18.04), from the same two cells
// (hold-2r-nb-none-pin against hold-1r-nb-none-pin, round 9). Every other host set's
// refill is then a prediction: the same 636 µs whatever that set's slowdown, where
// the default charges 35 µs × slowdown (631 on the reference set, 700 on
// hosts/2026-12-04, the 1 ms limit on the three 2026-12-03 sets). Measured in round
// 12 (tlbhost12) and kept off: the guests' extra CPU per process switch is not one
// host time (550-880 µs on the reference host, 270-790 on hosts/2026-12-04 at about
// the same slowdown, 590-1050 on hosts/2026-12-03-pm, 70-130 on hosts/2026-12-03);
// with DrainSwitch on it gains 1 row on the reference set (and loses 3 effect signs
// of free-placement io_uring rows that move with any small change), 5 clat rows on
// hosts/2026-12-04 and 1 on the eve set, and moves hold-4r-nb-none-pin-r9 on the pm
// host from -3 % to +8 %.
const DefaultTLBHostRefill = 636 * sim.Microsecond
