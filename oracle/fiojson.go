package oracle

import (
	"encoding/json"
	"fmt"
	"sort"
)

// FioJSON is the part of fio's JSON output (fio 3.x, --output-format=json) that the
// comparison reads. Unmarshalling full fio JSON into it drops everything else, which
// is how the committed reference files are trimmed; it marshals back in fio's layout.
type FioJSON struct {
	// Version is "fio version" (e.g. "fio-3.33"); "" for model output.
	Version string `json:"fio version,omitempty"`
	// Jobs are fio's job entries (one per job instance, or per group with
	// group_reporting).
	Jobs []FioJob `json:"jobs"`
	// DiskUtil is fio's per-disk summary over the whole run (ramp included).
	DiskUtil []FioDiskUtil `json:"disk_util,omitempty"`
}

// FioJob is one entry of FioJSON.Jobs.
type FioJob struct {
	// JobName is fio's jobname (repeated for the numjobs clones of a job).
	JobName string `json:"jobname"`
	// GroupID is fio's reporting group.
	GroupID int `json:"groupid"`
	// Read and Write are the per-direction statistics.
	Read  FioDir `json:"read"`
	Write FioDir `json:"write"`
	// UsrCPU and SysCPU are the job's CPU use in percent of one CPU; near 100 in
	// total means the kernel-side result is CPU-bound (emulation speed), not
	// device-bound.
	UsrCPU float64 `json:"usr_cpu"`
	SysCPU float64 `json:"sys_cpu"`
	// Ctx is fio's "ctx": the job's context switches over the run, voluntary and
	// involuntary together (getrusage ru_nvcsw + ru_nivcsw of the job's process or
	// thread). 0 in references recorded before it was kept.
	Ctx int64 `json:"ctx,omitempty"`
}

// FioDir is fio's per-direction object, trimmed.
type FioDir struct {
	// IOBytes and TotalIOs are the bytes and I/Os completed in fio's window.
	IOBytes  int64 `json:"io_bytes"`
	TotalIOs int64 `json:"total_ios"`
	// BWBytes is the bandwidth (bytes/s), IOPS the I/O rate.
	BWBytes int64   `json:"bw_bytes"`
	IOPS    float64 `json:"iops"`
	// Runtime is the direction's runtime (ms).
	Runtime int64 `json:"runtime"`
	// Clat is the completion latency (ns).
	Clat FioLat `json:"clat_ns"`
}

// FioLat is fio's latency object in ns, with only the kept percentiles.
type FioLat struct {
	// Min, Max, Mean and Stddev are in ns over N samples; Percentile maps fio's
	// keys ("99.000000") to ns.
	Min        int64            `json:"min"`
	Max        int64            `json:"max"`
	Mean       float64          `json:"mean"`
	Stddev     float64          `json:"stddev"`
	N          int64            `json:"N"`
	Percentile map[string]int64 `json:"percentile,omitempty"`
}

// FioDiskUtil is one fio disk_util entry (counts over the whole run).
type FioDiskUtil struct {
	// Name is the disk (sda, nullb0); the counts are requests and merged bios,
	// Util the busy percentage.
	Name        string  `json:"name"`
	ReadIOs     int64   `json:"read_ios"`
	WriteIOs    int64   `json:"write_ios"`
	ReadMerges  int64   `json:"read_merges"`
	WriteMerges int64   `json:"write_merges"`
	Util        float64 `json:"util"`
}

// keptPercentiles are the clat percentiles a trimmed file keeps (fio's keys).
var keptPercentiles = []string{"50.000000", "90.000000", "99.000000", "99.900000"}

// ParseFioJSON reads fio's JSON output (full or trimmed), skipping any text fio
// printed before the opening brace, and trims it. It returns an error when the text
// holds no JSON object or no jobs.
func ParseFioJSON(data []byte) (*FioJSON, error) {
	start := -1
	for i, b := range data {
		if b == '{' {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("oracle: fio output holds no JSON object")
	}
	var out FioJSON
	if err := json.Unmarshal(data[start:], &out); err != nil {
		return nil, fmt.Errorf("oracle: fio JSON: %w", err)
	}
	if len(out.Jobs) == 0 {
		return nil, fmt.Errorf("oracle: fio JSON has no jobs")
	}
	for i := range out.Jobs {
		trimPercentiles(&out.Jobs[i].Read.Clat)
		trimPercentiles(&out.Jobs[i].Write.Clat)
	}
	return &out, nil
}

func trimPercentiles(l *FioLat) {
	if l.Percentile == nil {
		return
	}
	kept := map[string]int64{}
	for _, k := range keptPercentiles {
		if v, ok := l.Percentile[k]; ok {
			kept[k] = v
		}
	}
	l.Percentile = kept
}

// P99 returns the 99th percentile (ns), 0 when absent.
func (l FioLat) P99() float64 { return float64(l.Percentile["99.000000"]) }

// MarshalIndent returns the trimmed JSON, keys sorted, two-space indented.
func (f *FioJSON) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	return append(b, '\n'), nil
}

// jobKeys names each job entry "jobname" or, when a name repeats (numjobs without
// group_reporting), "jobname#k" with k its occurrence from 0, in order.
func jobKeys(jobs []FioJob) []string {
	count := map[string]int{}
	for _, j := range jobs {
		count[j.JobName]++
	}
	seen := map[string]int{}
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = j.JobName
		if count[j.JobName] > 1 {
			keys[i] = fmt.Sprintf("%s#%d", j.JobName, seen[j.JobName])
		}
		seen[j.JobName]++
	}
	return keys
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
