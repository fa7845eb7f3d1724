package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blkmq/blkmq/fio"
)

// runLogs are the write_bw_log / write_lat_log / write_iops_log files of one run,
// in the current directory as fio writes them (fio.LogFileName): a per-job file
// is created (truncated) before the run; entries for a per_job_logs=0 file go to
// a temporary file per job, appended to the shared file in job order at the end,
// as each fio job appends its whole log when it exits.
type runLogs struct {
	jobs  []*fio.JobLogs
	files []*os.File
	// appends are (temporary file, shared file) pairs, in job order
	appends []logAppend
}

type logAppend struct {
	tmp    *os.File
	target string
}

// openRunLogs creates the log files of specs (one JobLogs per instance, nil for
// an instance without logs); nil when no job writes a log.
func openRunLogs(specs []fio.Spec) (*runLogs, error) {
	any := false
	for i := range specs {
		any = any || specs[i].Logs.Any()
	}
	if !any {
		return nil, nil
	}
	rl := &runLogs{jobs: make([]*fio.JobLogs, len(specs))}
	for i := range specs {
		s := &specs[i]
		jl, err := fio.NewJobLogs(s, func(typ string) (io.Writer, error) {
			name := fio.LogFileName(s, typ, i+1)
			if s.Logs.PerJob {
				f, err := os.Create(name)
				if err != nil {
					return nil, fmt.Errorf("job %s: %s log: %w", s.Instance(), typ, err)
				}
				rl.files = append(rl.files, f)
				return f, nil
			}
			f, err := os.CreateTemp(filepath.Dir(name), ".blkmq-log-*")
			if err != nil {
				return nil, fmt.Errorf("job %s: %s log %s: %w", s.Instance(), typ, name, err)
			}
			rl.files = append(rl.files, f)
			rl.appends = append(rl.appends, logAppend{f, name})
			return f, nil
		})
		if err != nil {
			rl.abort()
			return nil, err
		}
		rl.jobs[i] = jl
	}
	return rl, nil
}

// abort closes and removes what openRunLogs made.
func (rl *runLogs) abort() {
	for _, f := range rl.files {
		f.Close()
		os.Remove(f.Name())
	}
}

// finish checks the logs' write errors, closes the files and appends the
// per_job_logs=0 entries to their shared files.
func (rl *runLogs) finish() error {
	var errs []error
	for _, jl := range rl.jobs {
		if jl != nil && jl.Err() != nil {
			errs = append(errs, fmt.Errorf("log: %w", jl.Err()))
		}
	}
	for _, a := range rl.appends {
		errs = append(errs, appendFile(a.target, a.tmp))
	}
	for _, f := range rl.files {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	for _, a := range rl.appends {
		os.Remove(a.tmp.Name())
	}
	return errors.Join(errs...)
}

// appendFile appends the content of src (rewound) to the file named dst.
func appendFile(dst string, src *os.File) error {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("log %s: %w", dst, err)
	}
	if _, err := io.Copy(f, src); err != nil {
		f.Close()
		return fmt.Errorf("log %s: %w", dst, err)
	}
	return f.Close()
}

// anyLogs reports whether a job writes a bandwidth, latency or IOPS log.
func anyLogs(specs []fio.Spec) bool {
	for i := range specs {
		if specs[i].Logs.Any() {
			return true
		}
	}
	return false
}
