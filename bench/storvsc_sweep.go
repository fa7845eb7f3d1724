package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/blkmq/blkmq/stack"
)

// StorvscLoneReaderJob is seed 000's read_hogs job alone (numjobs=1): the "only one
// random read job" of the source's remark.
const StorvscLoneReaderJob = `
[global]
time_based=1
ioengine=io_uring
direct=1
runtime=60

[read_hogs]
bs=16k
iodepth=10000
rw=randread
filesize=10G
numjobs=1
directory=/mnt/test
`

// StorvscSweepNrRequests are the per-hctx nr_requests values the sweep tries.
var StorvscSweepNrRequests = []int{4, 8, 12, 16, 24, 32, 56}

// storvscSweepRuntime is the simulated runtime of each sweep point: the job file's
// 60 s, as the source ran it. (A 10 s run, used before, leaves the lone reader at 80 %
// of the cap: its fill phase — inline blocking submission until its 10000 io_us are
// queued, and fio reaps only when the queue is full — is a sixth of such a run, and
// 3 % of a 60 s one.) Cost: the per-hctx sweep is 14 runs of 60 s, 26.6 s of CPU on the
// 2-core CI machine (4.8 s with 10 s runs).
const storvscSweepRuntime = 60 * time.Second

// RunStorvscLoneReader returns the IOPS of the lone reader for one policy and
// nr_requests.
func RunStorvscLoneReader(shared bool, nrRequests int, runtime time.Duration, seed uint64) (float64, error) {
	return runStorvscLoneReader(shared, nrRequests, runtime, seed, nil)
}

func runStorvscLoneReader(shared bool, nrRequests int, runtime time.Duration, seed uint64, sc Scale) (float64, error) {
	job := strings.Replace(StorvscLoneReaderJob, "runtime=60", fmt.Sprintf("runtime=%dms", runtime.Milliseconds()), 1)
	specs, err := fio.Parse(strings.NewReader(job), "storvsc-000-lone.fio")
	if err != nil {
		return 0, err
	}
	res, err := stack.Run(storvscConfig(shared, nrRequests, seed, sc), specs)
	if err != nil {
		return 0, err
	}
	return res.Jobs[0].Fio.Read().IOPS, nil
}

func init() {
	Register(Scenario{Name: "storvsc-nr-requests", Source: "000_3f9e87d917f8ad71.txt",
		Variants: []string{"tags=per-hctx", "tags=shared"}, Run: runStorvscSweep, RunScaled: runStorvscSweepWith,
		Params: StorvscParams()})
}

// runStorvscSweep runs the sweep of the source's remark. tags=per-hctx: for each
// nr_requests of StorvscSweepNrRequests, the wal IOPS of the mixed job file and the IOPS
// of a lone reader; tags=shared: the same at nr_requests 56. Metrics, per point
// "nr-N": "nr-N/wal-IOPS", "nr-N/lone-IOPS" and "nr-N/lone-cap-frac" (the lone reader's
// IOPS over the disk's IOPS cap). The acceptance thresholds (wal >= 200 IOPS, lone
// reader >= 90 % of the cap) are data in testdata/claims.json (Claim.Thresholds).
func runStorvscSweep(variant string, seed uint64) (map[string]float64, error) {
	return runStorvscSweepWith(variant, seed, nil)
}

func runStorvscSweepWith(variant string, seed uint64, sc Scale) (map[string]float64, error) {
	var shared bool
	nrs := StorvscSweepNrRequests
	switch variant {
	case "tags=per-hctx":
	case "tags=shared":
		shared, nrs = true, []int{StorvscNrRequests}
	default:
		return nil, fmt.Errorf("bench: storvsc-nr-requests: unknown variant %q (want tags=per-hctx or tags=shared)", variant)
	}
	capIOPS := Storvsc000Params().IOPS
	// The points are independent runs: run them in parallel (at most GOMAXPROCS at once)
	// and assemble the metrics in order afterwards, so the result does not depend on
	// the schedule.
	wal := make([]float64, len(nrs))
	lone := make([]float64, len(nrs))
	err := runParallel(2*len(nrs), func(i int) error {
		nr := nrs[i/2]
		if i%2 == 0 {
			f, err := memoStorvsc(shared, nr, storvscSweepRuntime, seed, sc)
			wal[i/2] = f.WalIOPS
			return err
		}
		v, err := runStorvscLoneReader(shared, nr, storvscSweepRuntime, seed, sc)
		lone[i/2] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for i, nr := range nrs {
		key := fmt.Sprintf("nr-%d/", nr)
		m[key+"wal-IOPS"] = wal[i]
		m[key+"lone-IOPS"] = lone[i]
		m[key+"lone-cap-frac"] = lone[i] / capIOPS
	}
	return m, nil
}
