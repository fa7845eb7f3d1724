package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fioJSON runs job with args and decodes the JSON as Python's json.loads would
// (the way fio's tools read it): maps, lists, float64.
func fioJSON(t *testing.T, job string, extra ...string) map[string]any {
	t.Helper()
	path := writeTmpJob(t, job)
	outFile := filepath.Join(t.TempDir(), "out.json")
	if out, err := run(args("run", path, nullDevice, "--output", outFile, extra)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return doc
}

// get walks a decoded JSON document by keys and list indices, failing the test
// with the path when a step is missing (a consumer's KeyError).
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %v", path[:i+1], path[:i])
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("%v: no key %q", path[:i+1], k)
			}
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no index %d", path[:i+1], k)
			}
			v = l[k]
		}
	}
	return v
}

// TestJSONPlusAsClat2csv reads json+ as fio's tools/fio_jsonplus_clat2csv does:
// for each job and direction, each of slat_ns, clat_ns, lat_ns that has "bins"
// gives integer nanosecond keys whose counts add up to the latency's N; its
// --validate mode then compares each CSV count with bins[ns]. The percentiles
// lie on the bins (each is the value of a bin, nondecreasing in the percent).
func TestJSONPlusAsClat2csv(t *testing.T) {
	doc := fioJSON(t, "[global]\nioengine=libaio\niodepth=8\ntime_based\nruntime=100ms\n[r]\nrw=randrw\nlat_percentiles=1\n[w]\nrw=write\n",
		"--output-format", "json+")
	jobs := get(t, doc, "jobs").([]any)
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(jobs))
	}
	checked := 0
	for j := range jobs {
		for _, ddir := range []string{"read", "write", "trim"} {
			for _, lat := range []string{"slat_ns", "clat_ns", "lat_ns"} {
				l := get(t, doc, "jobs", j, ddir, lat).(map[string]any)
				bins, ok := l["bins"].(map[string]any)
				if !ok {
					continue
				}
				var keys []int64
				var sum float64
				for k, c := range bins {
					ns, err := strconv.ParseInt(k, 10, 64) // the script's int(key)
					if err != nil {
						t.Fatalf("job %d %s %s: bin key %q is not an integer", j, ddir, lat, k)
					}
					keys = append(keys, ns)
					sum += c.(float64)
				}
				slices.Sort(keys)
				if n := l["N"].(float64); sum != n {
					t.Errorf("job %d %s %s: bins add up to %g, N is %g", j, ddir, lat, sum, n)
				}
				var pcts []float64
				pct := l["percentile"].(map[string]any)
				for k := range pct {
					p, _ := strconv.ParseFloat(k, 64)
					pcts = append(pcts, p)
				}
				sort.Float64s(pcts)
				last := 0.0
				for _, p := range pcts {
					v := pct[strconv.FormatFloat(p, 'f', 6, 64)].(float64)
					if _, found := slices.BinarySearch(keys, int64(v)); !found || v < last {
						t.Errorf("job %d %s %s: percentile %g = %g is not a bin value in order", j, ddir, lat, p, v)
					}
					last = v
				}
				checked++
			}
		}
	}
	// r: read and write clat and lat (lat_percentiles=1); w: write clat
	if checked != 5 {
		t.Errorf("%d latency objects with bins, want 5 (clat of each direction with I/O, lat of r's)", checked)
	}
	if v := get(t, doc, "fio version").(string); v != "fio-3.33" {
		t.Errorf("fio version %q", v)
	}
}

// TestJSONOptionsAsConsumersRead: "global options" holds the [global] section's
// options as strings, "job options" only the job's own (fio-plot and
// fio_generate_plots-style scripts key on them); group_reporting merges the
// clones into one entry named after the job; a steady-state job has fio 3.33's
// "steadystate" object with exactly its keys; disk_util, when written, has
// fio's keys per disk.
func TestJSONOptionsAsConsumersRead(t *testing.T) {
	doc := fioJSON(t, "[global]\nioengine=libaio\niodepth=4\nruntime=4\ntime_based\n[g]\nrw=randread\nnumjobs=3\ngroup_reporting\nruntime=200ms\n"+
		"[ss]\nnew_group\nrw=randread\nss=iops:5%\nss_dur=2\n", "--output-format", "json")
	global := get(t, doc, "global options").(map[string]any)
	if diff := cmp.Diff(map[string]any{"ioengine": "libaio", "iodepth": "4", "runtime": "4", "time_based": ""}, global); diff != "" {
		t.Errorf("global options (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"rw": "randread", "numjobs": "3", "group_reporting": "", "runtime": "200ms"}, get(t, doc, "jobs", 0, "job options")); diff != "" {
		t.Errorf("job options of g (-want +got):\n%s", diff)
	}
	jobs := get(t, doc, "jobs").([]any)
	if len(jobs) != 2 || get(t, doc, "jobs", 0, "jobname") != "g" || get(t, doc, "jobs", 1, "jobname") != "ss" {
		t.Fatalf("want 2 entries g (3 clones merged) and ss, got %d", len(jobs))
	}
	ss := get(t, doc, "jobs", 1, "steadystate").(map[string]any)
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	// stat.c show_thread_status_json, fio 3.33
	if diff := cmp.Diff([]string{"attained", "criterion", "data", "duration", "max_deviation", "slope", "ss"}, keys(ss)); diff != "" {
		t.Errorf("steadystate keys (-fio 3.33 +got):\n%s", diff)
	}
	data := ss["data"].(map[string]any)
	if diff := cmp.Diff([]string{"bw", "bw_mean", "iops", "iops_mean"}, keys(data)); diff != "" {
		t.Errorf("steadystate.data keys (-fio 3.33 +got):\n%s", diff)
	}
	if ss["ss"] != "iops:5.000000%" || ss["duration"] != 2.0 || ss["attained"] != 1.0 {
		t.Errorf("steadystate ss %v, duration %v, attained %v; want iops:5.000000%%, 2, 1", ss["ss"], ss["duration"], ss["attained"])
	}
	iops := data["iops"].([]any)
	if len(iops) != 2 {
		t.Fatalf("steadystate iops samples %v, want ss_dur = 2", iops)
	}
	if mean := math.Floor((iops[0].(float64) + iops[1].(float64)) / 2); data["iops_mean"] != mean {
		t.Errorf("iops_mean %v, want the samples' integer mean %v", data["iops_mean"], mean)
	}
	if _, ok := get(t, doc, "jobs", 0).(map[string]any)["steadystate"]; ok {
		t.Error("a job without ss= has a steadystate object; fio writes it only with ss_dur")
	}
	if du, ok := doc["disk_util"].([]any); ok {
		for i, d := range du {
			m := d.(map[string]any)
			for _, k := range []string{"name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks", "write_ticks", "in_queue", "util"} {
				if _, ok := m[k]; !ok {
					t.Errorf("disk_util[%d] lacks %q (fio 3.33 show_disk_util json)", i, k)
				}
			}
		}
	}
}
