package sim

import (
	"fmt"
	"slices"
)

// The contention models below work on each CPU's own timeline, as CPU.Exec does: a
// caller asks for an operation that becomes ready at `at` (its CPU's time: now or the
// end of the work already charged there) and gets back the CPU time the operation
// costs, waiting included. The shared object keeps the intervals during which it is
// owned; a request is served in the earliest free interval at or after `at`, so CPUs
// whose timelines run ahead of the engine's clock do not block CPUs behind them, and
// requests that arrive at the same time are served in call order (FIFO).
//
// `now` (the engine's clock) is passed only to forget intervals that ended before it:
// every later request has at ≥ now. The state stays bounded by the number of CPUs
// whose timelines run ahead of the clock.

// interval is a time the object is owned by cpu.
type interval struct {
	start, end Time
	cpu        int
}

// owned is a resource's sorted, non-overlapping ownership intervals.
//
// iv is a window of buf: forget drops ended intervals by moving iv's start (back to
// buf's start once every interval has ended), and room
// moves the window back to buf's start (or grows buf) only when an append finds no
// space, so forgetting costs no copy of the intervals still owned.
type owned struct {
	iv   []interval
	buf  []interval // iv's backing array (len = cap)
	last int        // owner of the last interval forgotten; -1 = never owned
}

func newOwned() owned { return owned{last: -1} }

// forget drops the intervals that ended at or before now. The ends are sorted, so when
// the last one has ended (the usual case on an object nobody contends) every one has,
// and the window restarts at buf's start, where the next append has room without a copy.
func (o *owned) forget(now Time) {
	n := len(o.iv)
	if n == 0 {
		return
	}
	if o.iv[n-1].end <= now {
		o.last = o.iv[n-1].cpu
		o.iv = o.buf[:0]
		return
	}
	i := 0
	for o.iv[i].end <= now { // stops at the last interval at the latest
		o.last = o.iv[i].cpu
		i++
	}
	o.iv = o.iv[i:]
}

// room makes space for one more interval at the end of iv: in place when the window
// has it, else by moving the window to the start of buf when that frees at least half
// of it, else in a new buf twice as large.
func (o *owned) room() {
	if len(o.iv) < cap(o.iv) {
		return
	}
	n := len(o.iv)
	if cap(o.buf) > 0 && 2*n <= cap(o.buf) {
		o.iv = o.buf[:copy(o.buf, o.iv)]
		return
	}
	o.buf = make([]interval, max(2*n, 8))
	o.iv = o.buf[:copy(o.buf, o.iv)]
}

// reserve finds the earliest start s ≥ at at which [s, s+dur(prev, ahead)) is free,
// where prev is the owner before s (-1: none) and ahead the number of intervals that
// began before s and end after at (the owners queued ahead of this request); it records
// the interval for cpu and returns s, its length and prev. dur must be a pure function
// and lo a lower bound of every value it returns: a gap shorter than lo is passed over
// without calling dur (the answer is the same; on a busy line most gaps are empty).
func (o *owned) reserve(now, at Time, cpu int, lo Time, dur func(prev, ahead int) Time) (start, length Time, prev int) {
	o.forget(now)
	n := len(o.iv)
	if n == 0 || o.iv[n-1].end <= at {
		// free at at: what the search below finds when every interval ends by at
		prev = o.lastOwner()
		d := dur(prev, 0)
		o.room()
		o.iv = append(o.iv, interval{start: at, end: at + d, cpu: cpu})
		return at, d, prev
	}
	// The intervals are sorted and disjoint, so their ends are sorted too: those that
	// end by at (all skipped, the last one's owner is prev) are found by bisection.
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if o.iv[h].end <= at {
			i = h + 1
		} else {
			j = h
		}
	}
	s, prev, ahead := at, o.last, 0
	if i > 0 {
		prev = o.iv[i-1].cpu
	}
	for ; i < n; i++ {
		x := o.iv[i]
		if x.end <= s {
			prev = x.cpu
			continue
		}
		if x.start-s >= lo && s+dur(prev, ahead) <= x.start {
			break
		}
		if x.end > at {
			ahead++
		}
		s, prev = x.end, x.cpu
	}
	d := dur(prev, ahead)
	o.room()
	o.iv = append(o.iv, interval{})
	copy(o.iv[i+1:], o.iv[i:])
	o.iv[i] = interval{start: s, end: s + d, cpu: cpu}
	return s, d, prev
}

// idleAt reports whether nothing is owned after at — the uncontended case, where
// reserve would start at at — with the owner before at. It lets the callers skip
// reserve's scan and its duration callback: an object nobody contends costs about what
// a single line touch does. When every interval ended by now it forgets them (as forget
// does); intervals that ended by now before a later one are left for the next reserve
// or forget, which drops them with the same result (forgetting is dropping the prefix
// that ended by a clock that only moves forward, whether in one step or in several).
func (o *owned) idleAt(now, at Time) (prev int, ok bool) {
	n := len(o.iv)
	if n == 0 {
		return o.last, true
	}
	x := &o.iv[n-1]
	if x.end <= now {
		o.last = x.cpu
		o.iv = o.buf[:0]
		return x.cpu, true
	}
	return x.cpu, x.end <= at // prev means nothing when !ok
}

// push records [s, s+d) for cpu after every interval (the uncontended case of reserve).
func (o *owned) push(s, d Time, cpu int) {
	o.room()
	o.iv = append(o.iv, interval{start: s, end: s + d, cpu: cpu})
}

// transfer is Transfer through a pointer (no copy of the Topology), with the owner's
// own line short-cut (Distance's DistSelf: the same cost).
func (t *Topology) transfer(prev, cpu int) Time {
	if prev < 0 || prev == cpu {
		return t.Costs.Self
	}
	return t.far(prev, cpu)
}

// far is transfer from another CPU (kept out of line so that transfer inlines).
func (t *Topology) far(prev, cpu int) Time { return t.Costs.At(t.distance(prev, cpu)) }

// minCost returns the least Transfer can cost: a lower bound of every interval's
// length (hold times only add to it).
func (t *Topology) minCost() Time {
	c := t.Costs
	return min(c.Self, c.SMT, c.Node, c.Socket, c.Remote)
}

// lastOwner returns the owner of the latest interval (-1: never owned).
func (o *owned) lastOwner() int {
	if n := len(o.iv); n > 0 {
		return o.iv[n-1].cpu
	}
	return o.last
}

func checkAt(what string, now, at Time, cpu int) {
	if at < now || cpu < 0 {
		panic(fmt.Sprintf("sim: %s at %v before now %v or cpu %d < 0", what, at, now, cpu))
	}
}

// ContentionStats counts a contended object's operations.
type ContentionStats struct {
	// Ops is the number of operations; Contended those that waited for another owner.
	Ops, Contended uint64
	// Transfers is the number of operations that moved the line from another CPU.
	Transfers uint64
	// Wait is the total time (ns) spent waiting (spinning or sleeping); Held the total
	// time owned (transfers and critical sections).
	Wait, Held Time
}

// AtomicLine is one cache line updated by atomic read-modify-writes (a counter such as
// host_busy or nr_active, a tag bitmap word): an RMW by the CPU that wrote the line
// last costs Costs.Self; by another CPU it costs the line's transfer from that CPU;
// RMWs that overlap in time serialise — each owns the line for its latency, so N CPUs
// hammering one line complete one RMW per transfer latency between them. Loads do not
// serialise: a load costs the transfer from the last writer the first time a CPU reads
// after that write, Self afterwards.
type AtomicLine struct {
	topo    *Topology
	o       owned
	readers []int // CPUs that loaded the line since its last write
	stats   ContentionStats
}

// NewAtomicLine returns a line nobody has touched yet on topology t.
func NewAtomicLine(t *Topology) *AtomicLine {
	return &AtomicLine{topo: t, o: newOwned()}
}

// RMW performs an atomic read-modify-write (lock add, cmpxchg, test_and_set_bit) by
// cpu, ready at at (≥ now), and returns its CPU cost (ns): the wait for the line plus
// the transfer (or Self). It panics if at < now or cpu < 0.
func (l *AtomicLine) RMW(now, at Time, cpu int) Time {
	checkAt("AtomicLine.RMW", now, at, cpu)
	if prev, ok := l.o.idleAt(now, at); ok {
		d := l.topo.transfer(prev, cpu)
		l.o.push(at, d, cpu)
		l.readers = l.readers[:0]
		l.count(0, d, prev, cpu)
		return d
	}
	s, d, prev := l.o.reserve(now, at, cpu, l.topo.minCost(), func(prev, _ int) Time { return l.topo.transfer(prev, cpu) })
	l.readers = l.readers[:0]
	l.count(s-at, d, prev, cpu)
	return s - at + d
}

// Load reads the line from cpu at at and returns its cost (ns): the transfer from the
// last writer on the first read since that write, Self after.
func (l *AtomicLine) Load(now, at Time, cpu int) Time {
	checkAt("AtomicLine.Load", now, at, cpu)
	l.o.forget(now)
	w := l.o.lastOwner()
	if w == cpu || w < 0 || slices.Contains(l.readers, cpu) {
		return l.topo.Costs.Self
	}
	l.readers = append(l.readers, cpu)
	return l.topo.transfer(w, cpu)
}

func (l *AtomicLine) count(wait, held Time, prev, cpu int) {
	l.stats.Ops++
	if wait > 0 {
		l.stats.Contended++
	}
	if prev >= 0 && prev != cpu {
		l.stats.Transfers++
	}
	l.stats.Wait += wait
	l.stats.Held += held
}

// Stats returns the line's counters.
func (l *AtomicLine) Stats() ContentionStats { return l.stats }

// LockKind selects a spinlock's hand-off rule.
type LockKind int

const (
	// Queued is the kernel's qspinlock (MCS queue, Linux 4.2+): waiters spin on their
	// own queue node and the releaser hands the lock to the next in FIFO order; a
	// hand-off costs one line transfer from the previous owner whatever the number of
	// waiters.
	Queued LockKind = iota
	// Ticket is the ticket spinlock of Linux ≤ 4.1: every waiter spins on the lock
	// word, so each release invalidates all waiters' copies and the next owner's read
	// queues behind theirs. The hand-off grows linearly with the waiters (Boyd-Wickizer
	// et al. 2012, §3); modelled as one transfer plus half a transfer per owner queued
	// ahead (the next owner's re-read is on average in the middle of the waiters').
	Ticket
)

// SpinLock is a kernel spinlock (spin_lock / spin_lock_irqsave) around a critical
// section: the owner holds it for the line's transfer plus the hold time it asks for;
// a CPU that finds it held spins, burning its time, until its turn (FIFO).
type SpinLock struct {
	Kind  LockKind
	topo  *Topology
	o     owned
	stats ContentionStats
}

// NewSpinLock returns an unlocked spinlock of the given kind on topology t.
func NewSpinLock(t *Topology, kind LockKind) *SpinLock {
	return &SpinLock{Kind: kind, topo: t, o: newOwned()}
}

// Lock runs one critical section of hold ns under the lock by cpu, ready at at (≥ now),
// and returns its CPU cost (ns): spinning + the lock line's transfer (hand-off) + hold.
// It panics if at < now, cpu < 0 or hold < 0.
func (l *SpinLock) Lock(now, at Time, cpu int, hold Time) Time {
	return l.LockData(now, at, cpu, hold, 0)
}

// LockData is Lock for a critical section that also touches lines cache lines of the
// data the lock protects: when the previous owner was another CPU each of them is
// transferred from it (and counts in the hold); when it was this CPU they are already
// local and hold covers them.
func (l *SpinLock) LockData(now, at Time, cpu int, hold Time, lines int) Time {
	if at < now || cpu < 0 || hold < 0 || lines < 0 { // one branch for the refusals
		checkAt("SpinLock.Lock", now, at, cpu)
		panic(fmt.Sprintf("sim: SpinLock.Lock with negative hold %v or lines %d", hold, lines))
	}
	if prev, ok := l.o.idleAt(now, at); ok {
		tr := l.topo.transfer(prev, cpu)
		d := tr + hold
		if prev >= 0 && prev != cpu {
			d += Time(lines) * tr
			l.stats.Transfers++
		}
		l.o.push(at, d, cpu)
		l.stats.Ops++
		l.stats.Held += d
		return d
	}
	s, d, prev := l.o.reserve(now, at, cpu, l.topo.minCost()+hold, func(prev, ahead int) Time {
		tr := l.topo.transfer(prev, cpu)
		x := tr
		if l.Kind == Ticket && ahead > 0 {
			x += Time(ahead) * tr / 2
		}
		if prev >= 0 && prev != cpu {
			x += Time(lines) * tr
		}
		return x + hold
	})
	l.stats.Ops++
	if s > at {
		l.stats.Contended++
	}
	if prev >= 0 && prev != cpu {
		l.stats.Transfers++
	}
	l.stats.Wait += s - at
	l.stats.Held += d
	return s - at + d
}

// Stats returns the lock's counters.
func (l *SpinLock) Stats() ContentionStats { return l.stats }

// Mutex is a sleeping lock (struct mutex): a task that finds it held spins while the
// wait is at most SpinLimit (the kernel's optimistic spinning while the owner runs),
// else sleeps: its CPU pays Switch (schedule out and back in) and is free meanwhile,
// and the task resumes WakeLatency after the owner releases.
type Mutex struct {
	SpinLimit, Switch, WakeLatency Time
	topo                           *Topology
	o                              owned
	stats                          ContentionStats
}

// NewMutex returns an unlocked mutex on topology t with the given spin limit, context
// switch cost and wake-up latency (ns).
func NewMutex(t *Topology, spinLimit, sw, wake Time) *Mutex {
	return &Mutex{SpinLimit: spinLimit, Switch: sw, WakeLatency: wake, topo: t, o: newOwned()}
}

// Lock runs a critical section of hold ns by cpu, ready at at (≥ now). It returns when
// the section ends (its effects are visible) and the CPU time (ns) the caller charges:
// spinning, the line transfer and hold when it spins; Switch + transfer + hold when it
// sleeps (the time asleep is not CPU time). It panics like SpinLock.Lock.
func (m *Mutex) Lock(now, at Time, cpu int, hold Time) (end, cost Time) {
	checkAt("Mutex.Lock", now, at, cpu)
	if hold < 0 {
		panic(fmt.Sprintf("sim: Mutex.Lock with negative hold %v", hold))
	}
	var slept bool
	s, d, _ := m.o.reserve(now, at, cpu, m.topo.minCost()+hold, func(prev, ahead int) Time { return m.topo.transfer(prev, cpu) + hold })
	if s-at > m.SpinLimit {
		// Asleep: the section starts WakeLatency after the release; move it.
		slept = true
		m.o.forget(now)
		for i := range m.o.iv {
			if m.o.iv[i].cpu == cpu && m.o.iv[i].start == s {
				m.o.iv = append(m.o.iv[:i], m.o.iv[i+1:]...)
				break
			}
		}
		s, d, _ = m.o.reserve(now, s+m.WakeLatency, cpu, m.topo.minCost()+hold, func(prev, _ int) Time { return m.topo.transfer(prev, cpu) + hold })
	}
	m.stats.Ops++
	if s > at {
		m.stats.Contended++
	}
	m.stats.Wait += s - at
	m.stats.Held += d
	if slept {
		return s + d, m.Switch + d
	}
	return s + d, s - at + d
}

// Stats returns the mutex's counters.
func (m *Mutex) Stats() ContentionStats { return m.stats }
