package oracle

import (
	"strings"
	"testing"
)

// TestCalibrationCaseOverride checks BLKMQ_ORACLE_CALIBRATION: the index's
// calibration case by default, the named case for the named driver only, and an
// error naming the variable for a malformed value or a case of another driver.
func TestCalibrationCaseOverride(t *testing.T) {
	ix, err := LoadIndex("../testdata/kernel/configs.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env, drv, want, err string
	}{
		{"", "null_blk", "calib-null_blk", ""},
		{"", "scsi_debug", "calib-scsi_debug", ""},
		{"null_blk=calib-cpu-nb-qd1", "null_blk", "calib-cpu-nb-qd1", ""},
		{"null_blk=calib-cpu-nb-qd1", "scsi_debug", "calib-scsi_debug", ""},
		{"null_blk=calib-cpu-nb-qd1,scsi_debug=calib-cpu-sd-qd1", "scsi_debug", "calib-cpu-sd-qd1", ""},
		{"null_blk", "null_blk", "", "want DRIVER=CASE"},
		{"null_blk=calib-cpu-sd-qd1", "null_blk", "", "not a null_blk case"},
		{"null_blk=no-such-case", "null_blk", "", "missing"},
	} {
		t.Setenv("BLKMQ_ORACLE_CALIBRATION", tc.env)
		got, ok, err := ix.calibrationCase(tc.drv)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "BLKMQ_ORACLE_CALIBRATION") {
				t.Errorf("%q %s: error %v, want one containing %q", tc.env, tc.drv, err, tc.err)
			}
		case err != nil || !ok || got != tc.want:
			t.Errorf("%q %s: %q %v %v, want %q", tc.env, tc.drv, got, ok, err, tc.want)
		}
	}
}
