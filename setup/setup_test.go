package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/nullblk"
	"github.com/blkmq/blkmq/scsi"
	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
	"github.com/google/go-cmp/cmp"
)

// hostOf is the parts of a resolved config the parsing tests compare.
type hostOf struct {
	CPUs       int
	Host       stack.Host
	QueueDepth int
	NrRequests int
	Scheduler  string
	MaxSectors int
	LUNs       []string
	Kernel     string
}

func summary(r *Resolved) hostOf {
	c := r.Config
	return hostOf{CPUs: c.NrCPUs, Host: c.Host, QueueDepth: c.LUNs[0].QueueDepth, NrRequests: c.LUNs[0].NrRequests,
		Scheduler: c.LUNs[0].Scheduler, MaxSectors: c.LUNs[0].MaxSectorsKB, LUNs: r.LUNs, Kernel: c.Kernel}
}

func TestResolveGood(t *testing.T) {
	tests := []struct {
		name string
		d    Description
		want hostOf
	}{
		{"default/null_blk", Description{},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 64, Driver: stack.DriverNullBlk, NullBlk: stack.NullBlk{IRQMode: nullblk.IRQSoftIRQ}}, Scheduler: "none", MaxSectors: 127, LUNs: []string{"/dev/nullb0"}}},
		// F: 6.1's poll_queues=1 adds a poll hctx, so nr_hw_queues is 2 for the
		// default-scheduler rule (kernel guest: /sys/block/nullb0/mq has 2 entries,
		// scheduler [none]); the poll hctx is not simulated.
		{"F/null_blk-poll_queues-0", Description{Devices: []string{"null_blk poll_queues=0"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 64, Driver: stack.DriverNullBlk, NullBlk: stack.NullBlk{IRQMode: nullblk.IRQSoftIRQ}}, MaxSectors: 127, LUNs: []string{"/dev/nullb0"}}},
		{"F/null_blk-poll_queues-shared_tag_bitmap", Description{Devices: []string{"null_blk poll_queues=2 shared_tag_bitmap=1"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 64, HostTagset: true, Driver: stack.DriverNullBlk, NullBlk: stack.NullBlk{IRQMode: nullblk.IRQSoftIRQ}}, Scheduler: "mq-deadline", MaxSectors: 127, LUNs: []string{"/dev/nullb0"}}},
		{"F/null_blk-poll_queues-set-scheduler", Description{Devices: []string{"null_blk"}, Set: []string{"queue/scheduler=mq-deadline"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 64, Driver: stack.DriverNullBlk, NullBlk: stack.NullBlk{IRQMode: nullblk.IRQSoftIRQ}}, Scheduler: "mq-deadline", MaxSectors: 127, LUNs: []string{"/dev/nullb0"}}},
		{"scsi_debug/003-host_max_queue", Description{CPUs: 2, Devices: []string{"scsi_debug delay=0 no_rwlock=1 host_max_queue=192 submit_queues=2"}},
			hostOf{CPUs: 2, Host: stack.Host{CanQueue: 192, NrHwQueues: 2, CmdPerLun: 192, HostTagset: true, Completion: scsi.CompleteOnIssueCPU, CopiesData: true}, MaxSectors: 512, LUNs: []string{"/dev/sda"}}},
		{"scsi_debug/modprobe-prefix-and-luns", Description{CPUs: 16, Devices: []string{"modprobe scsi_debug scsi_debug.max_queue=64 max_luns=2 submit_queues=32"}},
			hostOf{CPUs: 16, Host: stack.Host{CanQueue: 64, NrHwQueues: 16, CmdPerLun: 192, Completion: scsi.CompleteOnIssueCPU, CopiesData: true}, MaxSectors: 512, LUNs: []string{"/dev/sda", "/dev/sdb"}}},
		// G: 6.1 guest sysfs max_sectors_kb: scsi_debug 512 (opt_blks 1024 × 512 B),
		// null_blk 127 (BLK_SAFE_MAX_SECTORS 255 sectors).
		{"G/scsi_debug-opt_blks", Description{Devices: []string{"scsi_debug opt_blks=256 sector_size=4096"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 192, NrHwQueues: 1, CmdPerLun: 192, Completion: scsi.CompleteOnIssueCPU, CopiesData: true}, MaxSectors: 1024, LUNs: []string{"/dev/sda"}}},
		{"G/scsi_debug-opt_blks-below-page", Description{Devices: []string{"scsi_debug opt_blks=4"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 192, NrHwQueues: 1, CmdPerLun: 192, Completion: scsi.CompleteOnIssueCPU, CopiesData: true}, MaxSectors: 1280, LUNs: []string{"/dev/sda"}}},
		{"G/null_blk-max_sectors-capped", Description{Devices: []string{"null_blk max_sectors=8192"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 64, NrHwQueues: 1, CmdPerLun: 64, Driver: stack.DriverNullBlk, NullBlk: stack.NullBlk{IRQMode: nullblk.IRQSoftIRQ}}, Scheduler: "none", MaxSectors: 1280, LUNs: []string{"/dev/nullb0"}}},
		{"G/set-overrides-device-default", Description{Devices: []string{"scsi_debug"}, Set: []string{"queue/max_sectors_kb=64"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 192, NrHwQueues: 1, CmdPerLun: 192, Completion: scsi.CompleteOnIssueCPU, CopiesData: true}, MaxSectors: 64, LUNs: []string{"/dev/sda"}}},
		{"null_blk/shared", Description{CPUs: 8, Devices: []string{"null_blk completion_nsec=200000 irqmode=2 hw_queue_depth=32 submit_queues=4 shared_tags=1 nr_devices=2 shared_tag_bitmap=1 no_sched=1 max_sectors=256"}},
			hostOf{CPUs: 8, Host: stack.Host{CanQueue: 32, NrHwQueues: 4, CmdPerLun: 32, HostTagset: true, Driver: stack.DriverNullBlk, NullBlk: stack.NullBlk{IRQMode: nullblk.IRQTimer, NoSched: true}}, Scheduler: "none", MaxSectors: 128, LUNs: []string{"/dev/nullb0", "/dev/nullb1"}}},
		{"storvsc/000", Description{Kernel: "5.17", CPUs: 16, Devices: []string{"cloud"}, Set: []string{"queue/nr_requests=56", "device/queue_depth=15"}},
			hostOf{CPUs: 16, Host: stack.Host{CanQueue: 1024, NrHwQueues: 16, CmdPerLun: 2048, Completion: scsi.CompleteOnVMBusChannel, ChannelCPUs: []int{0, 4, 8, 12}}, QueueDepth: 15, NrRequests: 56, MaxSectors: 512, LUNs: []string{"/dev/sda"}, Kernel: "5.17"}},
		{"storvsc/tags=shared", Description{CPUs: 16, Devices: []string{"cloud iops=5000 mbps=200"}, Set: []string{"tags=shared", "queue/scheduler=mq-deadline", "queue/max_sectors_kb=512"}},
			hostOf{CPUs: 16, Host: stack.Host{CanQueue: 1024, NrHwQueues: 16, CmdPerLun: 2048, HostTagset: true, Completion: scsi.CompleteOnVMBusChannel, ChannelCPUs: []int{0, 4, 8, 12}}, Scheduler: "mq-deadline", MaxSectors: 512, LUNs: []string{"/dev/sda"}}},
		{"generic/hdd+ssd", Description{Host: "generic can_queue=128 nr_hw_queues=2", Devices: []string{"hdd model=cheetah-15k3 tcq=1 aging_ms=250", "ssd parallel_units=8"}, Set: []string{"host/host_tagset=1", "host/cmd_per_lun=32"}},
			hostOf{CPUs: 4, Host: stack.Host{CanQueue: 128, NrHwQueues: 2, CmdPerLun: 32, HostTagset: true}, MaxSectors: 512, LUNs: []string{"/dev/sda", "/dev/sdb"}}},
		{"set/overrides-device", Description{Devices: []string{"scsi_debug max_queue=100"}, Set: []string{"host/can_queue=50", "system/nr_cpus=3"}},
			hostOf{CPUs: 3, Host: stack.Host{CanQueue: 50, NrHwQueues: 1, CmdPerLun: 192, Completion: scsi.CompleteOnIssueCPU, CopiesData: true}, MaxSectors: 512, LUNs: []string{"/dev/sda"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.d.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summary(r)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveBad(t *testing.T) {
	tests := []struct {
		name string
		d    Description
		want string
	}{
		{"unknown-key", Description{Set: []string{"queue/nr_reqs=56"}},
			`setup: flags: unknown key "queue/nr_reqs"; allowed: device/queue_depth, era/budget_map_skip, era/deadline_clear_next_rq, era/default_elevator, era/dev_resource, era/device_busy_counter, era/host_busy_check, era/map_queues, era/max_plug_requests, era/no_budget_rerun, era/no_plug_request_cache, era/no_sched_batch, era/no_tag_wait_barrier, era/run_all_hctxs_with_sq_sched, era/scsi_restart, era/sw_queue_dequeue, host/can_queue, host/cmd_per_lun, host/host_tagset, host/nr_hw_queues, kernel, queue/max_hw_sectors_kb, queue/max_sectors_kb, queue/max_segment_size, queue/max_segments, queue/nr_requests, queue/scheduler, run/sysfs_writes, system/check_preempt_tick, system/emulation_overhead, system/emulation_slowdown, system/emulation_wake_switch, system/hz, system/irq_preempt, system/kblockd_ttwu, system/kblockd_wakeup_preempt, system/nr_cpus, system/place_entity_credit, system/process_one_work, system/rebalance_domains, system/sched_fork_idlest_group, system/sched_fork_placement, system/sched_kworker_tasks, system/sched_nohz_kick, system/sched_numa_pull, system/sched_pelt_load, system/sched_placement, system/sched_wake_placement, tags`},
		{"no-equals", Description{Set: []string{"queue/nr_requests"}},
			`setup: flags: "queue/nr_requests": want key=value (e.g. queue/nr_requests=56)`},
		{"nr_requests-range", Description{Set: []string{"queue/nr_requests=5000"}},
			`setup: flags: queue/nr_requests=5000: allowed: an integer in [1, 2048]`},
		{"scheduler", Description{Set: []string{"queue/scheduler=bfq"}},
			`setup: flags: queue/scheduler=bfq: bfq is a kernel I/O scheduler the model does not simulate; allowed: none, mq-deadline, default`},
		{"tags", Description{Set: []string{"tags=global"}},
			`setup: flags: tags=global: allowed: per-hctx, shared`},
		{"kernel-4.14", Description{Kernel: "4.14"},
			`setup: flags: kernel=4.14: allowed: MAJOR.MINOR in [4.15, 6.19] (the blk-mq SCSI budget era), a stable release (6.1.192: mainline plus its modelled backports) or a uname -r form (6.1.0-57-amd64, v5.17, 6.8-rc2), or current`},
		{"era-enum", Description{Set: []string{"era/scsi_restart=sometimes"}},
			`setup: flags: era/scsi_restart=sometimes: allowed: counter, every-completion`},
		{"device-kind", Description{Devices: []string{"virtio queues=4"}},
			`setup: flags: --device "virtio queues=4": unknown device kind "virtio"; allowed: cloud, hdd, null_blk, nvme, scsi_debug, ssd`},
		{"scsi_debug-unknown", Description{Devices: []string{"scsi_debug maxqueue=64"}},
			`setup: flags: --device "scsi_debug maxqueue=64": unknown scsi_debug parameter "maxqueue"; allowed: dev_size_mb, virtual_gb, delay, ndelay, max_queue, host_max_queue, submit_queues, max_luns, num_tgts, add_host, random, every_nth, opt_blks, sector_size, fake_rw, opts, poll_queues, zbc`},
		{"scsi_debug-range", Description{Devices: []string{"scsi_debug max_queue=500"}},
			`setup: flags: --device "scsi_debug max_queue=500": scsi_debug parameter max_queue=500: allowed: an integer in [1, 192]`},
		{"null_blk-unknown", Description{Devices: []string{"null_blk completion=5"}},
			`setup: flags: --device "null_blk completion=5": unknown null_blk parameter "completion"; allowed: completion_nsec, irqmode, hw_queue_depth, submit_queues, poll_queues, nr_devices, shared_tags, shared_tag_bitmap, no_sched, mbps, queue_mode, max_sectors, gb, blocking, zoned`},
		{"G/scsi_debug-sector_size", Description{Devices: []string{"scsi_debug sector_size=520"}},
			`setup: flags: --device "scsi_debug sector_size=520": scsi_debug parameter sector_size=520: allowed: 512, 1024, 2048, 4096`},
		{"F/null_blk-poll_queues-negative", Description{Devices: []string{"null_blk poll_queues=-1"}},
			`setup: flags: --device "null_blk poll_queues=-1": null_blk parameter poll_queues=-1: allowed: an integer in [0, 4096]`},
		{"null_blk-zoned", Description{Devices: []string{"null_blk nr_devices=2 zoned=1"}},
			`setup: flags: --device "null_blk nr_devices=2 zoned=1": null_blk parameter zoned=1: not modelled; allowed: 0`},
		{"driver-twice", Description{Devices: []string{"scsi_debug", "cloud", "scsi_debug max_luns=2"}},
			`setup: flags: --device "scsi_debug max_luns=2": scsi_debug is one module, loaded once: give it once (more LUNs: scsi_debug max_luns= or num_tgts=, null_blk nr_devices=, nvme namespaces=)`},
		{"driver-with-host", Description{Host: "storvsc", Devices: []string{"null_blk"}},
			`setup: flags: --host "storvsc": null_blk is its own host; describe it with its module parameters or --set host/...`},
		{"host-kind", Description{Host: "megaraid", Devices: []string{"hdd"}},
			`setup: flags: --host "megaraid": unknown host kind "megaraid"; allowed: generic, storvsc`},
		{"hdd-model", Description{Devices: []string{"hdd model=ibm"}},
			`setup: flags: --device "hdd model=ibm": hdd parameter model=ibm: allowed: cheetah-15k7, cheetah-15k3`},
		{"cloud-validate", Description{Devices: []string{"cloud iops_burst=1 iops=0"}},
			`setup: flags: --device "cloud iops_burst=1 iops=0": cloud parameter iops=0: allowed: a number in [1, 1e+09]`},
		{"queue_depth-above-can_queue", Description{Devices: []string{"scsi_debug max_queue=32"}, Set: []string{"device/queue_depth=64"}},
			`setup: device/queue_depth=64: allowed: [1, min(host/can_queue 32, 10000)]`},
		{"bad-pair", Description{Devices: []string{"null_blk irqmode"}},
			`setup: flags: --device "null_blk irqmode": "irqmode": want key=value`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.d.Resolve()
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScsiDebugDelay checks the jiffies/ndelay semantics through the built device.
func TestScsiDebugDelay(t *testing.T) {
	tests := []struct {
		name string
		dev  string
		set  []string
		want sim.Time
	}{
		{"default-1-jiffy-HZ250", "scsi_debug", nil, 4 * sim.Millisecond},
		{"delay=0-immediate", "scsi_debug delay=0", nil, 0},
		{"delay=5", "scsi_debug delay=5", nil, 20 * sim.Millisecond},
		{"HZ=1000", "scsi_debug delay=2", []string{"system/hz=1000"}, 2 * sim.Millisecond},
		{"ndelay-overrides", "scsi_debug delay=5 ndelay=30000", nil, 30 * sim.Microsecond},
		{"null_blk-irqmode2", "null_blk completion_nsec=200000 irqmode=2", nil, 200 * sim.Microsecond},
		{"null_blk-softirq-ignores", "null_blk completion_nsec=200000", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: []string{tc.dev}, Set: tc.set}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			d, err := r.Config.LUNs[0].Device(sim.NewEngine())
			if err != nil {
				t.Fatal(err)
			}
			if got := d.(*device.Null).Params().CompletionNsec; got != tc.want {
				t.Errorf("CompletionNsec = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExplainSources(t *testing.T) {
	r, err := ResolveLayers(
		Layer{Name: "config a.toml", Desc: Description{Kernel: "5.10", Set: []string{"queue/nr_requests=32"}}},
		Layer{Name: "flags", Desc: Description{Devices: []string{"scsi_debug host_max_queue=64 no_rwlock=1"}, Set: []string{"device/queue_depth=15", "era/no_sched_batch=0"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range r.Settings {
		got[s.Key] = s.Value + " | " + s.Source
	}
	want := map[string]string{
		"kernel":               "5.10 | config a.toml",
		"system/nr_cpus":       "4 | default",
		"host/can_queue":       "64 | device scsi_debug (flags)",
		"host/host_tagset":     "1 | device scsi_debug (flags) (host_max_queue)",
		"device/queue_depth":   "15 | flags",
		"queue/nr_requests":    "32 | config a.toml",
		"queue/scheduler":      "mq-deadline (kernel default) | default",
		"era/scsi_restart":     "counter | era 5.10",
		"era/no_sched_batch":   "0 | flags",
		"era/default_elevator": "single-queue | era 5.10",
		"scsi_debug.no_rwlock": "1 | device scsi_debug (flags)",
		"sbitmap/wake_scheme":  "countdown (v4.10-v6.1) | era 5.10",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	if !strings.Contains(r.Explain(), "scsi_debug.no_rwlock") {
		t.Errorf("Explain lacks the inert parameter:\n%s", r.Explain())
	}
}

func TestSizeJobs(t *testing.T) {
	tests := []struct {
		name string
		dev  string
		job  string
		want int64
	}{
		{"scsi_debug-default-8MiB", "scsi_debug", "[j]\nrw=randread\n", 8 << 20},
		{"scsi_debug-virtual_gb", "scsi_debug virtual_gb=2 dev_size_mb=16", "[j]\nrw=randread\noffset=1m\n", 2<<30 - 1<<20},
		{"null_blk-gb", "null_blk gb=4", "[j]\nrw=randread\n", 4 << 30},
		{"size-given", "scsi_debug", "[j]\nrw=randread\nsize=1m\n", 1 << 20},
		// the ssd kind's stated default capacity (an assumed 1 TB), not the stack's
		// silent 1 GiB: fio covers the whole block device
		{"ssd-default-capacity", "ssd", "[j]\nrw=randread\n", 1e12},
		{"ssd-capacity_gb", "ssd capacity_gb=2", "[j]\nrw=randread\noffset=1g\n", 2e9 - 1<<30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader(tc.job), "j.fio")
			if err != nil {
				t.Fatal(err)
			}
			r, err := Description{Devices: []string{tc.dev}}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			r.SizeJobs(specs)
			if specs[0].Size != tc.want {
				t.Errorf("size %d, want %d", specs[0].Size, tc.want)
			}
		})
	}
}

// TestCheckTargets: a job naming a /dev/ path the machine lacks is an error naming
// the file, line, job and the devices that exist (fio would fail to open it); a job
// naming no device runs on the only LUN.
func TestCheckTargets(t *testing.T) {
	job := func(filename, dir string) []fio.Spec {
		s := fio.Spec{Name: "r", File: "job.fio", Line: 3, Filename: filename, Directory: dir, Target: "r"}
		if dir != "" {
			s.Target = dir
		}
		if filename != "" {
			s.Target = filename
		}
		return []fio.Spec{s}
	}
	tests := []struct {
		name    string
		devices []string
		specs   []fio.Spec
		want    string // "" = no error
	}{
		{"R-target/scsi_debug-sdz", []string{"scsi_debug"}, job("/dev/sdz", ""), "setup: job.fio:3: job r: filename=/dev/sdz names no modelled device; the devices are /dev/sda"},
		{"R-target/scsi_debug-sda", []string{"scsi_debug"}, job("/dev/sda", ""), ""},
		{"R-target/null_blk-sda", nil, job("/dev/sda", ""), "the devices are /dev/nullb0"},
		{"R-target/directory", []string{"cloud"}, job("", "/mnt/test"), ""},
		{"R-target/job-name", []string{"cloud"}, job("", ""), ""},
		{"R-target/two-luns-sdb", []string{"hdd", "ssd"}, job("/dev/sdb", ""), ""},
		{"R-target/two-luns-sdc", []string{"hdd", "ssd"}, job("/dev/sdc", ""), "the devices are /dev/sda, /dev/sdb"},
		{"R-target/two-luns-directory", []string{"hdd", "ssd"}, job("", "/mnt/x"), "directory=/mnt/x names no modelled device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: tc.devices}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			err = r.CheckTargets(tc.specs)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CheckTargets: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestExplainNullBlkDefaults checks what --explain shows for a default null_blk
// (kernel guest 6.1: scheduler [none] because of the poll hctx).
func TestExplainNullBlkDefaults(t *testing.T) {
	tests := []struct {
		name, device, key, value, noteHas string
	}{
		{"F/poll_queues-default", "null_blk", "queue/scheduler", "none (kernel default)", "submit_queues 1 + poll_queues 1"},
		{"F/poll_queues-0", "null_blk poll_queues=0", "queue/scheduler", "mq-deadline (kernel default)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{Devices: []string{tc.device}}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range r.Settings {
				if st.Key != tc.key {
					continue
				}
				if st.Value != tc.value || !strings.Contains(st.Note, tc.noteHas) || (tc.noteHas == "" && st.Note != "") {
					t.Errorf("%s = %q note %q; want %q note containing %q", tc.key, st.Value, st.Note, tc.value, tc.noteHas)
				}
				return
			}
			t.Fatalf("no setting %s", tc.key)
		})
	}
}

// TestNullBlkBudgetNote checks that --explain says where the model
// caps null_blk below the kernel (H: hw_queue_depth is per hctx in the kernel,
// debugfs nr_tags=64 on each of 3 hctxs; the model's LUN budget is at most can_queue).
func TestNullBlkBudgetNote(t *testing.T) {
	tests := []struct {
		name, device string
		noteHas      string
	}{
		{"H/one-hctx", "null_blk hw_queue_depth=16", "only the 16 driver tags limit a device"},
		{"H/shared_tag_bitmap", "null_blk hw_queue_depth=16 submit_queues=2 shared_tag_bitmap=1", "only the 16 driver tags limit a device"},
		{"H/per-hctx-tags", "null_blk hw_queue_depth=16 submit_queues=2", "per hctx (2 × 16 = 32 in flight)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Description{CPUs: 2, Devices: []string{tc.device}}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			note := ""
			for _, st := range r.Settings {
				if st.Key == "device/queue_depth" {
					note = st.Note
				}
			}
			if !strings.Contains(note, tc.noteHas) {
				t.Errorf("device/queue_depth note %q lacks %q", note, tc.noteHas)
			}
		})
	}
}

// TestCapacityZeroRejected: capacity_gb=0 no longer means "unknown" (a job without
// size= would silently get the stack's 1 GiB): it is out of range, the error naming
// the parameter and its range.
func TestCapacityZeroRejected(t *testing.T) {
	for _, dev := range []string{"ssd capacity_gb=0", "nvme capacity_gb=0"} {
		t.Run(strings.Fields(dev)[0], func(t *testing.T) {
			_, err := Description{Devices: []string{dev}}.Resolve()
			if err == nil || !strings.Contains(err.Error(), "capacity_gb") {
				t.Errorf("%q: error %v, want one naming capacity_gb and its range", dev, err)
			}
			t.Log(err)
		})
	}
}
