package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunJobFromStdin: fio reads the job file from standard input when it is named
// "-" (init.c __parse_jobs_ini: strcmp(file, "-") takes stdin), as in
// `generate-job | fio -`. blkmq run said "open -: no such file or directory"; it now
// reads stdin too, and names it <stdin> in errors.
func TestRunJobFromStdin(t *testing.T) {
	for _, tt := range []struct {
		name, job, want string
		code            int
	}{
		{"runs", "[j]\ndirect=1\nrw=randread\nsize=1m\n", "IOPS=", 0},
		{"error-names-stdin", "[j]\ndirect=1\niodepth=0\n", "<stdin>:3: [j] iodepth=0: out of range", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newRootCmd()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetIn(strings.NewReader(tt.job))
			cmd.SetArgs([]string{"run", "-"})
			err := cmd.Execute()
			report(&out, err)
			if exitCode(err) != tt.code || !strings.Contains(out.String(), tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", exitCode(err), tt.code, tt.want, out.String())
			}
		})
	}
}
