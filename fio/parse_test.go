package fio_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// view is the subset of Spec fields a parser test row checks.
type view struct {
	Name      string
	Index     int
	Group     int
	RW        string
	MixRead   int
	BS        int64
	Size      int64
	Depth     int
	EffDepth  int
	Engine    string
	Direct    bool
	Runtime   time.Duration
	Ramp      time.Duration
	TimeBased bool
	Target    string
}

func viewOf(specs []fio.Spec) []view {
	out := make([]view, len(specs))
	for i, s := range specs {
		out[i] = view{s.Name, s.Index, s.GroupID, s.RW.String(), s.RWMixRead, s.BlockSize, s.Size,
			s.IODepth, s.EffectiveIODepth, s.IOEngine.String(), s.Direct, s.Runtime, s.RampTime,
			s.TimeBased, s.Target}
	}
	return out
}

// def is a view with fio's defaults for a job named n.
func def(n string) view {
	return view{Name: n, RW: "read", MixRead: 50, BS: 4096, Depth: 1, EffDepth: 1, Engine: "psync", Target: n}
}

func with(v view, f func(*view)) view { f(&v); return v }

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		job  string
		want []view
	}{
		{"defaults", "[a]\n", []view{def("a")}},
		{"global-inheritance", "[global]\nbs=8k\niodepth=4\nioengine=libaio\n[a]\n[b]\nbs=16k\n", []view{
			with(def("a"), func(v *view) { v.BS, v.Depth, v.EffDepth, v.Engine = 8192, 4, 4, "libaio" }),
			with(def("b"), func(v *view) { v.BS, v.Depth, v.EffDepth, v.Engine = 16384, 4, 4, "libaio" }),
		}},
		{"later-global-affects-later-jobs-only", "[global]\nbs=8k\n[a]\n[global]\nrw=write\n[b]\n", []view{
			with(def("a"), func(v *view) { v.BS = 8192 }),
			with(def("b"), func(v *view) { v.BS, v.RW = 8192, "write" }),
		}},
		{"job-overrides-global", "[global]\nrw=randread\n[a]\nrw=randwrite\n", []view{
			with(def("a"), func(v *view) { v.RW = "randwrite" }),
		}},
		{"numjobs-clones", "[a]\nnumjobs=3\n", []view{
			def("a"), with(def("a"), func(v *view) { v.Index = 1 }), with(def("a"), func(v *view) { v.Index = 2 }),
		}},
		{"bom-crlf", "\ufeff[a]\r\nbs=8k\r\n", []view{with(def("a"), func(v *view) { v.BS = 8192 })}},
		{"comments-blank-spaces", "# c\n; c\n\n  [ a ]  \n  bs = 2k  \n\t; x\n", []view{
			with(def("a"), func(v *view) { v.BS = 2048 }),
		}},
		{"size-suffixes", "[a]\nsize=10G\n[b]\nsize=3m\n[c]\nfilesize=1t\n[d]\nbs=512\nsize=4KiB\n[e]\nsize=1MiB\n[f]\nsize=8192\n[g]\nbs=512\nsize=2kb\n", []view{
			with(def("a"), func(v *view) { v.Size = 10 << 30 }),
			with(def("b"), func(v *view) { v.Size = 3 << 20 }),
			with(def("c"), func(v *view) { v.Size = 1 << 40 }),
			with(def("d"), func(v *view) { v.BS, v.Size = 512, 4000 }), // fio kb_base=1024 quirk: KiB = 1000
			with(def("e"), func(v *view) { v.Size = 1000000 }),
			with(def("f"), func(v *view) { v.Size = 8192 }),
			with(def("g"), func(v *view) { v.BS, v.Size = 512, 2048 }),
		}},
		{"kb_base-1000", "[a]\nbs=512\nsize=4k\nkb_base=1000\n[b]\nkb_base=1000\nbs=4KiB\n", []view{
			with(def("a"), func(v *view) { v.BS, v.Size = 512, 4000 }),
			with(def("b"), func(v *view) { v.BS = 4096 }),
		}},
		{"time-suffixes", "[a]\nruntime=60\nramp_time=500ms\n[b]\nruntime=2m\nramp_time=1500us\n[c]\nruntime=1h\nramp_time=3s\n[d]\nruntime=1d\n", []view{
			with(def("a"), func(v *view) { v.Runtime, v.Ramp = time.Minute, 500*time.Millisecond }),
			with(def("b"), func(v *view) { v.Runtime, v.Ramp = 2*time.Minute, 1500*time.Microsecond }),
			with(def("c"), func(v *view) { v.Runtime, v.Ramp = time.Hour, 3*time.Second }),
			with(def("d"), func(v *view) { v.Runtime = 24 * time.Hour }),
		}},
		{"bools-bare-and-valued", "[a]\nruntime=1\ntime_based\ndirect=1\n[b]\ntime_based=0\nbuffered=0\n[c]\ndirect=1\nbuffered=1\n", []view{
			with(def("a"), func(v *view) { v.Runtime, v.TimeBased, v.Direct = time.Second, true, true }),
			with(def("b"), func(v *view) { v.Direct = true }),
			def("c"),
		}},
		{"sync-engine-caps-depth", "[a]\nioengine=psync\niodepth=32\n[b]\nioengine=io_uring\niodepth=32\n", []view{
			with(def("a"), func(v *view) { v.Depth = 32 }),
			with(def("b"), func(v *view) { v.Depth, v.EffDepth, v.Engine = 32, 32, "io_uring" }),
		}},
		{"rwmix", "[a]\nrw=randrw\nrwmixread=70\n[b]\nreadwrite=rw\nrwmixwrite=30\n", []view{
			with(def("a"), func(v *view) { v.RW, v.MixRead = "randrw", 70 }),
			with(def("b"), func(v *view) { v.RW, v.MixRead = "rw", 70 }),
		}},
		{"targets", "[/dev/sdb]\n[x]\nfilename=/dev/sdc:/dev/sdd\n[y]\ndirectory=/mnt/t\n[z]\nfilename=f\\:1:g\n[d]\ndirectory=/mnt/t\nfilename=f\n[e]\ndirectory=/mnt/t\nfilename=/dev/sde\n", []view{
			def("/dev/sdb"),
			with(def("x"), func(v *view) { v.Target = "/dev/sdc" }),
			with(def("y"), func(v *view) { v.Target = "/mnt/t" }),
			with(def("z"), func(v *view) { v.Target = "f:1" }),
			with(def("d"), func(v *view) { v.Target = "/mnt/t" }),
			with(def("e"), func(v *view) { v.Target = "/dev/sde" }),
		}},
		{"name-option", "[sec]\nname=renamed\n", []view{with(def("renamed"), func(v *view) { v.Target = "renamed" })}},
		{"groups-stonewall-new_group", "[a]\nnumjobs=2\n[b]\nstonewall\nnumjobs=2\n[c]\n[d]\nnew_group\n", []view{
			def("a"), with(def("a"), func(v *view) { v.Index = 1 }),
			with(def("b"), func(v *view) { v.Group = 1 }), with(def("b"), func(v *view) { v.Group, v.Index = 1, 1 }),
			with(def("c"), func(v *view) { v.Group = 1 }),
			with(def("d"), func(v *view) { v.Group = 2 }),
		}},
		{"stonewall-on-first-job-keeps-group-0", "[a]\nstonewall\n[b]\nwait_for_previous=1\n", []view{
			def("a"), with(def("b"), func(v *view) { v.Group = 1 }),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader(tc.job), "t.fio")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, viewOf(specs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for i, s := range specs {
				if s.Seq != i {
					t.Errorf("spec %d: Seq = %d", i, s.Seq)
				}
				if err := s.Validate(); err != nil {
					t.Errorf("Validate: %v", err)
				}
			}
		})
	}
}

func TestParseDetails(t *testing.T) {
	job := `[global]
iodepth=64
iodepth_batch_submit=16
iodepth_batch_complete_min=4
iodepth_batch_complete_max=32
ioengine=libaio
cpus_allowed=8,0-3,2
cpus_allowed_policy=split
rate_iops=500
percentage_random=40
offset=1m
startdelay=2
ioscheduler=mq-deadline
group_reporting
invalidate=1
thread
invalidate=0
lat_percentiles=1
percentile_list=50:99.9

[a]
rw=randwrite
`
	specs, err := fio.Parse(strings.NewReader(job), "d.fio")
	if err != nil {
		t.Fatal(err)
	}
	want := fio.DefaultSpec("a")
	want.File, want.Line = "d.fio", 21
	want.RW = fio.RWRandWrite
	want.IOEngine = fio.EngineLibaio
	want.IODepth, want.EffectiveIODepth, want.IODepthLow = 64, 64, 64
	want.IODepthBatchSubmit, want.IODepthBatchCompleteMin, want.IODepthBatchCompleteMax = 16, 4, 32
	want.CPUsAllowed = []int{0} // split: instance 0 keeps the first of 0-3,8
	want.CPUsAllowedPolicy = "split"
	want.RateIOPS = [2]int{500, 500}
	want.PercentageRandom = 40
	want.Offset = 1 << 20
	want.StartDelay = 2 * time.Second
	want.IOScheduler = "mq-deadline"
	want.GroupReporting = true
	want.LatPercentiles = true
	want.PercentileList = []float64{50, 99.9}
	want.Thread = true
	want.Ignored = []string{"invalidate"}
	for _, kv := range strings.Split(strings.TrimSpace(job), "\n") {
		if k, v, _ := strings.Cut(kv, "="); kv != "" && kv[0] != '[' {
			if k == "rw" {
				want.Options = append(want.Options, fio.Option{Key: k, Value: v})
			} else {
				want.GlobalOptions = append(want.GlobalOptions, fio.Option{Key: k, Value: v, Global: true})
			}
		}
	}
	if diff := cmp.Diff([]fio.Spec{want}, specs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseBatchFixups(t *testing.T) {
	tests := []struct {
		name                    string
		opts                    string
		submit, cmin, cmax, low int
	}{
		{"defaults", "iodepth=8", 1, 1, 1, 8},
		{"submit-0-means-depth", "iodepth=8\niodepth_batch=0", 8, 1, 1, 8},
		{"submit-capped-at-depth", "iodepth=8\niodepth_batch_submit=100", 8, 1, 1, 8},
		{"complete-max-raised-to-min", "iodepth=8\niodepth_batch_complete=4", 1, 4, 4, 8},
		{"complete-max-capped", "iodepth=8\niodepth_batch_complete_max=64", 1, 1, 8, 8},
		{"low", "iodepth=8\niodepth_low=2", 1, 1, 1, 2},
		{"sync-engine", "ioengine=sync\niodepth=8\niodepth_batch=4", 1, 1, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader("[global]\nioengine=libaio\n[j]\n"+tc.opts+"\n"), "b.fio")
			if err != nil {
				t.Fatal(err)
			}
			s := specs[0]
			got := []int{s.IODepthBatchSubmit, s.IODepthBatchCompleteMin, s.IODepthBatchCompleteMax, s.IODepthLow}
			if diff := cmp.Diff([]int{tc.submit, tc.cmin, tc.cmax, tc.low}, got); diff != "" {
				t.Errorf("submit, complete min, max, low (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, job, want string
	}{
		{"iodepth-0", "[job]\niodepth=0\n", "fio: e.fio:2: [job] iodepth=0: out of range [1, 65536]"},
		{"iodepth-huge", "[job]\niodepth=70000\n", "fio: e.fio:2: [job] iodepth=70000: out of range [1, 65536]"},
		{"bs-not-sector-multiple", "[job]\nbs=1000\n", "fio: e.fio:2: [job] bs=1000: not a multiple of 512"},
		{"bs-too-small", "[job]\nbs=256\n", "fio: e.fio:2: [job] bs=256: out of range [512, 1073741824]"},
		{"bs-four-directions", "[job]\nbs=4k,8k,4k,4k\n", "fio: e.fio:2: [job] bs=4k,8k,4k,4k: want SIZE or READ,WRITE[,TRIM]"},
		{"unknown-rw", "[job]\nrw=sideways\n", "fio: e.fio:2: [job] rw=sideways: unknown pattern; want one of read, write, randread, randwrite, rw, readwrite, randrw"},
		{"numjobs-huge", "[job]\nnumjobs=100000\n", "fio: e.fio:2: [job] numjobs=100000: out of range [1, 4096]"},
		{"numjobs-total", "[a]\nnumjobs=4000\n[b]\nnumjobs=100\n", "fio: e.fio:3: [b] 4100 job instances exceed the limit of 4096"},
		{"no-sections", "bs=4k\n", "fio: e.fio:1: bs=4k: option outside any section; start the file with [global] or [jobname]"},
		{"only-global", "[global]\nbs=4k\n", "fio: e.fio:1: no job sections; add a [jobname] section after [global]"},
		{"empty", "", "fio: e.fio:1: no job sections; add a [jobname] section after [global]"},
		{"negative-size", "[job]\nsize=-1\n", "fio: e.fio:2: [job] size=-1: negative value not allowed"},
		{"rwmixread-101", "[job]\nrwmixread=101\n", "fio: e.fio:2: [job] rwmixread=101: out of range [0, 100]"},
		{"unknown-option", "[job]\nfrobnicate=1\n", "fio: e.fio:2: [job] frobnicate=1: unknown option"},
		{"not-modelled", "[job]\nverify=md5\n", "fio: e.fio:2: [job] verify=md5: fio option not modelled by blkmq"},
		{"error-in-global", "[global]\nruntime=abc\n[job]\n", "fio: e.fio:2: [global] runtime=abc: not a time; want a number with an optional us, ms, s, m, h, d suffix"},
		{"global-error-reported-in-job-context", "[global]\niodepth=0\n", "fio: e.fio:2: [global] iodepth=0: out of range [1, 65536]"},
		{"time-suffix", "[job]\nruntime=5y\n", "fio: e.fio:2: [job] runtime=5y: unknown time suffix \"y\"; want us, ms, s, m, h or d (fio's get_mult_time reads any other unit as microseconds)"},
		{"size-suffix", "[job]\nsize=5q\n", "fio: e.fio:2: [job] size=5q: unknown size suffix \"q\"; want k, m, g, t, p (with optional b or ib)"},
		{"size-overflow", "[job]\nsize=99999999999p\n", "fio: e.fio:2: [job] size=99999999999p: out of range [0, 1152921504606846976]"},
		{"size-percent-over-100", "[job]\nsize=150%\n", "fio: e.fio:2: [job] size=150%: percentage \"150%\" out of range (0, 100]"},
		{"size-smaller-than-bs", "[job]\nbs=8k\nsize=4k\n", "fio: e.fio:3: [job] size=4k: smaller than bs 8192"},
		{"time_based-without-runtime", "[job]\ntime_based\n", "fio: e.fio:2: [job] time_based: needs runtime > 0"},
		{"bad-bool", "[job]\ndirect=yes\n", "fio: e.fio:2: [job] direct=yes: not a boolean; want 0 or 1"},
		{"bad-engine", "[job]\nioengine=spdk\n", "fio: e.fio:2: [job] ioengine=spdk: unknown engine; want one of psync, sync, vsync, pvsync, pvsync2, libaio, io_uring, posixaio (fio 3.33 has no such engine and would try to dlopen \"spdk\" as an external one, which blkmq does not model)"},
		{"bad-cpus", "[job]\ncpus_allowed=3-1\n", "fio: e.fio:2: [job] cpus_allowed=3-1: range 3-1 ends before it starts"},
		{"cpu-too-big", "[job]\ncpus_allowed=0,5000\n", "fio: e.fio:2: [job] cpus_allowed=0,5000: CPU \"5000\": out of range [0, 4095]"},
		{"offset-unaligned", "[job]\noffset=100\n", "fio: e.fio:2: [job] offset=100: not a multiple of 512"},
		{"malformed-header", "[job\n", "fio: e.fio:1: malformed section header \"[job\"; want [name]"},
		{"empty-header", "[ ]\n", "fio: e.fio:1: empty section name"},
		{"missing-string", "[job]\nfilename=\n", "fio: e.fio:2: [job] filename: missing value"},
		{"missing-int", "[job]\niodepth\n", "fio: e.fio:2: [job] iodepth: missing value"},
		{"int-garbage", "[job]\niodepth=12abc\n", "fio: e.fio:2: [job] iodepth=12abc: unknown size suffix \"abc\"; want k, m, g, t, p (with optional b or ib)"},
		{"int-overflow", "[job]\niodepth=99999999999999999999999\n", "fio: e.fio:2: [job] iodepth=99999999999999999999999: overflows 64 bits"},
		{"percentile-list", "[job]\npercentile_list=50:101\n", "fio: e.fio:2: [job] percentile_list=50:101: percentile \"101\" out of range (0, 100]"},
		{"policy", "[job]\ncpus_allowed_policy=spread\n", "fio: e.fio:2: [job] cpus_allowed_policy=spread: want shared or split"},
		{"kb_base-1000-bs", "[job]\nkb_base=1000\nbs=1k\n", "fio: e.fio:3: [job] bs=1k: not a multiple of 512 (1000 bytes: with kb_base=1000, k/m/g/... are powers of 1000 (4k is 4000); write kib/mib/..., which are powers of 1024 there, or drop kb_base=1000)"},
		{"kb_base-bad", "[job]\nkb_base=512\n", "fio: e.fio:2: [job] kb_base=512: want 1000 or 1024"},
		{"avgtime-zero", "[job]\nbwavgtime=0\n", "fio: e.fio:2: [job] bwavgtime=0: out of range [1ms, 8760h0m0s]"},
		{"missing-key", "[job]\n=4k\n", "fio: e.fio:2: [job] missing option name in \"=4k\""},
		{"runtime-too-long", "[job]\nruntime=400d\n", "fio: e.fio:2: [job] runtime=400d: out of range [0, 8760h0m0s]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fio.Parse(strings.NewReader(tc.job), "e.fio")
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), tc.want)
			}
			var pe *fio.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []view
		err  string
	}{
		{"globals-before-name", []string{"fio", "--bs=8k", "--name=a", "--rw=write", "--name=b"}, []view{
			with(def("a"), func(v *view) { v.BS, v.RW = 8192, "write" }),
			with(def("b"), func(v *view) { v.BS = 8192 }),
		}, ""},
		{"bare-bool", []string{"--runtime=1", "--time_based", "--name=x"}, []view{
			with(def("x"), func(v *view) { v.Runtime, v.TimeBased = time.Second, true }),
		}, ""},
		{"name-global", []string{"--name=global", "--bs=2k", "--name=j"}, []view{
			with(def("j"), func(v *view) { v.BS = 2048 }),
		}, ""},
		{"positional", []string{"--bs=4k", "job.fio"}, nil, "fio: <args>:2: job file arguments are not supported; use ParseFile, or give options as --key=value"},
		{"bad-value", []string{"--name=x", "--iodepth=0"}, nil, "fio: <args>:2: [x] iodepth=0: out of range [1, 65536]"},
		{"no-job", []string{"--bs=4k"}, nil, "fio: <args>:1: no job sections; add a [jobname] section after [global]"},
		{"empty-name", []string{"--name="}, nil, "fio: <args>:1: name: missing value"},
		{"dashes-only", []string{"--"}, nil, "fio: <args>:1: missing option name in \"--\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := fio.ParseArgs(tc.args)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v; want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, viewOf(specs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitCommandLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"fio --a=1 \\\n  --b=2", []string{"fio", "--a=1", "--b=2"}, false},
		{`--filename='/dev/sd a' --x="q\"z" e\ f`, []string{"--filename=/dev/sd a", `--x=q"z`, "e f"}, false},
		{"  ", nil, false},
		{"'open", nil, true},
		{`"open`, nil, true},
	}
	for _, tc := range tests {
		got, err := fio.SplitCommandLine(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("SplitCommandLine(%q) error = %v; want error %v", tc.in, err, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("SplitCommandLine(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*fio.Spec)
		want string
	}{
		{"default-ok", func(*fio.Spec) {}, ""},
		{"iodepth-0", func(s *fio.Spec) { s.IODepth = 0 }, `fio: job "j": iodepth 0 out of range [1, 65536]`},
		{"bs-unaligned", func(s *fio.Spec) { s.BlockSize = 1000 }, `fio: job "j": bs 1000 out of range [512, 1073741824] or not a multiple of 512`},
		{"size-negative", func(s *fio.Spec) { s.Size = -1 }, `fio: job "j": size -1 out of range [0, 1152921504606846976]`},
		{"rwmix", func(s *fio.Spec) { s.RWMixRead = 101 }, `fio: job "j": rwmixread 101 out of range [0, 100]`},
		{"sync-depth", func(s *fio.Spec) { s.IODepth, s.EffectiveIODepth = 8, 8 },
			`fio: job "j": effective iodepth 8 must be 1 for synchronous engine psync`},
		{"no-target", func(s *fio.Spec) { s.Target = "" }, `fio: job "j": empty target; set Filename, Directory or Name`},
		{"time_based", func(s *fio.Spec) { s.TimeBased = true }, `fio: job "j": time_based true needs runtime > 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := fio.DefaultSpec("j")
			tc.mod(&s)
			err := s.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Validate() = %q; want %q", got, tc.want)
			}
		})
	}
}
