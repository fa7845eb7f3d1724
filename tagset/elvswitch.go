package tagset

// initSchedTags allocates the scheduler tags of an elevator of nr requests
// (blk_mq_init_sched → blk_mq_sched_alloc_map_and_rqs): one Tags of capacity
// MaxSchedRQ for the whole queue with shared (host-wide) tags, else one Tags of
// nr per hctx. Without an elevator it clears them. The seeds are the ones
// AddQueue has always used, so a queue built with an elevator and one switched
// to it start from the same allocation hints.
func (q *RequestQueue) initSchedTags(nr int) error {
	s := q.set
	q.schedShared = nil
	if !q.cfg.Elevator {
		for _, h := range q.hctxs {
			h.schedTags = nil
		}
		return nil
	}
	if s.cfg.SharedTags() && !s.cfg.Options.PerHctxSchedTagsWithHostTags {
		t, err := newTags(nr, s.cfg.ReservedTags, MaxSchedRQ, s.cfg.NrCPUs, s.cfg.Seed^0x5ced, s.cfg.Queue)
		if err != nil {
			return err
		}
		q.schedShared = t
	}
	for i, h := range q.hctxs {
		if q.schedShared != nil {
			h.schedTags = q.schedShared
			continue
		}
		t, err := newTags(nr, s.cfg.ReservedTags, nr, s.cfg.NrCPUs, s.cfg.Seed^uint64(i+1)<<40, s.cfg.Queue)
		if err != nil {
			return err
		}
		h.schedTags = t
	}
	return nil
}

// SwitchElevator models the tag side of elevator_switch (block/elevator.c, 6.1):
// the old elevator's scheduler tags are freed (elevator_exit →
// blk_mq_sched_free_rqs) and, when elevator is true, new ones are allocated
// by blk_mq_init_sched, which resets nr_requests to 2·min(queue_depth, 128)
// (DefaultNrRequests); switching to none resets nr_requests to the tag set's
// queue_depth. The driver tags are left as they are (a depth an earlier
// nr_requests write gave them stays, as in the kernel).
//
// The caller must have drained the queue first (the kernel's
// blk_mq_freeze_queue): no scheduler tag may be held, nor any task wait on
// the old scheduler tags (their tags and wake-ups would be lost). It is not safe
// for concurrent use with any other method of q or its hctxs: the caller
// serialises it (the kernel's frozen, quiesced queue). Switching to the current
// state is a no-op. The only error is an allocation refused by
// sbitmap (as AddQueue's).
func (q *RequestQueue) SwitchElevator(elevator bool) error {
	if q.set == nil {
		return errZeroQueue
	}
	if elevator == q.cfg.Elevator {
		return nil
	}
	q.cfg.Elevator = elevator
	nr := DefaultNrRequests(q.set.cfg.QueueDepth, elevator)
	if err := q.initSchedTags(nr); err != nil {
		return err
	}
	q.nrRequests.Store(int32(nr))
	return nil
}
