package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/blkmq/blkmq/oracle"
)

// TestCalibrationFailureStatus: a calibration the model cannot fit is the user's
// input (exit 2) only when the user chose the emulated CPU costs; with the defaults
// it is a model failure (exit 1), and other calibration errors stay exit 1.
func TestCalibrationFailureStatus(t *testing.T) {
	unfit := fmt.Errorf("oracle: calibration case c: %w", &oracle.CalibrationError{KernelClatMean: 4e6, ModelClatMean: 5e6})
	tests := []struct {
		name           string
		wake, slowdown string
		err            error
		want           int
	}{
		{"defaults", "on", "auto", unfit, 1},
		{"wake-off", "off", "auto", unfit, 1},
		{"wake-duration", "19us", "auto", unfit, 2},
		{"slowdown-fixed", "on", "200", unfit, 2},
		{"other-error", "19us", "200", errors.New("oracle: no reference"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &validateFlags{wake: tt.wake, slowdown: tt.slowdown}
			if got := exitCode(v.calibrationFailure(tt.err)); got != tt.want {
				t.Errorf("exit %d, want %d", got, tt.want)
			}
		})
	}
}
