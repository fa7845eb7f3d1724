package fio_test

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// summary is the part of a Spec the source documents pin down.
type summary struct {
	Name      string
	Count     int
	RW        string
	BS        int64
	Size      int64
	Depth     int
	Engine    string
	Direct    bool
	TimeBased bool
	Runtime   time.Duration
	Ramp      time.Duration
	Target    string
	Group     int
}

func summarize(specs []fio.Spec) []summary {
	var out []summary
	for _, s := range specs {
		if n := len(out); n > 0 && out[n-1].Name == s.Name && s.Index > 0 {
			out[n-1].Count++
			continue
		}
		out = append(out, summary{s.Name, 1, s.RW.String(), s.BlockSize, s.Size, s.EffectiveIODepth,
			s.IOEngine.String(), s.Direct, s.TimeBased, s.Runtime, s.RampTime, s.Target, s.GroupID})
	}
	return out
}

func TestSourceJobFiles(t *testing.T) {
	const g = 1 << 30
	dev := func(n string) summary {
		return summary{n, 1, "write", 4096, 100 * g, 4096, "libaio", true, false, 0, 15 * time.Second, n, 0}
	}
	srp := func(rw string) []summary {
		return []summary{{rw, 64, rw, 4096, 0, 64, "libaio", true, true, 30 * time.Second, 0, "/dev/sdb", 0}}
	}
	var disks []summary
	for c := 'd'; c <= 'r'; c++ {
		disks = append(disks, dev("/dev/sd"+string(c)))
	}
	tests := []struct {
		file string
		want []summary
	}{
		{"000_storvsc.fio", []summary{
			{"read_hogs", 15, "randread", 16384, 10 * g, 10000, "io_uring", true, true, 60 * time.Second, 0, "/mnt/test", 0},
			{"wal", 1, "write", 8192, 4 * g, 3, "io_uring", true, true, 60 * time.Second, 0, "/mnt/test", 0},
		}},
		{"001_smartpqi.fio", disks},
		{"002_srp_read.fio", srp("read")},
		{"002_srp_randread.fio", srp("randread")},
		{"002_srp_write.fio", srp("write")},
		{"002_srp_randwrite.fio", srp("randwrite")},
		{"003_scsi_debug.fio", []summary{
			{"/dev/sda", 1, "randread", 4096, 0, 192, "io_uring", true, true, 60 * time.Second, 0, "/dev/sda", 0},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			specs, err := fio.ParseFile(filepath.Join("..", "testdata", "fio", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(specs)); diff != "" {
				t.Errorf("specs (-want +got):\n%s", diff)
			}
			for _, s := range specs {
				if err := s.Validate(); err != nil {
					t.Errorf("Validate(%s): %v", s.Instance(), err)
				}
			}
		})
	}
}

// seed003 is the command line of seeds/003_d725e3b6786add72.txt, verbatim.
const seed003 = `fio --bs=4096 --disable_clat=1 --disable_slat=1 --group_reporting=1 \
  --gtod_reduce=1 --invalidate=1 --ioengine=io_uring --ioscheduler=none \
  --norandommap --runtime=60 --rw=randread --thread --time_based=1 \
  --buffered=0 --numjobs=1 --iodepth=192 --iodepth_batch=24 --name=/dev/sda \
  --filename=/dev/sda`

// The 003 job file is the command line of the patch, written as a file: both
// forms must give the same spec.
func TestSeed003CommandLineMatchesJobFile(t *testing.T) {
	args, err := fio.SplitCommandLine(seed003)
	if err != nil {
		t.Fatal(err)
	}
	fromArgs, err := fio.ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := fio.ParseFile("../testdata/fio/003_scsi_debug.fio")
	if err != nil {
		t.Fatal(err)
	}
	ignorePos := cmp.Options{cmpopts.IgnoreFields(fio.Spec{}, "File", "Line"), cmpopts.IgnoreFields(fio.Unmodelled{}, "File", "Line")}
	if diff := cmp.Diff(fromFile, fromArgs, ignorePos); diff != "" {
		t.Errorf("ParseArgs vs ParseFile (-file +args):\n%s", diff)
	}
	want := fio.Spec{IODepthBatchSubmit: 24, IOScheduler: "none", GroupReporting: true, Thread: true,
		Ignored: []string{"invalidate"}}
	got := fio.Spec{IODepthBatchSubmit: fromArgs[0].IODepthBatchSubmit, IOScheduler: fromArgs[0].IOScheduler,
		GroupReporting: fromArgs[0].GroupReporting, Thread: fromArgs[0].Thread, Ignored: fromArgs[0].Ignored}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("003 details (-want +got):\n%s", diff)
	}
}

func TestR19BatchJobFile(t *testing.T) {
	specs, err := fio.ParseFile("../testdata/fio/r19_rnbd_batch.fio")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 16 {
		t.Fatalf("%d specs; want 16", len(specs))
	}
	for i, s := range specs {
		got := []any{s.Target, s.EffectiveIODepth, s.IODepthBatchSubmit, s.IODepthBatchCompleteMin, s.IODepthBatchCompleteMax, s.IOScheduler}
		want := []any{"/dev/rnbd" + strconv.Itoa(i), 128, 128, 128, 128, "mq-deadline"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("R19/batch-128 spec %d (-want +got):\n%s", i, diff)
		}
	}
}
