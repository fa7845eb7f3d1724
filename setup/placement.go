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

// choiceKey is a key of two named values that sets one bool of the state (the first
// value, the default, is false).
func choiceKey(name, doc, off, on string, field func(s *state) *bool) *key {
	return &key{name: name, doc: doc, allowed: off + ", " + on,
		set: func(s *state, v string) error {
			switch v {
			case off:
				*field(s) = false
			case on:
				*field(s) = true
			default:
				return errRange{off + ", " + on}
			}
			return nil
		},
		get: func(s *state) string {
			if *field(s) {
				return on
			}
			return off
		}}
}

func init() {
	addKey(choiceKey("system/sched_wake_placement",
		"where a woken fio thread or io-wq worker is placed: wake = in try_to_wake_up, on the waking CPU (select_task_rq_fair, 6.1; the default); "+
			"run = when it next runs (stack.Placement.PlaceWhenRun, the model before round 5)",
		"wake", "run", func(s *state) *bool { return &s.placeWhenRun }))
	addKey(choiceKey("system/sched_fork_placement",
		"where forked fio jobs start: llc = the forking CPU's node and last-level cache within the NUMA imbalance allowance (find_idlest_group, 6.1 adjust_numa_imbalance; the default); "+
			"spread = the least loaded CPU of the whole machine (stack.Placement.ForkSpread)",
		"llc", "spread", func(s *state) *bool { return &s.forkSpread }))
	addKey(choiceKey("system/sched_fork_idlest_group",
		"off = forked fio jobs go to the least loaded CPU of the LLC, fio's parent not counted on a one-LLC machine (the default); "+
			"on = fio's parent runs on CPU 0 while it forks, and find_idlest_group (6.1) puts each job on the idle CPU of lowest utilisation other than the parent's (stack.Placement.ForkIdlestGroup; opt-in, one LLC only)",
		"off", "on", func(s *state) *bool { return &s.forkIdlestGroup }))
	addKey(choiceKey("system/sched_nohz_kick",
		"any = a thread waiting for its busy CPU is pulled by an idle CPU at a tick once it is no longer cache-hot, whatever it waits behind (the default); "+
			"nr_running = only while another modelled task shares its CPU (6.1 nohz_balancer_kick: rq->nr_running >= 2; stack.Placement.NohzKickNrRunning; opt-in)",
		"any", "nr_running", func(s *state) *bool { return &s.nohzKickNrRunning }))
	addKey(choiceKey("system/sched_kworker_tasks",
		"off = a CPU whose kblockd kworker is runnable still counts as idle for placement (the default); on = it does not (idle_cpu: rq->curr, nr_running, ttwu_pending; stack.Placement.KworkerTasks)",
		"off", "on", func(s *state) *bool { return &s.kworkerTasks }))
	addKey(choiceKey("system/kblockd_ttwu",
		"off = every asynchronous hctx run is due after a drawn 5-30 us kworker latency (the default); on = the completing CPU's own kworker starts first and remote ones after an IPI and idle exit (dispatch.Timing.KblockdTTWU; opt-in, it locks one hctx in on the oracle's cases)",
		"off", "on", func(s *state) *bool { return &s.kblockdTTWU }))
	addKey(choiceKey("system/irq_preempt",
		"off = a completion, a kblockd run and a woken task wait for all the work charged to their CPU (the default); on = completions run in interrupt context and preempt task work, a woken nice -20 kblockd worker goes before fio's next submission step (dispatch.Timing.IRQPreempt; opt-in, see its doc for the known gap)",
		"off", "on", func(s *state) *bool { return &s.irqPreempt }))
	addKey(choiceKey("system/process_one_work",
		"on = the switch to a woken kblockd worker comes first and the work stays pending until process_one_work calls it, absorbing runs queued meanwhile (kernel/workqueue.c; the default); off = a due run dispatches at once and its worker's context switches are charged after it (dispatch.Timing.NoProcessOneWork, the model before round 7)",
		"on", "off", func(s *state) *bool { return &s.noProcessOneWork }))
	addKey(choiceKey("system/kblockd_wakeup_preempt",
		"on = the kblockd worker an unplugged submission wakes preempts the submitter once its vruntime lead passes CFS's wake-up granularity (check_preempt_wakeup; the default; with system/place_entity_credit on, at every wake-up); off = the run waits for the submitter's CPU (dispatch.Options.NoKblockdWakeupPreempt)",
		"on", "off", func(s *state) *bool { return &s.opts.NoKblockdWakeupPreempt }))
	addKey(choiceKey("system/place_entity_credit",
		"on = the woken kblockd worker's vruntime lag is carried from run to run and capped at place_entity's sleeper credit (sysctl_sched_latency / 2), so every wake-up preempts the submitter (the default, from round 9); off = its lead is the CPU time run since it last ran (dispatch.Options.NoPlaceEntityCredit, the rule of rounds 6-8)",
		"on", "off", func(s *state) *bool { return &s.opts.NoPlaceEntityCredit }))
	addKey(choiceKey("system/sched_pelt_load",
		"off = wake_affine_weight compares instantaneous task counts (the default); on = PELT load averages (kernel/sched/pelt.c decay; stack.Placement.PELTLoad)",
		"off", "on", func(s *state) *bool { return &s.peltLoad }))
	addKey(choiceKey("system/check_preempt_tick",
		"off = fio threads sharing a CPU take turns submission by submission (the default); on = CFS time slices: one runs until it sleeps, a woken one preempts it, or the tick finds its sched_slice used (check_preempt_tick; stack.SubmitTiming.CheckPreemptTick; opt-in)",
		"off", "on", func(s *state) *bool { return &s.checkPreemptTick }))
	addKey(choiceKey("system/sched_numa_pull",
		"off = an idle balance may pull a waiting thread across nodes (the default); on = an idle CPU of the thread's own LLC first, and across nodes only from an overloaded node or past 6.1's NUMA imbalance allowance (calculate_imbalance, adjust_numa_imbalance; stack.Placement.NUMAImbalancePull)",
		"off", "on", func(s *state) *bool { return &s.numaPull }))
	addKey(choiceKey("system/rebalance_domains",
		"off = a waiting thread is pulled at its CPU's tick by the first idle CPU after it (the default); on = 6.1's load balancer per sched-domain level: idle CPUs' periodic rebalance_domains and newidle_balance over their own MC and NUMA domains, with active balance (stack.Placement.RebalanceDomains)",
		"off", "on", func(s *state) *bool { return &s.rebalanceDomains }))
}
