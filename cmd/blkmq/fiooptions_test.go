package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTmpJob(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.fio")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const hipriJob = "[global]\nruntime=200ms ; short\ntime_based\n[a]\nrw=randread\nioengine=pvsync2\nhipri=1\n"

// An option accepted but not modelled is one warning line on stderr and in the
// JSON under "blkmq"; --strict makes it an error (exit 2).
func TestRunWarnsUnmodelled(t *testing.T) {
	job := writeTmpJob(t, hipriJob)
	outFile := filepath.Join(t.TempDir(), "out.json")
	out, err := run(args("run", job, nullDevice, "--output-format", "json", "--output", outFile)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(out, "blkmq: warning: option accepted but not modelled:"); n != 1 || !strings.Contains(out, "hipri=1") {
		t.Errorf("stderr: want one warning naming hipri=1:\n%s", out)
	}
	var doc map[string]any
	data, _ := os.ReadFile(outFile)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("--output file is not JSON: %v\n%s", err, data)
	}
	bk, _ := doc["blkmq"].(map[string]any)
	ws, _ := bk["warnings"].([]any)
	if len(ws) != 1 || !strings.Contains(ws[0].(string), "hipri") {
		t.Errorf("JSON blkmq.warnings = %v, want the hipri warning", bk["warnings"])
	}
	_, err = run(args("run", job, nullDevice, "--strict")...)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--strict: 1 option(s) accepted but not modelled") {
		t.Errorf("--strict: exit %d, error %v", exitCode(err), err)
	}
}

// The JSON as fio's own tools and common consumers read it: fio-plot and most
// scripts take jobs[].jobname, jobs[].read.iops, .bw, .lat_ns.mean,
// .clat_ns.percentile["99.000000"]; tools/fio_jsonplus_clat2csv takes
// jobs[].read.clat_ns.bins (json+) and "fio version"; both ignore "blkmq".
func TestRunJSONForFioTools(t *testing.T) {
	job := writeTmpJob(t, "[a]\nrw=randread\nioengine=libaio\niodepth=4\nruntime=200ms\ntime_based\n")
	outFile := filepath.Join(t.TempDir(), "out.json")
	if out, err := run(args("run", job, nullDevice, "--output-format", "json+", "--output", outFile)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, _ := os.ReadFile(outFile)
	var doc struct {
		Version string `json:"fio version"`
		Jobs    []struct {
			Name string `json:"jobname"`
			Read struct {
				IOPS float64 `json:"iops"`
				BW   float64 `json:"bw"`
				Lat  struct {
					Mean float64 `json:"mean"`
				} `json:"lat_ns"`
				Clat struct {
					Percentile map[string]float64 `json:"percentile"`
					Bins       map[string]float64 `json:"bins"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version == "" || len(doc.Jobs) != 1 {
		t.Fatalf("fio version %q, %d jobs", doc.Version, len(doc.Jobs))
	}
	j := doc.Jobs[0]
	var raw struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"sync", "iodepth_level", "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us", "latency_ms"} {
		if _, ok := raw.Jobs[0][k]; !ok {
			t.Errorf("job lacks %q, which fio 3.33 always writes", k)
		}
	}
	var lvl map[string]float64
	_ = json.Unmarshal(raw.Jobs[0]["iodepth_level"], &lvl)
	if lvl["4"] < 90 {
		t.Errorf("iodepth=4: iodepth_level %v, want almost all at 4", lvl)
	}
	if j.Name != "a" || j.Read.IOPS <= 0 || j.Read.BW <= 0 || j.Read.Lat.Mean <= 0 || j.Read.Clat.Percentile["99.000000"] <= 0 || len(j.Read.Clat.Bins) == 0 {
		t.Errorf("fields fio's tools read are missing or zero: %+v", j)
	}
}

// A job given on the command line as fio takes it, and several output formats.
func TestRunCommandLineJob(t *testing.T) {
	out, err := run(args("run", "--name=cli", "--rw=randread", "--bs=0x1000", "--ioengine=libaio", "--iodepth=8",
		"--runtime=1", "--time_based", nullDevice, "--output-format", "json,normal")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, `"jobname": "cli"`) || !strings.Contains(out, "cli: (groupid=0, jobs=1)") {
		t.Errorf("want the JSON and the text report of job cli:\n%s", out)
	}
	if !strings.Contains(out, `"runtime": 1000`) {
		t.Errorf("--runtime=1 (fio's seconds) should give a 1000 ms runtime:\n%s", out)
	}
}

// --minimal: fio's terse v3 line, 121 fields before the disk statistics (the
// HOWTO's list minus the 9 disk_* fields, which fio prints on a line of their
// own and the model has none of); field 8 is the read IOPS.
func TestRunMinimal(t *testing.T) {
	job := writeTmpJob(t, "[a]\nrw=randread\nrate_iops=500\nruntime=1\ntime_based\n")
	outFile := filepath.Join(t.TempDir(), "out.txt")
	if out, err := run(args("run", job, nullDevice, "--minimal", "--output", outFile)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, _ := os.ReadFile(outFile)
	f := strings.Split(strings.TrimSpace(string(data)), ";")
	if len(f) != 121 || f[0] != "3" || f[2] != "a" || f[7] != "500" {
		t.Errorf("terse line: %d fields, version %q, job %q, read IOPS %q; want 121, 3, a, 500:\n%s", len(f), f[0], f[2], f[7], data)
	}
}
