package setup

import (
	"testing"
	"time"

	"github.com/blkmq/blkmq/fio"
	"github.com/google/go-cmp/cmp"
)

func TestWholeDeviceNotes(t *testing.T) {
	const tb = int64(1e12)
	spec := func(f func(*fio.Spec)) fio.Spec {
		s := fio.Spec{Name: "j", BlockSize: 4096, Size: tb, Loops: 1}
		if f != nil {
			f(&s)
		}
		return s
	}
	note := "job j: no size=, so it covers the whole device: 931.3 GiB (244140625 I/Os of 4096 bytes per clone), and no runtime= limits it; set size= or runtime= for a shorter run"
	tests := []struct {
		name  string
		specs []fio.Spec
		sized []string
		want  []string
	}{
		{"whole-device", []fio.Spec{spec(nil)}, []string{"j.0"}, []string{note}},
		{"one-note-for-clones", []fio.Spec{spec(nil), spec(func(s *fio.Spec) { s.Index = 1 })}, []string{"j.0", "j.1"}, []string{note}},
		{"size-given", []fio.Spec{spec(nil)}, nil, nil},
		{"runtime", []fio.Spec{spec(func(s *fio.Spec) { s.Runtime = 10 * time.Second })}, []string{"j.0"}, nil},
		{"io_size", []fio.Spec{spec(func(s *fio.Spec) { s.IOSize = 1 << 20 })}, []string{"j.0"}, nil},
		{"number_ios", []fio.Spec{spec(func(s *fio.Spec) { s.NumberIOs = 100 })}, []string{"j.0"}, nil},
		{"small-device", []fio.Spec{spec(func(s *fio.Spec) { s.Size = 8 << 20 })}, []string{"j.0"}, nil},
		{"loops", []fio.Spec{spec(func(s *fio.Spec) { s.Size = 2 << 40; s.Loops = 2 })}, []string{"j.0"},
			[]string{"job j: no size=, so it covers the whole device: 2.0 TiB (1073741824 I/Os of 4096 bytes, 2 loops per clone), and no runtime= limits it; set size= or runtime= for a shorter run"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, WholeDeviceNotes(tc.specs, tc.sized)); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}
