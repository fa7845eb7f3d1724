package budget

// QueueRun is one execution of scsi_run_queue for a device, expressed as the
// sequence of devices whose hardware queues must be run synchronously
// (blk_mq_run_hw_queues(q, false)), one at a time. The host and target busy
// checks between runs are evaluated when Next is called, so the caller must run
// each yielded device before asking for the next, and must call Next until it
// returns false (leftover starved devices are restored then).
//
// Order: for a single-LUN target, the device itself and then (if no LUN of the
// target claimed it meanwhile) its siblings (scsi_single_lun_run); then the
// starved list (scsi_starved_list_run: splice the list; while the host is not
// busy pop the head, move it to the host's tail if its target is busy, else
// yield it; put leftovers back at the head); finally the device itself.
//
// A QueueRun is not safe for concurrent use.
type QueueRun struct {
	h     *Host
	d     *Device
	phase int
	sibs  []*Device
	local []*Device
}

// RunQueue starts scsi_run_queue for device d.
func (h *Host) RunQueue(d *Device) *QueueRun {
	return &QueueRun{h: h, d: d}
}

const (
	phaseSingle = iota
	phaseSiblings
	phaseStarvedStart
	phaseStarved
	phaseSelf
	phaseDone
)

// Next returns the next device to run, or nil, false when the run is over.
func (r *QueueRun) Next() (*Device, bool) {
	for {
		switch r.phase {
		case phaseSingle:
			r.phase = phaseStarvedStart
			if t := r.d.target; t.singleLUN {
				r.h.mu.Lock()
				t.sdevUser = nil
				r.h.mu.Unlock()
				r.phase = phaseSiblings
				return r.d, true
			}
		case phaseSiblings:
			if r.sibs == nil {
				r.h.mu.Lock()
				if r.d.target.sdevUser == nil {
					for _, s := range r.d.target.devices {
						if s != r.d {
							r.sibs = append(r.sibs, s)
						}
					}
				}
				r.h.mu.Unlock()
				r.sibs = append(r.sibs, nil) // sentinel: siblings computed
			}
			if s := r.sibs[0]; s != nil {
				r.sibs = r.sibs[1:]
				return s, true
			}
			r.phase = phaseStarvedStart
		case phaseStarvedStart:
			r.h.mu.Lock()
			r.local, r.h.starved = r.h.starved, nil
			for _, s := range r.local {
				s.starvedRun = r
			}
			r.h.mu.Unlock()
			r.phase = phaseStarved
		case phaseStarved:
			if s := r.popStarved(); s != nil {
				return s, true
			}
			r.phase = phaseSelf
		case phaseSelf:
			r.phase = phaseDone
			return r.d, true
		default:
			return nil, false
		}
	}
}

// popStarved is one iteration of scsi_starved_list_run's loop.
func (r *QueueRun) popStarved() *Device {
	h := r.h
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(r.local) > 0 {
		if h.IsBusy() {
			break
		}
		s := r.local[0]
		r.local = r.local[1:]
		s.onStarved, s.starvedRun = false, nil
		if s.target.IsBusy() {
			h.starvedMoveTail(s)
			continue
		}
		return s
	}
	// Put leftovers back at the head of the host's list (list_splice).
	for _, s := range r.local {
		s.starvedRun = nil
	}
	h.starved = append(append([]*Device(nil), r.local...), h.starved...)
	r.local = nil
	return nil
}
