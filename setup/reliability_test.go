package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// TestSizeJobsFitBoundedDisk: several jobs without size= on an hdd (whose model panics
// on I/O beyond its capacity) share the disk, so every stack region fits; a job given a
// size that cannot fit is reported by CheckFit, naming the job, the LUN and capacity.
func TestSizeJobsFitBoundedDisk(t *testing.T) {
	tests := []struct {
		name      string
		dev       []string
		job       string
		wantSizes []int64
		wantErr   string
	}{
		{"hdd/4-jobs-share", []string{"hdd"}, "[r]\nrw=randread\nnumjobs=2\n[w]\nrw=write\n[s]\nrw=read\n",
			[]int64{143051 << 20, 143051 << 20, 143051 << 20, 143051 << 20}, ""},
		{"hdd/one-job-whole-disk", []string{"hdd"}, "[r]\nrw=randread\n", []int64{572204 << 20}, ""},
		{"hdd/sized-job-first", []string{"hdd"}, "[a]\nsize=100g\n[b]\nrw=randread\n", []int64{100 << 30, 469804 << 20}, ""},
		{"hdd/size-beyond-capacity", []string{"hdd"}, "[j]\nsize=700g\n", []int64{700 << 30},
			"setup: job j.0: offset+size end at byte 751619276800 of /dev/sda, beyond its capacity 600000000000 (jobs get consecutive regions; lower size= or numjobs)"},
		{"hdd/second-sized-job-beyond", []string{"hdd"}, "[a]\nsize=500g\n[b]\nsize=100g\n", []int64{500 << 30, 100 << 30},
			"setup: job b.0: offset+size end at byte 644245094400 of /dev/sda, beyond its capacity 600000000000 (jobs get consecutive regions; lower size= or numjobs)"},
		{"null_blk/unchanged", nil, "[r]\nrw=randread\nnumjobs=2\n", []int64{250 << 30, 250 << 30}, ""},
		// a job naming no device puts its file on a file system on the LUN: fio fails
		// with ENOSPC laying out or writing more than the device holds; it used to
		// run until the events limit (1 PiB of 1 MiB reads)
		{"scsi_debug/size-1p-no-filename", []string{"scsi_debug dev_size_mb=8"}, "[j]\nrw=read\nbs=1m\nsize=1p\n", []int64{1 << 50},
			"setup: j.fio:1: job j.0: offset+size = 1125899906842624 bytes is larger than /dev/sda (8388608 bytes, scsi_debug dev_size_mb=8): the job names no device (filename=), so fio puts its file on a file system on /dev/sda, and laying out or writing more than the device holds fails with ENOSPC; lower size= (at most 8388608 here) or enlarge the device"},
		{"scsi_debug/offset-plus-size-no-filename", []string{"scsi_debug dev_size_mb=8"}, "[j]\nrw=write\noffset=6m\nsize=4m\n", []int64{4 << 20},
			"setup: j.fio:1: job j.0: offset+size = 10485760 bytes is larger than /dev/sda (8388608 bytes, scsi_debug dev_size_mb=8): the job names no device (filename=), so fio puts its file on a file system on /dev/sda, and laying out or writing more than the device holds fails with ENOSPC; lower size= (at most 2097152 here) or enlarge the device"},
		{"scsi_debug/size-fits-no-filename", []string{"scsi_debug dev_size_mb=8"}, "[j]\nrw=read\nsize=8m\n", []int64{8 << 20}, ""},
		{"null_blk/size-past-gb-no-filename", []string{"null_blk gb=1"}, "[j]\nrw=randwrite\nsize=2g\n", []int64{2 << 30},
			"setup: j.fio:1: job j.0: offset+size = 2147483648 bytes is larger than /dev/nullb0 (1073741824 bytes, null_blk gb=1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader(tc.job), "j.fio")
			if err != nil {
				t.Fatal(err)
			}
			r, err := Description{Devices: tc.dev}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			r.SizeJobs(specs)
			var sizes []int64
			for _, s := range specs {
				sizes = append(sizes, s.Size)
			}
			if diff := cmp.Diff(tc.wantSizes, sizes); diff != "" {
				t.Errorf("sizes (-want +got):\n%s", diff)
			}
			got := ""
			if err := r.CheckFit(specs); err != nil {
				got = err.Error()
			}
			if got != tc.wantErr && !(tc.wantErr != "" && strings.HasPrefix(got, tc.wantErr)) {
				t.Errorf("CheckFit = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

// TestClampsWarn: every value the resolver caps is reported as a warning naming the
// parameter, the value given and the value used (nothing is capped silently).
func TestClampsWarn(t *testing.T) {
	tests := []struct {
		name string
		d    Description
		want string
	}{
		{"storvsc_max_hw_queues-over-cpus", Description{CPUs: 4, Host: "storvsc storvsc_max_hw_queues=64", Devices: []string{"cloud"}},
			"storvsc: storvsc_max_hw_queues 64 > 4 CPUs: capped, as the driver does"},
		{"storvsc-can_queue-over-limit", Description{CPUs: 4096, Host: "storvsc storvsc_vcpus_per_sub_channel=1", Devices: []string{"cloud"}},
			"storvsc: can_queue 1048576 (256 per channel) above the model's limit: capped at 10240"},
		{"scsi_debug-submit_queues-over-cpus", Description{CPUs: 2, Devices: []string{"scsi_debug submit_queues=8"}},
			"scsi_debug: submit_queues 8 > 2 CPUs: capped, as the driver does"},
		{"null_blk-submit_queues-over-cpus", Description{CPUs: 2, Devices: []string{"null_blk submit_queues=8"}},
			"null_blk: submit_queues 8 > 2 CPUs: capped, as the driver does"},
		{"null_blk-max_sectors-below-page", Description{Devices: []string{"null_blk max_sectors=2"}},
			"null_blk: max_sectors 2 below one 4 KiB page: raised to 8 sectors (queue/max_sectors_kb 4), as blk_queue_max_hw_sectors does"},
		{"cmd_per_lun-over-can_queue", Description{Devices: []string{"ssd"}, Set: []string{"host/can_queue=32", "host/cmd_per_lun=64"}},
			"host/cmd_per_lun 64 > host/can_queue 32: the LUN queue_depth is capped at 32, as the SCSI midlayer does"},
		{"nr_hw_queues-over-cpus", Description{CPUs: 2, Devices: []string{"ssd"}, Set: []string{"host/nr_hw_queues=4"}},
			"host/nr_hw_queues 4 > 2 CPUs: hctxs without a CPU get no I/O"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.d.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.want}, r.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("driver-cmd_per_lun-over-can_queue-is-normal", func(t *testing.T) {
		r, err := Description{Devices: []string{"scsi_debug max_queue=64"}}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Warnings) != 0 {
			t.Errorf("scsi_debug's own cmd_per_lun 192 above max_queue warned: %q", r.Warnings)
		}
	})
}

// TestJobNotes: fio's note for a synchronous engine with iodepth > 1, once per section.
func TestJobNotes(t *testing.T) {
	specs, err := fio.Parse(strings.NewReader("[global]\ndirect=1\n[a]\nioengine=psync\niodepth=8\nnumjobs=3\n[b]\nioengine=libaio\niodepth=8\n[c]\nioengine=sync\n"), "j.fio")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job a: both iodepth >= 1 and synchronous I/O engine psync are selected, queue depth will be capped at 1 (fio's note)"}
	if diff := cmp.Diff(want, JobNotes(specs)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestJobNotesThinktimeCut: a thinktime that is a large share of the runtime is noted
// once per section (the model ends a think at the runtime, as fio 3.34+ does); a short
// thinktime, or one without a runtime, is not.
func TestJobNotesThinktimeCut(t *testing.T) {
	for _, tt := range []struct {
		name, job string
		want      []string
	}{
		{"thinktime-1h-runtime-3s", "[a]\ndirect=1\nthinktime=1h\nruntime=3s\nnumjobs=2\n",
			[]string{"job a: thinktime 1h0m0s is at least a tenth of runtime 3s: a think that would run past the runtime ends at the runtime, as fio 3.34+ does; fio 3.33 sleeps the whole thinktime and reports a longer run"}},
		{"short-thinktime", "[a]\ndirect=1\nthinktime=10ms\nruntime=3s\n", nil},
		{"no-runtime", "[a]\ndirect=1\nthinktime=1h\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader(tt.job), "j.fio")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, JobNotes(specs)); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}
