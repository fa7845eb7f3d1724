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
			if got != tc.wantErr {
				t.Errorf("CheckFit = %q, want %q", got, tc.wantErr)
			}
		})
	}
}
