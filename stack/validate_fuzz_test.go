package stack_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// wild returns, from the next fuzzed byte, one of the values that break code
// written for the happy path: zero, negatives, one, odd sizes, the int extremes, or
// a plain value in [lo, hi].
func (f *fuzzBytes) wild(lo, hi int64) int64 {
	switch f.u8() % 12 {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return 1
	case 3:
		return 3
	case 4:
		return -1 << 62
	case 5:
		return 1<<63 - 1
	case 6:
		return 1 << 40
	}
	return lo + int64(f.u16())%(hi-lo+1)
}

// fuzzSpec builds a job spec in Go, not through the parser: the zero Spec, or
// fio.DefaultSpec with some fields set to wild values, the derived fields sometimes
// fixed up as Parse would and sometimes left inconsistent.
func fuzzSpec(f *fuzzBytes, i, nLUN int) fio.Spec {
	if f.u8()%8 == 0 {
		return fio.Spec{}
	}
	s := fio.DefaultSpec(fmt.Sprintf("j%d", i))
	s.Target = string(rune('a' + f.u8()%(nLUN+1))) // sometimes no such LUN
	s.Size = 64 << 10                              // unless set below: keep fuzzed runs short
	for range f.u8() % 10 {
		switch f.u8() % 18 {
		case 0:
			s.RW = fio.RW(f.u8())
		case 1:
			s.BlockSize = f.wild(512, 1<<20) &^ 511
		case 2:
			s.BlockSize = f.wild(-4096, 1<<21)
		case 3:
			s.IODepth = int(f.wild(0, 64))
		case 4:
			s.EffectiveIODepth = int(f.wild(0, 64))
		case 5:
			s.IOEngine = fio.IOEngine(f.u8() % 10)
		case 6:
			s.Size = f.wild(0, 1<<22)
		case 7:
			s.Offset = f.wild(0, 1<<22)
		case 8:
			s.Runtime = time.Duration(f.wild(0, 2000)) * time.Microsecond
		case 9:
			s.TimeBased = f.u8()%2 == 0
		case 10:
			s.CPUsAllowed = []int{int(f.wild(0, 8))}
		case 11:
			s.Loops = int(f.wild(0, 4))
		case 12:
			s.RWMixRead = int(f.wild(0, 100))
		case 13:
			s.IODepthBatchSubmit, s.IODepthBatchCompleteMin, s.IODepthBatchCompleteMax = int(f.wild(0, 8)), int(f.wild(0, 8)), int(f.wild(0, 8))
		case 14:
			s.RampTime, s.StartDelay = time.Duration(f.wild(0, 500))*time.Microsecond, time.Duration(f.wild(0, 500))*time.Microsecond
		case 15:
			s.Runtime = time.Duration(f.wild(0, 1<<20)) * time.Second // up to years: must be refused, not run
		case 16:
			s.NumJobs, s.Index = int(f.wild(0, 4)), int(f.wild(0, 4))
		case 17:
			r := int(f.wild(0, 1000))
			s.RateIOPS = [2]int{r, r}
		}
	}
	if f.u8()%2 == 0 { // derive as Parse does, when the inputs allow it
		s.EffectiveIODepth = s.IODepth
		if !s.IOEngine.Async() && s.EffectiveIODepth > 1 {
			s.EffectiveIODepth = 1
		}
		d := max(s.EffectiveIODepth, 1)
		s.IODepthLow = d
		s.IODepthBatchSubmit = min(max(s.IODepthBatchSubmit, 1), d)
		s.IODepthBatchCompleteMin = min(s.IODepthBatchCompleteMin, d)
		s.IODepthBatchCompleteMax = min(max(s.IODepthBatchCompleteMax, max(s.IODepthBatchCompleteMin, 1)), d)
	}
	return s
}

// fuzzDirectConfig builds a Config in Go with wild values in every field a user sets.
func fuzzDirectConfig(f *fuzzBytes) stack.Config {
	cfg := stack.Config{
		NrCPUs: int(f.wild(1, 8)),
		Host: stack.Host{CanQueue: int(f.wild(1, 128)), NrHwQueues: int(f.wild(0, 8)), CmdPerLun: int(f.wild(0, 20000)),
			HostTagset: f.u8()%2 == 1},
		Kernel:   []string{"", "6.1", "5.17", "4.15", "9.9", "x"}[f.u8()%6],
		Watchdog: sim.Time(f.wild(0, 200)) * sim.Millisecond,
		Limits:   stack.Limits{MaxEvents: 100_000, MaxMemory: 256 << 20},
	}
	if f.u8()%4 == 0 {
		cfg.Submit = stack.SubmitTiming{ReapMin: sim.Time(f.wild(0, 50)), ReapMax: sim.Time(f.wild(0, 50)), WorkerStep: sim.Time(f.wild(0, 10))}
	}
	if f.u8()%4 == 0 {
		cfg.Timing = dispatch.Timing{KblockdMin: sim.Time(f.wild(0, 10)), KblockdMax: sim.Time(f.wild(0, 10)), ResourceDelay: sim.Time(f.wild(0, 10))}
	}
	if f.u8()%8 == 0 {
		cfg.CPU.Off = true
	}
	cfg.Placement.WakeMigrate = []float64{0, -1, 0.5, 1, 2}[f.u8()%5]
	for i := range 1 + f.u8()%2 {
		name := string(rune('a' + i))
		delay := sim.Time(f.wild(0, 100_000))
		nilDev := f.u8()%16 == 0
		cfg.LUNs = append(cfg.LUNs, stack.LUN{Name: name,
			Device: func(eng *sim.Engine) (device.Device, error) {
				if nilDev {
					return nil, errors.New("no device")
				}
				return device.NewNull(eng, device.NullParams{Name: name, CompletionNsec: delay})
			},
			QueueDepth: int(f.wild(0, 64)), NrRequests: int(f.wild(0, 256)),
			Scheduler:    []string{"", "none", "mq-deadline", "bfq"}[f.u8()%4],
			MaxSectorsKB: int(f.wild(0, 2048))})
	}
	return cfg
}

// FuzzRunInputs builds stack Configs and fio Specs directly in Go (not through the
// parser), with zero, negative, odd and extreme values in every field a user sets,
// and runs them with small limits (100 k events, 256 MiB). Run must return an error
// or a bounded successful run, never panic or hang (20 s of wall time is a hang); its
// errors must be typed (*ConfigError, *ResourceLimitError, *WatchdogError); and Check
// must agree with Run: a configuration Check accepts is never rejected by Run as
// invalid, one Check rejects Run rejects with the same message. Seeds:
// stack/testdata/fuzz/FuzzRunInputs.
func FuzzRunInputs(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 4, 0, 1, 0, 64, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 3, 0, 7, 0})
	f.Add([]byte("\x01\x01\x02\x02\x03\x03\x04\x04\x05\x05\x06\x06\x07\x07\x08\x08\x09\x09\x0a\x0a\x0b\x0b"))
	f.Add([]byte("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0\xef\xee\xed\xec"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fb := &fuzzBytes{data}
		cfg := fuzzDirectConfig(fb)
		specs := []fio.Spec{} // not nil: Check(cfg, nil) checks the Config only
		for i := range fb.u8() % 4 {
			specs = append(specs, fuzzSpec(fb, i, len(cfg.LUNs)))
		}
		type out struct {
			res *stack.Result
			err error
		}
		done := make(chan out, 1)
		cerr := stack.Check(cfg, specs)
		go func() {
			res, err := stack.Run(cfg, specs)
			done <- out{res, err}
		}()
		var o out
		select {
		case o = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Run has not returned after 20 s of wall time: a hang\n%+v\n%+v", cfg, specs)
		}
		if o.err != nil {
			var ce *stack.ConfigError
			var re *stack.ResourceLimitError
			var we *stack.WatchdogError
			typed := errors.As(o.err, &ce) || errors.As(o.err, &re) || errors.As(o.err, &we)
			if !typed && cerr == nil {
				t.Fatalf("Check accepted, Run failed with an untyped error: %v", o.err)
			}
			if !strings.HasPrefix(o.err.Error(), "stack: ") {
				t.Fatalf("error without the package prefix: %v", o.err)
			}
			if ce != nil && cerr == nil {
				t.Fatalf("Check accepted, Run rejected the input: %v", o.err)
			}
		}
		if cerr != nil {
			var ce *stack.ConfigError
			if errors.As(cerr, &ce) && (o.err == nil || o.err.Error() != cerr.Error()) && !strings.Contains(cerr.Error(), ".Device") {
				t.Fatalf("Check: %v, but Run: %v", cerr, o.err)
			}
			return
		}
		if o.err != nil {
			return
		}
		if len(o.res.Jobs) != len(specs) {
			t.Fatalf("%d results for %d jobs", len(o.res.Jobs), len(specs))
		}
		if o.res.Events > 100_000+1<<16 {
			t.Fatalf("run fired %d events, over the 100 k limit", o.res.Events)
		}
		for _, j := range o.res.Jobs {
			if msg := resultProblem(j); msg != "" {
				t.Fatalf("job %s: %s", j.Spec.Instance(), msg)
			}
		}
	})
}
