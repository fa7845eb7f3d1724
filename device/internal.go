package device

import (
	"fmt"

	"github.com/blkmq/blkmq/sim"
)

// checkEngine refuses a nil engine when a device is built: a model without one
// was returned without error and panicked at its first Submit.
func checkEngine(kind, name string, eng *sim.Engine) error {
	if eng == nil {
		return fmt.Errorf("device: %s %q: nil *sim.Engine", kind, name)
	}
	return nil
}

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

// ring is a growable double-ended queue with removal at any index (shifting the
// shorter side). Its size is a power of two; it allocates only when it grows.
type ring[T any] struct {
	buf     []T
	head, n int
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) at(i int) *T { return &r.buf[(r.head+i)&(len(r.buf)-1)] }

func (r *ring[T]) push(x T) {
	if r.n == len(r.buf) {
		nb := make([]T, max(16, 2*len(r.buf)))
		for i := 0; i < r.n; i++ {
			nb[i] = *r.at(i)
		}
		r.buf, r.head = nb, 0
	}
	r.n++
	*r.at(r.n - 1) = x
}

// removeAt deletes and returns element i.
func (r *ring[T]) removeAt(i int) T {
	x := *r.at(i)
	var zero T
	if i < r.n/2 {
		for k := i; k > 0; k-- {
			*r.at(k) = *r.at(k - 1)
		}
		*r.at(0) = zero
		r.head = (r.head + 1) & (len(r.buf) - 1)
	} else {
		for k := i; k < r.n-1; k++ {
			*r.at(k) = *r.at(k + 1)
		}
		*r.at(r.n - 1) = zero
	}
	r.n--
	return x
}
