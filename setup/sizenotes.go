package setup

import (
	"fmt"
	"slices"

	"github.com/blkmq/blkmq/fio"
)

// WholeDeviceNotes returns one note per job section (clone 0) that SizeJobs sized
// to the whole device (sized: the instances SizeJobs returned) when that is more
// than the 1 GiB a job gets on a device of unknown capacity and nothing else ends
// the job early: no runtime=, io_size= or number_ios=. Such a job (e.g. no size=
// on the 1 TB default NVMe) transfers the whole device, which can take the model a
// long time; the note says how much, so the run is not silent when stderr shows no
// progress bar. fio prints no such note: it is the model's.
func WholeDeviceNotes(specs []fio.Spec, sized []string) []string {
	var out []string
	for i := range specs {
		s := &specs[i]
		if s.Index != 0 || s.Size <= stackDefaultSize || s.Runtime > 0 || s.IOSize > 0 || s.NumberIOs > 0 ||
			!slices.Contains(sized, s.Instance()) {
			continue
		}
		loops := max(s.Loops, 1)
		ios := s.Size / max(s.BlockSize, 1) * int64(loops)
		extra := ""
		if loops > 1 {
			extra = fmt.Sprintf(", %d loops", loops)
		}
		out = append(out, fmt.Sprintf("job %s: no size=, so it covers the whole device: %s (%d I/Os of %d bytes%s per clone), and no runtime= limits it; set size= or runtime= for a shorter run",
			s.Name, binaryBytes(s.Size), ios, s.BlockSize, extra))
	}
	return out
}

// binaryBytes formats n bytes with a binary unit (KiB … TiB), one decimal.
func binaryBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v, u := float64(n), ""
	for _, x := range units {
		if v < 1024 {
			break
		}
		v /= 1024
		u = x
	}
	if u == "" {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", v, u)
}
