package stack_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/sim"
	"github.com/blkmq/blkmq/stack"
)

// legacyConfig is one SCSI LUN of queue_depth 16 on a Legacy host (use_blk_mq=0) of a
// v4.x kernel, behind a 200 µs null device.
func legacyConfig() stack.Config {
	return stack.Config{
		NrCPUs: 4,
		Host:   stack.Host{CanQueue: 32, NrHwQueues: 1, CmdPerLun: 16, Legacy: true},
		LUNs:   []stack.LUN{{Device: nullDevice(200 * sim.Microsecond), Scheduler: "deadline"}},
		Kernel: "4.15",
		Seed:   1,
	}
}

const legacyJobs = `
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=32
time_based=1
runtime=100ms
[seq]
rw=read
[rand]
rw=randread
`

// TestLegacyLUN runs fio jobs on a legacy LUN through stack: the LUN reports its
// elevator and no hctx or budget map, the device sees at most queue_depth commands
// (Little's law at 200 µs: IOPS ≤ 16 / 200 µs = 80 K in commands), the sequential
// job's bios merge into larger commands (the random job's do not), and every I/O's
// time splits into a queueing and a device part.
func TestLegacyLUN(t *testing.T) {
	for _, sched := range []string{"deadline", "noop"} {
		t.Run(sched, func(t *testing.T) {
			cfg := legacyConfig()
			cfg.LUNs[0].Scheduler = sched
			res, err := stack.Run(cfg, parse(t, legacyJobs))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{sched}, res.Schedulers); diff != "" {
				t.Errorf("schedulers (-want +got):\n%s", diff)
			}
			if res.Hctxs[0] != nil || res.HasBudgetMap[0] {
				t.Errorf("legacy LUN has hctxs %v, budget map %v; want none", res.Hctxs[0], res.HasBudgetMap[0])
			}
			q := res.Queues[0]
			cmdRate := float64(q.Dispatched) / 0.1
			if cmdRate > 80e3*1.01 || cmdRate < 40e3 {
				t.Errorf("%.0f commands/s, want at most 16 per 200 µs (80 K/s) and near it", cmdRate)
			}
			if q.Merges == 0 || q.Bios <= q.Dispatched {
				t.Errorf("bios %d, commands %d, merges %d: the sequential reader's bios should merge", q.Bios, q.Dispatched, q.Merges)
			}
			for _, j := range res.Jobs {
				if j.Fio.Read().IOPS == 0 {
					t.Fatalf("job %s did no I/O", j.Spec.Instance())
				}
				if j.Wait.Device < float64(200*sim.Microsecond) || j.Wait.Queued <= 0 {
					t.Errorf("job %s: device %.0f ns, queued %.0f ns; want >= 200 µs in the device and some queueing",
						j.Spec.Instance(), j.Wait.Device, j.Wait.Queued)
				}
			}
			if busy := res.CPUBusy[0] + res.CPUBusy[1] + res.CPUBusy[2] + res.CPUBusy[3]; busy == 0 {
				t.Error("no CPU time charged on the legacy path")
			}
			again, err := stack.Run(cfg, parse(t, legacyJobs))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(res.Queues, again.Queues); diff != "" {
				t.Errorf("second run differs (-first +second):\n%s", diff)
			}
		})
	}
}

// TestLegacyRefused: what the legacy path cannot be is an error naming the field.
func TestLegacyRefused(t *testing.T) {
	tests := []struct {
		name string
		mod  func(c *stack.Config)
		job  string
		want string
	}{
		{"null_blk", func(c *stack.Config) { c.Host.Driver = stack.DriverNullBlk }, "", "Host.Legacy with Driver null_blk"},
		{"kernel-unset", func(c *stack.Config) { c.Kernel = "" }, "", "removed in v5.0"},
		{"kernel-5.4", func(c *stack.Config) { c.Kernel = "5.4" }, "", "removed in v5.0"},
		{"mq-scheduler", func(c *stack.Config) { c.LUNs[0].Scheduler = "mq-deadline" }, "", `Scheduler "mq-deadline" on a Legacy host`},
		{"default-scheduler", func(c *stack.Config) { c.LUNs[0].Scheduler = "" }, "", "cfq is not modelled"},
		{"deadline-on-blk-mq", func(c *stack.Config) { c.Host.Legacy = false }, "", `Scheduler "deadline" not one of`},
		{"two-luns", func(c *stack.Config) {
			c.LUNs = append(c.LUNs, c.LUNs[0])
			c.LUNs[0].Name, c.LUNs[1].Name = "a", "b"
		}, "", "one LUN"},
		{"io_uring", nil, "ioengine=io_uring", "io_uring (v5.1) postdates"},
		{"bs-above-max_sectors", func(c *stack.Config) { c.LUNs[0].MaxSectorsKB = 64 }, "bs=128k", "bio splitting is not modelled"},
		{"bs-above-128-segments", nil, "bs=1m", "128 segments of 4 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := legacyConfig()
			if tt.mod != nil {
				tt.mod(&cfg)
			}
			job := "[j]\nrw=read\ndirect=1\nruntime=10ms\ntime_based=1\n" + tt.job + "\n"
			_, err := stack.Run(cfg, parse(t, job))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
