package setup

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sbitmap"
)

// eraKey is one dispatch.Options switch exposed as era/NAME.
type eraKey struct {
	name string
	key  *key
}

var eraKeys []eraKey

func addEra(k *key) {
	addKey(k)
	eraKeys = append(eraKeys, eraKey{name: k.name, key: k})
}

func optBool(name, doc string, field func(o *dispatch.Options) *bool) *key {
	return boolKey(name, doc, func(s *state) *bool { return field(&s.opts) })
}

// addEraKeys registers every era switch of dispatch.Options (which also carries the
// budget switches) as an era/ key.
func addEraKeys() {
	addEra(enumKey("era/scsi_restart", "how a SCSI completion re-runs its LUN (v5.10 restarts counter)",
		[]string{"counter", "every-completion"},
		func(s *state) *dispatch.RestartRule { return &s.opts.SCSIRestart }))
	addEra(enumKey("era/sw_queue_dequeue", "software-queue dequeue without elevator (v4.19 dispatch_busy)",
		[]string{"by-dispatch-busy", "one-by-one", "flush-all"},
		func(s *state) *dispatch.SwQueueDequeue { return &s.opts.SwQueueDequeue }))
	addEra(enumKey("era/default_elevator", "default scheduler rule (v5.13, 580dca8143d2: shared tags get mq-deadline)",
		[]string{"single-queue-or-shared-tags", "single-queue"},
		func(s *state) *dispatch.ElevatorRule { return &s.opts.DefaultElevator }))
	addEra(enumKey("era/dev_resource", "when BLK_STS_RESOURCE becomes DEV_RESOURCE (case R16)",
		[]string{"if-blocked", "if-busy", "if-other-budget"},
		func(s *state) *dispatch.DevResourceRule { return &s.opts.DevResource }))
	addEra(enumKey("era/map_queues", "CPU to hctx map (v6.3 group_cpus_evenly)",
		[]string{"group-evenly", "modulo"},
		func(s *state) *dispatch.MapQueuesRule { return &s.opts.MapQueues }))
	addEra(optBool("era/no_budget_rerun", "no delayed re-run after budget contention (before v5.8)",
		func(o *dispatch.Options) *bool { return &o.NoBudgetRerun }))
	addEra(optBool("era/no_sched_batch", "one request per elevator dispatch (before v5.10)",
		func(o *dispatch.Options) *bool { return &o.NoSchedBatch }))
	addEra(optBool("era/deadline_clear_next_rq", "mq-deadline restarts each batch of the other direction from its FIFO head (before v5.14)",
		func(o *dispatch.Options) *bool { return &o.DeadlineMoveClearsNextRq }))
	addEra(optBool("era/run_all_hctxs_with_sq_sched", "run every hctx with mq-deadline (before v5.12)",
		func(o *dispatch.Options) *bool { return &o.RunAllHctxsWithSQSched }))
	addEra(optBool("era/no_tag_wait_barrier", "dispatch tag-wait lost wake-up, CVE-2024-26671 (before v6.8)",
		func(o *dispatch.Options) *bool { return &o.NoTagWaitBarrier }))
	addEra(optBool("era/device_busy_counter", "LUN budget as device_busy counter (before v5.13 budget map)",
		func(o *dispatch.Options) *bool { return &o.DeviceBusyCounter }))
	addEra(optBool("era/host_busy_check", "host_busy >= can_queue refusal (before v5.5)",
		func(o *dispatch.Options) *bool { return &o.HostBusyCheck }))
	addEra(optBool("era/no_plug_request_cache", "one tag per request, no batched allocation into the plug (before v5.16, 47c122e35d7e)",
		func(o *dispatch.Options) *bool { return &o.NoPlugRequestCache }))
	addEra(optBool("era/budget_map_skip", "2025 proposal: no budget map with host-wide tags (seed 003; never an era default)",
		func(o *dispatch.Options) *bool { return &o.BudgetMapSkip }))
	addEra(&key{name: "era/max_plug_requests", doc: "BLK_MAX_REQUEST_COUNT: requests a plug holds (16 before v5.16)",
		allowed: "[1, 1024]",
		set: func(s *state, v string) error {
			n, err := parseInt(v, 1, 1024)
			if err == nil {
				s.opts.MaxPlugRequests = n
			}
			return err
		},
		get: func(s *state) string {
			if s.opts.MaxPlugRequests <= 0 {
				return "32"
			}
			return strconv.Itoa(s.opts.MaxPlugRequests)
		}})
}

// sbitmapEra is the sbitmap_queue era the stack derives from the release (stack
// applies it from Config.Kernel; it is shown, not settable): mainline v6.2
// changed both rules, and 6.1.16+ carries the change (dispatch.KernelProfile).
func sbitmapEra(kernel string) (wake, recalc string) {
	const (
		global    = "global (v6.2+, 4f8126bb2308)"
		countdown = "countdown (v4.10-v6.1)"
		r62       = "6.2: clamp(ceil(depth/users)/8, 1, 8) (b5fcf7871acb)"
		r517      = "5.17: clamp(ceil(depth/users)/8, 4 if depth >= 32 else 1, 8)"
	)
	if kernel == "" {
		return global, r62
	}
	p, err := dispatch.KernelProfile(kernel)
	if err != nil {
		return global, r62
	}
	wake, recalc = global, r62
	if p.WakeScheme == sbitmap.WakeCountdown {
		wake = countdown
	}
	if p.RecalcEra == sbitmap.Recalc5_17 {
		recalc = r517
	}
	return wake, recalc
}

// kernelRelease reads the kernel key's value: a mainline MAJOR.MINOR is kept; a
// 6.1 stable release or Debian uname -r form becomes the stable release whose
// backports apply ("6.1.0-57-amd64" → "6.1.192"); other forms count as their
// MAJOR.MINOR. note says what was given and how it mapped.
func kernelRelease(v string) (rel, note string, err error) {
	const allowed = "MAJOR.MINOR in [4.15, 6.19] (the blk-mq SCSI budget era), a stable release (6.1.192: mainline plus its modelled backports) or a uname -r form (6.1.0-57-amd64, v5.17, 6.8-rc2), or current"
	p, perr := dispatch.KernelProfile(v)
	if perr != nil {
		if strings.Contains(perr.Error(), "Debian ABI") {
			return "", "", errRange{allowed + "; " + strings.TrimPrefix(perr.Error(), "dispatch: ")}
		}
		return "", "", errRange{allowed}
	}
	switch {
	case p.Release == v && p.Release == p.Base:
		return p.Release, "", nil
	case p.Release != p.Base && len(p.Backports) > 0 || p.Base == "6.1" && p.Release != p.Base:
		note = fmt.Sprintf("given as %q: mainline %s plus %d modelled backports (see --explain's kernel/backport rows)", v, p.Base, len(p.Backports))
		if p.Note != "" {
			note = fmt.Sprintf("given as %q (%s): mainline %s plus %d modelled backports", v, p.Note, p.Base, len(p.Backports))
		}
		return p.Release, note, nil
	}
	return p.Base, fmt.Sprintf("given as %q: only MAJOR.MINOR selects the rules", v), nil
}

// profileSettings are --explain's rows for the release's profile: one
// kernel/backport row per carried backport of a modelled switch (its value, commit
// and stable release) and a warning per carried change the model cannot express.
func profileSettings(kernel string) ([]Setting, []string) {
	if kernel == "" {
		return nil, nil
	}
	p, err := dispatch.KernelProfile(kernel)
	if err != nil {
		return nil, nil
	}
	var rows []Setting
	for _, b := range p.Backports {
		rows = append(rows, Setting{Key: "kernel/backport " + b.Commit, Value: b.Switch + " = " + b.Value,
			Source: "stable " + b.Stable, Note: fmt.Sprintf("%s; mainline %s", b.Title, b.Mainline)})
	}
	var warn []string
	if p.PastTable {
		warn = append(warn, fmt.Sprintf("kernel %s is past 6.1.%d, the newest release the 6.1.y backport table was read from (Debian's 6.1.192-3 changelog): the profile has that table's %d backports; any later one that moves a modelled switch is missing",
			p.Release, dispatch.Table61Release, len(p.Backports)))
	}
	for _, b := range p.Unmodelled {
		warn = append(warn, fmt.Sprintf("kernel %s carries %s %q (stable %s), which the model does not express: %s stays at the mainline %s rule",
			p.Release, b.Commit, b.Title, b.Stable, b.Switch, p.Base))
	}
	return rows, warn
}

// EraSwitch is one era switch and its value for a release.
type EraSwitch struct {
	// Key is the era/ key (or sbitmap/ for the derived, read-only rows).
	Key string
	// Value is the switch's value for the release, as --set accepts it.
	Value string
}

// EraSwitches returns every era switch of a release ("" = current kernel): the
// dispatch.Options of dispatch.Kernel plus the sbitmap wake scheme and wake-batch
// formula the stack derives. It returns an error for a release outside [4.15, 6.19].
func EraSwitches(kernel string) ([]EraSwitch, error) {
	s := newState()
	if err := s.set("kernel", kernel, "era"); err != nil {
		return nil, err
	}
	s.applyEra()
	var out []EraSwitch
	for _, e := range eraKeys {
		out = append(out, EraSwitch{Key: e.name, Value: e.key.get(s)})
	}
	w, r := sbitmapEra(s.kernel)
	out = append(out, EraSwitch{Key: "sbitmap/wake_scheme", Value: w}, EraSwitch{Key: "sbitmap/wake_batch_recalc", Value: r})
	return out, nil
}

// applyEra sets every era switch from the kernel release, recording "era X" as the
// source of those that differ from the current kernel.
func (s *state) applyEra() {
	if s.kernel == "" {
		s.opts = dispatch.Options{}
		return
	}
	s.opts, _ = dispatch.Kernel(s.kernel)
	for _, e := range eraKeys {
		s.src[e.name] = "era " + s.kernel
	}
}
