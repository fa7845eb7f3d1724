package device

import "github.com/blkmq/blkmq/sim"

// finisher is implemented by models that complete commands from an internal queue.
type finisher interface {
	finish(cmd *Command, now sim.Time)
}

// fifoEntry is one command waiting for its completion time.
type fifoEntry struct {
	cmd *Command
	at  sim.Time
}

// fifoDone completes commands in submission order at non-decreasing times with a single
// engine event in flight: the ring grows to the largest backlog and is then reused, so
// steady state allocates nothing.
type fifoDone struct {
	eng       *sim.Engine
	owner     finisher
	ring      []fifoEntry
	head, n   int
	scheduled bool
	held      bool // completions held (stuck-device mode)
}

func (f *fifoDone) init(eng *sim.Engine, owner finisher) {
	f.eng = eng
	f.owner = owner
	f.ring = make([]fifoEntry, 16)
}

// push queues cmd to complete at at; at must not be before the last pushed time.
func (f *fifoDone) push(cmd *Command, at sim.Time) {
	if f.n == len(f.ring) {
		f.grow()
	}
	f.ring[(f.head+f.n)%len(f.ring)] = fifoEntry{cmd: cmd, at: at}
	f.n++
	f.arm()
}

func (f *fifoDone) grow() {
	nr := make([]fifoEntry, 2*len(f.ring))
	for i := 0; i < f.n; i++ {
		nr[i] = f.ring[(f.head+i)%len(f.ring)]
	}
	f.ring = nr
	f.head = 0
}

// arm schedules the head's completion if nothing is scheduled.
func (f *fifoDone) arm() {
	if f.scheduled || f.held || f.n == 0 {
		return
	}
	at := f.ring[f.head].at
	if now := f.eng.Now(); at < now {
		at = now
	}
	f.scheduled = true
	f.eng.At(at, f)
}

// Fire completes the head command and arms the next one.
func (f *fifoDone) Fire(now sim.Time) {
	f.scheduled = false
	if f.held || f.n == 0 {
		return
	}
	e := f.ring[f.head]
	f.ring[f.head] = fifoEntry{}
	f.head = (f.head + 1) % len(f.ring)
	f.n--
	f.arm()
	f.owner.finish(e.cmd, now)
}

// hold stops (true) or resumes (false) completions.
func (f *fifoDone) hold(on bool) {
	f.held = on
	f.arm()
}

// pool is a free list of internal event objects; it allocates only when empty.
type pool[T any] struct {
	free []*T
}

func (p *pool[T]) get() *T {
	if n := len(p.free); n > 0 {
		x := p.free[n-1]
		p.free = p.free[:n-1]
		return x
	}
	return new(T)
}

func (p *pool[T]) put(x *T) {
	var zero T
	*x = zero
	p.free = append(p.free, x)
}
