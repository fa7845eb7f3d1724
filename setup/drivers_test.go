package setup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/stack"
)

// TestNullBlkDevicesOwnTagSets: null_blk nr_devices=2 without shared_tags gives each
// device a tag set of its own (a host per device), with shared_tags=1 one tag set;
// both run, and with its own tags each device holds its full hw_queue_depth.
func TestNullBlkDevicesOwnTagSets(t *testing.T) {
	const job = `
[global]
ioengine=libaio
direct=1
rw=randread
bs=4k
iodepth=32
time_based=1
runtime=20ms
[a]
filename=/dev/nullb0
[b]
filename=/dev/nullb1
`
	specs, err := fio.Parse(strings.NewReader(job), "two.fio")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		device    string
		wantHosts []int // LUN → host
	}{
		{"own-tag-sets", "null_blk nr_devices=2 hw_queue_depth=16 irqmode=2 completion_nsec=100000", []int{0, 1}},
		{"shared_tags", "null_blk nr_devices=2 shared_tags=1 hw_queue_depth=16 irqmode=2 completion_nsec=100000", []int{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Description{CPUs: 2, Devices: []string{tt.device}}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, l := range r.Config.LUNs {
				got = append(got, l.Host)
			}
			if diff := cmp.Diff(tt.wantHosts, got); diff != "" {
				t.Fatalf("LUN hosts (-want +got):\n%s", diff)
			}
			if r.Config.Host.Driver != stack.DriverNullBlk || len(r.Config.Hosts) != tt.wantHosts[1] {
				t.Fatalf("driver %v, %d further hosts", r.Config.Host.Driver, len(r.Config.Hosts))
			}
			res, err := stack.Run(r.Config, specs)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range res.Queues {
				if q.Completed == 0 || q.BudgetFailures != 0 {
					t.Errorf("LUN %d: %d completed, %d budget failures; want > 0, 0", i, q.Completed, q.BudgetFailures)
				}
			}
		})
	}
}
