package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Spread
	}{
		{"one-replica", []float64{5}, Spread{Mean: 5, Lo: 5, Hi: 5}},
		// mean 2, s = 1, t(0.975, 2) = 4.303: half-width 4.303/sqrt(3)
		{"three", []float64{1, 2, 3}, Spread{Mean: 2, Stddev: 1, Lo: 2 - 4.303/math.Sqrt(3), Hi: 2 + 4.303/math.Sqrt(3)}},
		{"no-spread", []float64{7, 7, 7, 7}, Spread{Mean: 7, Lo: 7, Hi: 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, spreadOf(tc.xs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// the large-df expansion joins the table and tends to the normal quantile
	if d := math.Abs(tQuantile975(31) - 2.040); d > 1e-3 {
		t.Errorf("t(0.975, 31) = %v, want 2.040", tQuantile975(31))
	}
	if d := math.Abs(tQuantile975(100000) - 1.95996); d > 1e-4 {
		t.Errorf("t(0.975, 1e5) = %v, want 1.96", tQuantile975(100000))
	}
}

// --replicas 3: fio's JSON is replica 1's — the run without --replicas, bit for bit —
// followed by a "blkmq" object whose interval contains every replica's mean.
func TestRunReplicas(t *testing.T) {
	plain, err := run(args("run", nullJob, nullDevice, "--output-format", "json")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, plain)
	}
	rep, err := run(args("run", nullJob, nullDevice, "--output-format", "json", "--replicas", "3")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	var a, b map[string]json.RawMessage
	if err := json.Unmarshal([]byte(plain), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(rep), &b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(a["jobs"]), string(b["jobs"])); diff != "" {
		t.Errorf("replica 1's jobs differ from the plain run (-plain +replicas):\n%s", diff)
	}
	var sum ReplicaSummary
	if err := json.Unmarshal(b["blkmq"], &sum); err != nil {
		t.Fatalf("%v\n%s", err, b["blkmq"])
	}
	if sum.Replicas != 3 || len(sum.Jobs) == 0 || sum.Jobs[0].Read == nil {
		t.Fatalf("blkmq summary %+v", sum)
	}
	if s := sum.Jobs[0].Read.IOPS; !(s.Lo <= s.Mean && s.Mean <= s.Hi && s.Mean > 0) {
		t.Errorf("read IOPS spread %+v", s)
	}
	// disk_util: the top-level entries are replica 1's, as in the plain run; the
	// spread of each disk's figures is under "blkmq"
	if diff := cmp.Diff(string(a["disk_util"]), string(b["disk_util"])); diff != "" || len(a["disk_util"]) == 0 {
		t.Errorf("disk_util of --replicas differs from the plain run's or is missing (-plain +replicas):\n%s", diff)
	}
	if len(sum.DiskUtil) != 1 || sum.DiskUtil[0].Name != "nullb0" {
		t.Fatalf("blkmq disk_util spread %+v, want one entry for nullb0", sum.DiskUtil)
	}
	if u := sum.DiskUtil[0].Util; !(u.Lo <= u.Mean && u.Mean <= u.Hi && u.Mean > 0 && u.Mean <= 100) {
		t.Errorf("util spread %+v", u)
	}
	if r := sum.DiskUtil[0].ReadIOs; r.Mean <= 0 {
		t.Errorf("read_ios spread %+v", r)
	}
	text, err := run(args("run", nullJob, nullDevice, "--replicas", "2")...)
	if err != nil || !strings.Contains(text, "blkmq: 2 replicas") {
		t.Errorf("text output lacks the replica summary (%v):\n%s", err, text)
	}
	if !strings.Contains(text, "Disk stats (read/write):") || !strings.Contains(text, "disk nullb0: util=") {
		t.Errorf("text output lacks replica 1's Disk stats or the disk spread:\n%s", text)
	}
	if _, err := run(args("run", nullJob, nullDevice, "--replicas", "0")...); err == nil {
		t.Error("--replicas 0 accepted")
	}
}

// sweep --replicas 2: the CSV keeps its columns and adds the replica count and each
// metric's interval, which contains the mean.
func TestSweepReplicas(t *testing.T) {
	out, err := run(args("sweep", nullJob, nullDevice, "--vary", "queue/nr_requests=8,16", "--csv", "-", "--replicas", "2")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := "queue/nr_requests,job,iops,bw_kib_s,clat_mean_us,clat_p99_us,replicas,iops_ci95_lo,iops_ci95_hi," +
		"bw_kib_s_ci95_lo,bw_kib_s_ci95_hi,clat_mean_us_ci95_lo,clat_mean_us_ci95_hi,clat_p99_us_ci95_lo,clat_p99_us_ci95_hi," +
		"util_nullb0,util_nullb0_ci95_lo,util_nullb0_ci95_hi"
	if lines[0] != want {
		t.Fatalf("header %q, want %q", lines[0], want)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 18 || f[6] != "2" {
			t.Errorf("row %q", l)
			continue
		}
		var iops, lo, hi float64
		if _, err := fmt.Sscan(f[2]+" "+f[7]+" "+f[8], &iops, &lo, &hi); err != nil || lo > iops || iops > hi {
			t.Errorf("row %q: iops %v not in [%v, %v]", l, iops, lo, hi)
		}
		var util, ulo, uhi float64
		if _, err := fmt.Sscan(f[15]+" "+f[16]+" "+f[17], &util, &ulo, &uhi); err != nil || ulo > util || util > uhi || util <= 0 {
			t.Errorf("row %q: util %v not in [%v, %v]", l, util, ulo, uhi)
		}
	}
}

// sweep --replicas 2 --plot draws the series with their intervals as error bars.
func TestSweepReplicasPlot(t *testing.T) {
	path := t.TempDir() + "/s.svg"
	if out, err := run(args("sweep", nullJob, nullDevice, "--vary", "queue/nr_requests=8,16", "--replicas", "2", "--plot", path)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("plot not written: %v", err)
	}
}
