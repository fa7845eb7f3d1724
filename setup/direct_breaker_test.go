package setup

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

// TestJobNotesBufferedDefault: a job that gives neither direct= nor buffered= runs, in
// fio, with fio's default direct=0 (buffered I/O through the page cache), which the
// model does not model: it runs the job as direct I/O. An explicit direct=0 is warned
// about (fio's Unmodelled list); the default was silent, so a job file or command
// line without direct=1 ran as something else than fio would, and nothing said so.
// The note comes once per section; direct= or buffered= in the job or in a [global]
// above it silences it.
func TestJobNotesBufferedDefault(t *testing.T) {
	note := "job a: neither direct= nor buffered= is set, so fio does buffered I/O (its default, direct=0); " + noteDefaultBuffered
	for _, tt := range []struct {
		name, job string
		want      []string
	}{
		{"unset", "[a]\nrw=randread\nnumjobs=2\n", []string{note}},
		{"direct=1", "[a]\ndirect=1\n", nil},
		{"buffered=0", "[a]\nbuffered=0\n", nil},
		{"global-direct", "[global]\ndirect=1\n[a]\n", nil},
		{"explicit-direct=0", "[a]\ndirect=0\n", nil}, // warned as not modelled instead
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := fio.Parse(strings.NewReader(tt.job), "j.fio")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, JobNotes(specs)); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}
