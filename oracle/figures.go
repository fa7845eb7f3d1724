package oracle

import "fmt"

// Figures are the quantities compared between kernel and model.
type Figures struct {
	// Jobs has one entry per fio job entry and direction that did I/O.
	Jobs []JobFigures `json:"jobs"`
	// Device sums the disks.
	Device DeviceFigures `json:"device"`
}

// JobFigures are one job entry's figures in one direction.
type JobFigures struct {
	// Job is the job entry's key: jobname, or jobname#k for repeated names.
	Job string `json:"job"`
	// Dir is "read" or "write".
	Dir string `json:"dir"`
	// IOPS is fio's iops; BW its bw_bytes (bytes/s).
	IOPS float64 `json:"iops"`
	BW   float64 `json:"bw_bytes"`
	// ClatMean and ClatP99 are fio's completion latency mean and 99th
	// percentile (ns).
	ClatMean float64 `json:"clat_mean_ns"`
	ClatP99  float64 `json:"clat_p99_ns"`
	// CPU is usr_cpu + sys_cpu (percent of one CPU; kernel side only).
	CPU float64 `json:"cpu,omitempty"`
}

// DeviceFigures describe the commands the disks received.
type DeviceFigures struct {
	// Requests are completed requests (device commands) and Merges bios merged
	// into them, over the whole run (ramp included).
	Requests int64 `json:"requests"`
	Merges   int64 `json:"merges"`
	// MergeFraction is Merges / (Requests + Merges): the share of bios that did
	// not become commands of their own.
	MergeFraction float64 `json:"merge_fraction"`
	// CommandsPerSec is the fio IOPS of all jobs times the commands per bio
	// (1 − MergeFraction): device commands per second in fio's window.
	CommandsPerSec float64 `json:"commands_per_sec"`
	// MeanCommandBytes is the fio bandwidth of all jobs over CommandsPerSec.
	MeanCommandBytes float64 `json:"mean_command_bytes"`
}

// figuresOf derives job figures from fio JSON and the device figures from request
// and merge counts.
func figuresOf(fj *FioJSON, requests, merges int64) *Figures {
	f := &Figures{}
	keys := jobKeys(fj.Jobs)
	var iops, bw float64
	for i, j := range fj.Jobs {
		for _, d := range []struct {
			name string
			dir  *FioDir
		}{{"read", &j.Read}, {"write", &j.Write}} {
			if d.dir.TotalIOs == 0 {
				continue
			}
			f.Jobs = append(f.Jobs, JobFigures{Job: keys[i], Dir: d.name, IOPS: d.dir.IOPS, BW: float64(d.dir.BWBytes),
				ClatMean: d.dir.Clat.Mean, ClatP99: d.dir.Clat.P99(), CPU: j.UsrCPU + j.SysCPU})
			iops += d.dir.IOPS
			bw += float64(d.dir.BWBytes)
		}
	}
	dev := DeviceFigures{Requests: requests, Merges: merges}
	if requests+merges > 0 {
		dev.MergeFraction = float64(merges) / float64(requests+merges)
	}
	dev.CommandsPerSec = iops * (1 - dev.MergeFraction)
	if dev.CommandsPerSec > 0 {
		dev.MeanCommandBytes = bw / dev.CommandsPerSec
	}
	f.Device = dev
	return f
}

// KernelFigures derives the Figures of a kernel run from its fio JSON and facts.
// It returns an error when the facts hold no disk.
func KernelFigures(fj *FioJSON, facts *Facts) (*Figures, error) {
	if facts == nil || len(facts.Disks) == 0 {
		return nil, fmt.Errorf("oracle: kernel facts hold no disk")
	}
	var req, mrg int64
	for _, d := range facts.Disks {
		req += d.ReadIOs + d.WriteIOs
		mrg += d.ReadMerges + d.WriteMerges
	}
	return figuresOf(fj, req, mrg), nil
}
