package fio_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// runFake records, for every spec, n reads of bs bytes with clat
// base*(k+1) ns (k = 0..n-1) and slat 1 µs, in a window of one second.
func runFake(t *testing.T, specs []fio.Spec, n int, base int64) []*fio.Result {
	t.Helper()
	var rs []*fio.Result
	for i := range specs {
		c := fio.NewCollector(&specs[i])
		c.SetWindow(0, sec)
		for k := int64(0); k < int64(n); k++ {
			c.Record(fio.DirRead, 1000, base*(k+1)*int64(i+1), specs[i].BlockSize, 0, k)
		}
		rs = append(rs, c.Finish(0, sec))
	}
	return rs
}

func parse(t *testing.T, job string) []fio.Spec {
	t.Helper()
	specs, err := fio.Parse(strings.NewReader(job), "r.fio")
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

type entry struct {
	Name  string
	Group int
	Jobs  int
	IOs   int64
}

func TestReportGrouping(t *testing.T) {
	tests := []struct {
		name  string
		job   string
		want  []entry
		group []int64 // IOBytes per group
	}{
		{"R-group/no-group_reporting-one-entry-per-instance", "[a]\nnumjobs=2\n[b]\n",
			[]entry{{"a", 0, 1, 10}, {"a", 0, 1, 10}, {"b", 0, 1, 10}}, []int64{30 * 4096}},
		{"R-group/group_reporting-merges-group", "[global]\ngroup_reporting\n[a]\nnumjobs=3\n[b]\n",
			[]entry{{"a", 0, 4, 40}}, []int64{40 * 4096}},
		{"R-group/stonewall-splits-groups", "[global]\ngroup_reporting\n[a]\nnumjobs=2\n[b]\nstonewall\nnumjobs=2\n",
			[]entry{{"a", 0, 2, 20}, {"b", 1, 2, 20}}, []int64{20 * 4096, 20 * 4096}},
		{"R-group/job-without-group_reporting-starts-entry", "[a]\nnumjobs=2\ngroup_reporting\n[b]\n[c]\ngroup_reporting\n",
			[]entry{{"a", 0, 2, 20}, {"b", 0, 2, 20}}, []int64{40 * 4096}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := fio.NewReport(runFake(t, parse(t, tc.job), 10, 1000))
			var got []entry
			for _, r := range rep.Jobs {
				got = append(got, entry{r.Name, r.GroupID, r.Jobs, r.Read().TotalIOs})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			var gotG []int64
			for _, g := range rep.Groups {
				gotG = append(gotG, g.Dirs[fio.DirRead].IOBytes)
			}
			if diff := cmp.Diff(tc.group, gotG); diff != "" {
				t.Errorf("group bytes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGroupStatus(t *testing.T) {
	specs := parse(t, "[a]\n[b]\nbs=8k\n")
	a, b := fio.NewCollector(&specs[0]), fio.NewCollector(&specs[1])
	for k := int64(0); k < 100; k++ {
		a.Record(fio.DirRead, 0, 10, 4096, 0, 1)
		b.Record(fio.DirRead, 0, 10, 8192, 0, 1)
	}
	rep := fio.NewReport([]*fio.Result{a.Finish(0, sec), b.Finish(0, 2*sec)})
	got := rep.Groups[0].Dirs[fio.DirRead]
	want := fio.GroupDir{IOBytes: 100*4096 + 100*8192, AggBW: (100*4096 + 100*8192) / 2.0,
		MinBW: 100 * 4096, MaxBW: 100 * 8192 / 2.0, MinRuntime: time.Second, MaxRuntime: 2 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("group (-want +got):\n%s", diff)
	}
}

// consumerView is what downstream tools read from fio JSON.
type consumerView struct {
	Version                  string
	JobName                  string
	IOPS                     float64
	BW, BWBytes, IOKB        int64
	Runtime, TotalIOs, ClatN int64
	ClatMean                 float64
	P50, P99, P9999          int64
}

func consumer(o *fio.Output, job int, d func(*fio.JobOutput) *fio.DirOutput) consumerView {
	j := &o.Jobs[job]
	r := d(j)
	return consumerView{o.FioVersion, j.JobName, r.IOPS, r.BW, r.BWBytes, r.IOKBytes, r.Runtime, r.TotalIOs,
		r.Clat.N, r.Clat.Mean, r.Clat.Percentile["50.000000"], r.Clat.Percentile["99.000000"],
		r.Clat.Percentile["99.990000"]}
}

func readDir(j *fio.JobOutput) *fio.DirOutput { return &j.Read }

// The committed fio 3.33 sample and this package's output unmarshal into
// the same structure, and the fields consumers read are where they expect.
func TestJSONMatchesFioLayout(t *testing.T) {
	raw, err := os.ReadFile("../testdata/fiojson/fio-3.33-randread-libaio.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample fio.Output
	if err := json.Unmarshal(raw, &sample); err != nil {
		t.Fatal(err)
	}
	wantSample := consumerView{"fio-3.33", "randread", 150278.672133, 601114, 615541441, 6011748, 10001, 1502937,
		1502937, 209771.305218, 197632, 329728, 897024}
	if diff := cmp.Diff(wantSample, consumer(&sample, 0, readDir)); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}

	specs := parse(t, "[randread]\nrw=randread\nbs=4k\n")
	c := fio.NewCollector(&specs[0])
	c.SetWindow(0, 2*sec)
	for k := int64(1); k <= 1000; k++ {
		c.Record(fio.DirRead, 500, k*2, 4096, 0, k)
	}
	var buf bytes.Buffer
	rep := fio.NewReport([]*fio.Result{c.Finish(0, 2*sec)})
	if err := rep.WriteJSON(&buf, fio.OutputOptions{}); err != nil {
		t.Fatal(err)
	}
	var ours fio.Output
	if err := json.Unmarshal(buf.Bytes(), &ours); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	// 1000 I/Os of 4 KiB in 2 s: 500 IOPS, 2048000 B/s = 2000 KiB/s;
	// clat 2, 4, ..., 2000 ns: mean 1001, p50 = 500th = 1000, p99 = 990th =
	// 1980, p99.99 = rank ceil(99.99) = 1000th = 2000, each reported as its
	// fio bin's midpoint: [1000, 1008) -> 1004, [1968, 1984) -> 1976,
	// [2000, 2016) -> 2008.
	wantOurs := consumerView{"fio-3.33", "randread", 500, 2000, 2048000, 4000, 2000, 1000, 1000, 1001, 1004, 1976, 2008}
	if diff := cmp.Diff(wantOurs, consumer(&ours, 0, readDir)); diff != "" {
		t.Errorf("ours (-want +got):\n%s", diff)
	}
	// All 1000 complete in the first 500 ms interval: one bandwidth sample
	// of 4096000 B * 1000 / 500 ms / 1024 = 8000 KiB/s and one IOPS sample
	// of 2000; per= is capped at 100%.
	gotBW := []float64{float64(ours.Jobs[0].Read.BWMin), float64(ours.Jobs[0].Read.BWMax), ours.Jobs[0].Read.BWMean,
		float64(ours.Jobs[0].Read.BWSamples), ours.Jobs[0].Read.BWAgg, float64(ours.Jobs[0].Read.IOPSMin), float64(ours.Jobs[0].Read.IOPSSamples)}
	if diff := cmp.Diff([]float64{8000, 8000, 8000, 1, 100, 2000, 1}, gotBW); diff != "" {
		t.Errorf("bw/iops samples (-want +got):\n%s", diff)
	}
	if sample.Jobs[0].Read.BWSamples != 19 || sample.Jobs[0].Read.BWAgg != 100 {
		t.Errorf("sample bw_samples %d bw_agg %v", sample.Jobs[0].Read.BWSamples, sample.Jobs[0].Read.BWAgg)
	}
	// Same keys at the top of the document and of a job as fio writes.
	for _, k := range []string{`"fio version"`, `"jobs"`, `"jobname"`, `"groupid"`, `"read"`, `"write"`, `"trim"`,
		`"io_kbytes"`, `"bw_bytes"`, `"slat_ns"`, `"clat_ns"`, `"lat_ns"`, `"percentile"`, `"1.000000"`, `"99.990000"`, `"job_runtime"`} {
		if !bytes.Contains(buf.Bytes(), []byte(k)) || !bytes.Contains(raw, []byte(k)) {
			t.Errorf("key %s missing from ours or the sample", k)
		}
	}
	// Percentile keys come out in numeric order, as fio writes them.
	if i, j := bytes.Index(buf.Bytes(), []byte(`"5.000000"`)), bytes.Index(buf.Bytes(), []byte(`"10.000000"`)); i < 0 || j < i {
		t.Errorf("percentile keys not in numeric order")
	}
	if bytes.Contains(buf.Bytes(), []byte(`"bins"`)) {
		t.Errorf("plain json has bins")
	}
}

func TestJSONPlusBins(t *testing.T) {
	specs := parse(t, "[j]\n")
	c := fio.NewCollector(&specs[0])
	for _, v := range []int64{100, 100, 200, 1500, 1500, 1500} {
		c.Record(fio.DirRead, 0, v, 4096, 0, 0)
	}
	out := fio.NewReport([]*fio.Result{c.Finish(0, sec)}).Output(fio.OutputOptions{Plus: true,
		Time: time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)})
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var back fio.Output
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// fio's bins: 100 is exact, 200 is in [200, 202), 1500 in [1488, 1504)
	want := fio.KeyedInts{"100": 2, "201": 1, "1496": 3}
	if diff := cmp.Diff(want, back.Jobs[0].Read.Clat.Bins); diff != "" {
		t.Errorf("bins (-want +got):\n%s", diff)
	}
	if back.Timestamp != 1796050800 || back.Time != "Mon Nov 30 15:00:00 2026" {
		t.Errorf("timestamp %d time %q", back.Timestamp, back.Time)
	}
}

func TestJSONOptions(t *testing.T) {
	specs := parse(t, "[global]\nioengine=libaio\nbs=4k\n[a]\nrw=write\nbs=8k\n")
	rep := fio.NewReport(runFake(t, specs, 1, 1000))
	out := rep.Output(fio.OutputOptions{GlobalOptions: fio.GlobalOptionMap(specs)})
	if diff := cmp.Diff(map[string]string{"ioengine": "libaio", "bs": "4k"}, out.GlobalOptions); diff != "" {
		t.Errorf("global options (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"rw": "write", "bs": "8k"}, out.Jobs[0].JobOptions); diff != "" {
		t.Errorf("job options (-want +got):\n%s", diff)
	}
}
