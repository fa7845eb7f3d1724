package stack

import "github.com/blkmq/blkmq/sim"

// otherTasks reports whether a modelled task other than the running one is runnable
// on cpu at now: a fio thread or io-wq worker waiting for the CPU, or woken there and
// not yet run (dispatch.Host.SetOtherTasks: a kblockd run that preempted the submitter
// then hands the CPU to it).
func (r *runner) otherTasks(cpu int, now sim.Time) bool {
	s := r.sched()
	return s.waiting[cpu]+s.woken[cpu] > 0
}
