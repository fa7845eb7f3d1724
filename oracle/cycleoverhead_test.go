package oracle

import (
	"testing"
	"time"
)

func TestCycleOverhead(t *testing.T) {
	job := func(iops, clat float64) JobFigures {
		return JobFigures{Job: "calibrate", Dir: "read", IOPS: iops, ClatMean: clat}
	}
	for _, tc := range []struct {
		name          string
		kernel, model []JobFigures
		want          time.Duration
		wantErr       bool
	}{
		// round-8 calib-scsi_debug: 223.3 IOPS at 4.243 ms against 235.0 at 4.234 ms
		{name: "calib-scsi_debug", kernel: []JobFigures{job(223.3, 4.243e6)}, model: []JobFigures{job(235.0, 4.234e6)},
			want: 213961 * time.Nanosecond},
		{name: "model-slower-outside-clat", kernel: []JobFigures{job(250, 3.9e6)}, model: []JobFigures{job(200, 4.0e6)}, want: 0},
		{name: "two-jobs", kernel: []JobFigures{job(1, 1), job(1, 1)}, model: []JobFigures{job(1, 1)}, wantErr: true},
		{name: "no-iops", kernel: []JobFigures{job(0, 1)}, model: []JobFigures{job(1, 1)}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CycleOverhead(&Figures{Jobs: tc.kernel}, &Figures{Jobs: tc.model})
			if (err != nil) != tc.wantErr {
				t.Fatalf("CycleOverhead error %v, want error %v", err, tc.wantErr)
			}
			if d := got - tc.want; d > time.Microsecond || d < -time.Microsecond {
				t.Errorf("CycleOverhead = %v, want %v", got, tc.want)
			}
		})
	}
}
