package oracle

import (
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// Under TCG the guest's CPU runs the kernel's and fio's code tens of times slower
// than the host would natively: a vCPU that submits and completes a few thousand
// commands a second is saturated (the issue-14 family's pinned readers keep their
// CPU 83-93 % busy). The per-command emulation overhead (EmulationOverhead, a
// completion delay calibrated at queue depth 1) adds latency but no CPU time, so it
// cannot make a CPU saturate. The emulation slowdown is the other half of the
// instrument correction: every CPU cost of the model (dispatch.CPUCosts; of a line
// transfer only the owned-line access, the cross-CPU move being host traffic) multiplied
// by one factor, measured on the guest: the same pinned reader run twice, at iodepth 4
// (not CPU-bound) and at iodepth 32 (SlowdownJob, CPU-bound), and the difference of
// the busy time of the CPU it is pinned to (cpu_busy × the run's seconds) over the
// difference of the commands — the marginal CPU time per command, with fio's start-up
// and the guest's housekeeping cancelled out — divided by the model's CPU time per
// command on that CPU at native costs. The submission, the timer completion and its
// softirq all run on that CPU; the other CPU holds the guest's own housekeeping (the
// result sampler). The overhead is then calibrated with the slowdown applied, so that
// the two together reproduce both the queue-depth-1 latency and the saturated rate.
//
// Since round 7 the factor's guest side is fio's own CPU time per command on the
// CPU-bound run alone (FioCPUSlowdown; calibrated on calib-cpu-nb-qd32, with
// calib-cpu-nb-qd4 kept as the marginal's low side, EmulationSlowdown, behind
// BLKMQ_ORACLE_SLOWDOWN=marginal). The marginal assumes one command costs the same
// CPU at both depths, but the iodepth-4 reader sleeps in io_getevents and is woken
// once per command, which the saturated one does not: the guest's iodepth-4 cost per
// command is the higher (about 249 µs against 102.7), so the marginal (76.7 µs, factor
// 50.1) falls below the saturated path's cost and under-charges every CPU-bound cell
// (calib-cpu-nb-qd32: model 11738 IOPS at 50.1, kernel 9590). fio's usr + sys per
// command on the saturated run (102.3 and 103.1 µs on the two committed runs, fio at
// 98.8 % of its CPU) over the model's 1.532 µs gives 67.0. Chosen over subtracting the
// model's own iodepth-4 sleep cycle from the marginal (69.0), which would make the
// factor depend on the assumed native switch cost. Check, not fit: at 67.0 the
// model's iodepth-4 CPU per command is about 263 µs, the guest's about 249.
//
// Since round 9 the factor is net of the calibration cell's own sleep-and-wake
// cycles (netSlowdown, BLKMQ_ORACLE_SLOWDOWN_NET=0 keeps the gross factor): on this
// host calib-cpu-nb-qd32 is not CPU-bound (CPU 1 36-51 % busy, the 2 ms device binds)
// and its reader sleeps once per 8.6 commands (fio ctx), cycles the comparison's wake
// split charges on top of the factor; net of them the factor is 18.0 (gross 22.5).

// SlowdownJob is the fio job that measures the emulation slowdown: one 4k random
// reader at iodepth 32 pinned to CPU 1 of a 2 ms device, far more than one emulated
// CPU can submit and complete, so the CPU is saturated and its time per I/O is the
// cost of the whole path. It is committed as testdata/kernel/jobs/cpucal-qd32.fio.
const SlowdownJob = `; blkmq oracle calibration: a CPU-bound reader (emulation slowdown)
[global]
ioengine=libaio
direct=1
time_based=1
runtime=4
ramp_time=1

[cal]
filename=${DEV}
rw=randread
bs=4k
iodepth=32
cpus_allowed=1
`

// SlowdownLowJob is SlowdownJob at iodepth 4: the low-load run of the pair (about 40 %
// of one emulated CPU), committed as testdata/kernel/jobs/cpucal-qd4.fio.
var SlowdownLowJob = strings.Replace(SlowdownJob, "iodepth=32", "iodepth=4", 1)

// SlowdownCPU is the CPU SlowdownJob pins its reader to (cpus_allowed=1).
const SlowdownCPU = 1

// SlowdownDevice is the device SlowdownJob runs on: null_blk with 2 ms timer
// completions and 64 tags, so neither the device nor the tags bind.
const SlowdownDevice = "null_blk irqmode=2 completion_nsec=2000000 submit_queues=2 hw_queue_depth=64"

// kernelBusy returns a run's busy time of cpu (ns: cpu's busy share times the run's
// seconds) and its commands, as means over the runs given. It returns an error when
// a run's facts lack cpu's busy share or completed no command.
func kernelBusy(runs []*Facts, cpu int) (busy, cmds float64, err error) {
	if len(runs) == 0 {
		return 0, 0, fmt.Errorf("oracle: slowdown calibration: no kernel run")
	}
	for _, f := range runs {
		if cpu < 0 || cpu >= len(f.CPUBusy) || f.Seconds <= 0 {
			return 0, 0, fmt.Errorf("oracle: slowdown calibration: the kernel facts have no cpu_busy of CPU %d or no seconds", cpu)
		}
		var n int64
		for _, d := range f.Disks {
			n += d.ReadIOs + d.WriteIOs
		}
		if n <= 0 {
			return 0, 0, fmt.Errorf("oracle: slowdown calibration: the kernel completed no command")
		}
		busy += f.CPUBusy[cpu] * f.Seconds * 1e9 / float64(len(runs))
		cmds += float64(n) / float64(len(runs))
	}
	return busy, cmds, nil
}

// modelCPUPerIO returns the model's CPU time on cpu per command accepted by the
// devices (ns) over the whole run.
func modelCPUPerIO(m *ModelRun, cpu int) (float64, error) {
	var n uint64
	for _, q := range m.Queues {
		n += q.Dispatched
	}
	var busy sim.Time
	if cpu >= 0 && cpu < len(m.CPUBusy) {
		busy = m.CPUBusy[cpu]
	}
	if n == 0 || busy <= 0 {
		return 0, fmt.Errorf("oracle: slowdown calibration: the model completed no command or charged no CPU time")
	}
	return float64(busy) / float64(n), nil
}

// EmulationSlowdown derives the emulation slowdown from two calibration cases that
// differ in load only: the guest's marginal CPU time on cpu per command between the
// low-load runs lo and the CPU-bound runs hi (busy time and commands as means over
// each case's runs) over the model's CPU time per command on the same CPU (model: the
// hi case run at native costs, without slowdown). It returns an error when the facts
// lack cpu's busy share, a side completed nothing, hi has no more commands than lo, or
// the factor falls outside [1, dispatch.MaxEmulationSlowdown] (the model slower than
// the guest means the cost table or the device presets disagree).
func EmulationSlowdown(lo, hi []*Facts, model *ModelRun, cpu int) (float64, error) {
	bl, nl, err := kernelBusy(lo, cpu)
	if err != nil {
		return 0, err
	}
	bh, nh, err := kernelBusy(hi, cpu)
	if err != nil {
		return 0, err
	}
	if nh <= nl {
		return 0, fmt.Errorf("oracle: slowdown calibration: the high-load runs completed %.0f commands, the low-load runs %.0f: want more", nh, nl)
	}
	return slowdownFactor((bh-bl)/(nh-nl), "guest", model, cpu)
}

// slowdownFactor is k, the guest's CPU time per command (ns; what names it in the
// error), over the model's native CPU time per command on cpu; an error when the
// factor falls outside [1, dispatch.MaxEmulationSlowdown].
func slowdownFactor(k float64, what string, model *ModelRun, cpu int) (float64, error) {
	m, err := modelCPUPerIO(model, cpu)
	if err != nil {
		return 0, err
	}
	f := k / m
	if math.IsNaN(f) || f < 1 || f > dispatch.MaxEmulationSlowdown {
		return 0, fmt.Errorf("oracle: slowdown calibration: %s %.1f µs of CPU per command, model %.2f µs: factor %.3g out of range [1, %d]",
			what, k/1e3, m/1e3, f, dispatch.MaxEmulationSlowdown)
	}
	return f, nil
}

// FioCPUSlowdown derives the emulation slowdown from the CPU-bound calibration case
// alone: fio's own CPU time per command in the guest (usr_cpu + sys_cpu, percent of
// one CPU over the job's runtime, times the runtime, over the job's I/Os; the mean
// over the runs hi) over the model's CPU time per command on cpu at native costs
// (model: the hi case without slowdown). Calibrated on calib-cpu-nb-qd32 only. Unlike
// EmulationSlowdown's marginal it does not assume one command costs the same CPU at
// both depths: the low-load reader sleeps and wakes once per command, so the
// guest's per-command CPU at iodepth 4 is above the saturated one and the marginal
// falls below the saturated cost. In the saturated case fio holds its CPU (98.8 %
// on the committed runs), and the completion hardirqs it interrupts are accounted to
// it (tick-based accounting), so usr + sys is the whole path of a command. It returns
// an error when a run has no job, no I/O or no runtime, or the factor falls outside
// [1, dispatch.MaxEmulationSlowdown].
func FioCPUSlowdown(hi []*FioJSON, model *ModelRun, cpu int) (float64, error) {
	k, err := fioCPUPerIO(hi)
	if err != nil {
		return 0, err
	}
	return slowdownFactor(k, "guest fio", model, cpu)
}

// fioCPUCalibration reports whether the oracle calibrates the emulation slowdown with
// FioCPUSlowdown (the default since round 7, BLKMQ_ORACLE_SLOWDOWN unset or fio-cpu)
// rather than with EmulationSlowdown's marginal (BLKMQ_ORACLE_SLOWDOWN=marginal, the
// rule before; stack.DefaultMMSwitch was derived at FioCPUSlowdown's factor, so the
// marginal's figures then move the two-reader mq-deadline cells too). It returns an
// error for any other value.
func fioCPUCalibration() (bool, error) {
	switch v := os.Getenv("BLKMQ_ORACLE_SLOWDOWN"); v {
	case "", "fio-cpu":
		return true, nil
	case "marginal":
		return false, nil
	default:
		return false, fmt.Errorf("oracle: BLKMQ_ORACLE_SLOWDOWN %q: allowed: fio-cpu (default) or marginal", v)
	}
}

// netSlowdownRounds is how many times netSlowdown re-runs the calibration case: the
// model's sleeps per command move little with the factor, so the fixed point is
// reached to well under 0.1 % in three rounds (the change per round is logged by
// TestSlowdownNet).
const netSlowdownRounds = 3

// netSlowdown is the emulation slowdown at which the model, charging the emulated
// guest as the comparison does (DefaultWake: every sleep-and-wake cycle's two context
// switches and the waker's try_to_wake_up as scaled CPU time, stack.EmulationOptions;
// the per-command overhead re-derived at each factor), spends on the calibration
// case's CPU what fio spends there per command in the guest (usr + sys over its I/Os,
// as FioCPUSlowdown reads it).
//
// Why: fio's CPU time on calib-cpu-nb-qd32 contains the guest's own sleep-and-wake
// cycles of the reader (fio ctx 6767 and 6146 over 55461 and 55453 I/Os on the two
// committed runs: one cycle per 8.5 commands; on this host the cell is not CPU-bound,
// CPU 1 36-51 % busy, the 2 ms device binds at 13.86 k IOPS). FioCPUSlowdown divides
// all of it by the model's native path alone, and the comparison's wake split then
// charges the model's own cycles again on top: a command costs the model the guest's
// cycles twice, once inside the factor and once as switches. At saturation the reader
// rarely sleeps (hold-1r-nb-none-pin: fio ctx 532 over 165399 I/Os, 0.003 per
// command: io_getevents finds completions already there, aio_read_events returns
// without read_events' wait), so the first copy is pure over-charge there. The fixed
// point charges each cycle once: f = k / (model CPU per command at f / f), iterated
// from f0 (FioCPUSlowdown's factor). No new parameter: the cycle's native cost is the
// wake split's (dispatch.NativeSwitch, CPUCosts.Wakeup). Check, not fit: the model's
// cycles per command on the cell are reported by TestSlowdownNet against the guest's
// fio ctx per command.
func (ix *Index) netSlowdown(hi *Case, fios []*FioJSON, f0 float64) (float64, error) {
	wake := DefaultWake
	if ix.netWake != nil {
		wake = *ix.netWake
	}
	return NetSlowdown(hi, ix.JobPath(hi), fios, f0, wake, func(f float64) (time.Duration, error) {
		return ix.OverheadWith(hi, f, wake)
	})
}

// NetSlowdown is the net emulation slowdown (ns per ns, in [1,
// dispatch.MaxEmulationSlowdown]) of the CPU-bound calibration case cal (job file
// job; SlowdownJob on SlowdownDevice for blkmq validate, calib-cpu-nb-qd32 for the
// reference set): the factor at which the model, charging the emulated guest with
// wake (the comparison's wake-up charging, stack.EmulationOptions) and the
// per-command overhead overhead(f) (nil or 0 = none), spends on SlowdownCPU what fio
// spends there per command in the guest runs fios (usr + sys over its I/Os). It
// iterates f <- f x guest / model(f) netSlowdownRounds times from f0 (normally
// FioCPUSlowdown's gross factor; see Index.netSlowdown for why the gross factor
// charges the cell's own sleep-and-wake cycles twice). It returns an error when the
// guest runs have no CPU time or I/O, the model run fails, or a factor falls
// outside [1, dispatch.MaxEmulationSlowdown].
func NetSlowdown(cal *Case, job string, fios []*FioJSON, f0 float64, wake stack.EmulationOptions, overhead func(f float64) (time.Duration, error)) (float64, error) {
	k, err := fioCPUPerIO(fios)
	if err != nil {
		return 0, err
	}
	f := f0
	for range netSlowdownRounds {
		var oh time.Duration
		if overhead != nil {
			if oh, err = overhead(f); err != nil {
				return 0, err
			}
		}
		if oh == 0 {
			oh = -1 // none
		}
		m, err := RunModel(cal, job, ModelOptions{Seed: 1, EmulationSlowdown: f, Wake: wake,
			EmulationOverhead: oh})
		if err != nil {
			return 0, err
		}
		c, err := modelCPUPerIO(m, SlowdownCPU)
		if err != nil {
			return 0, err
		}
		next := f * k / c
		if math.IsNaN(next) || next < 1 || next > dispatch.MaxEmulationSlowdown {
			return 0, fmt.Errorf("oracle: slowdown calibration: guest fio %.1f µs of CPU per command, model %.2f µs at factor %.3g: net factor %.3g out of range [1, %d]",
				k/1e3, c/1e3, f, next, dispatch.MaxEmulationSlowdown)
		}
		f = next
	}
	return f, nil
}

// fioCPUPerIO is fio's CPU time per I/O (ns) in the guest runs: usr_cpu + sys_cpu
// (percent of one CPU over the job's runtime) times the runtime over the job's I/Os,
// the mean over the runs. It returns an error when a run has no job CPU time or no
// I/O.
func fioCPUPerIO(runs []*FioJSON) (float64, error) {
	if len(runs) == 0 {
		return 0, fmt.Errorf("oracle: slowdown calibration: no kernel run")
	}
	var k float64
	for _, fj := range runs {
		var busy, ios float64
		for _, j := range fj.Jobs {
			rt := max(j.Read.Runtime, j.Write.Runtime)
			busy += (j.UsrCPU + j.SysCPU) / 100 * float64(rt) * 1e6
			ios += float64(j.Read.TotalIOs + j.Write.TotalIOs)
		}
		if ios <= 0 || busy <= 0 {
			return 0, fmt.Errorf("oracle: slowdown calibration: a kernel run has no job CPU time or no I/O")
		}
		k += busy / ios / float64(len(runs))
	}
	return k, nil
}

// netCalibration reports whether the slowdown is the net fixed point (netSlowdown;
// BLKMQ_ORACLE_SLOWDOWN_NET unset or 1, the default since round 9) rather than
// FioCPUSlowdown's gross factor (BLKMQ_ORACLE_SLOWDOWN_NET=0, the rule of rounds 7-8).
// It returns an error for any other value.
func netCalibration() (bool, error) {
	switch v := os.Getenv("BLKMQ_ORACLE_SLOWDOWN_NET"); v {
	case "", "1":
		return true, nil
	case "0":
		return false, nil
	default:
		return false, fmt.Errorf("oracle: BLKMQ_ORACLE_SLOWDOWN_NET %q: allowed: 1 (default) or 0", v)
	}
}
