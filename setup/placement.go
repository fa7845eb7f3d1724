package setup

import "github.com/blkmq/blkmq/stack"

func init() {
	addKey(&key{name: "system/sched_placement",
		doc: "where the scheduler runs unpinned fio threads and io-wq workers: fair = 6.1's select_task_rq_fair at each wake-up and idle balance (stack.PlaceFair, the default); " +
			"random = the deprecated unsourced rule, 2 % of wake-ups move a thread to a random CPU and io-wq workers get a random CPU at each wake-up (stack.PlaceRandom)",
		allowed: "fair, random",
		set: func(s *state, v string) error {
			switch v {
			case "fair":
				s.placement = stack.PlaceFair
			case "random":
				s.placement = stack.PlaceRandom
			default:
				return errRange{"fair, random"}
			}
			return nil
		},
		get: func(s *state) string {
			if s.placement == stack.PlaceRandom {
				return "random"
			}
			return "fair"
		}})
}
