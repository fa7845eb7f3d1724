package fio

import "testing"

// Expected strings worked out by hand from fio's lib/num2str.c algorithm.
func TestNum2str(t *testing.T) {
	tests := []struct {
		n         uint64
		maxDigits int
		base      uint64
		unit      string
		want      string
	}{
		{271, 4, 1000, "", "271"},
		{9999, 4, 1000, "", "9999"},
		{2220032, 4, 1024, "B/s", "2168KiB/s"},  // 2168 * 1024, no remainder
		{2220032, 4, 1000, "B/s", "2220kB/s"},   // 2220 rem 32: no room for decimals
		{77000000, 4, 1024, "B/s", "73.4MiB/s"}, // 75195 rem 320, then 73 rem 443: 443/1024 = .43
		{980123, 4, 1000, "", "980k"},           // rem 123 < 500: no carry
		{999999, 4, 1000, "", "1000k"},          // rem 999 >= 500: carry
		{1500000, 6, 1000, "", "1500.0k"},       // room for one decimal
		{1 << 40, 4, 1024, "B", "1024GiB"},      // 1099511627776 -> 1024 Gi
		{5_000_000_000, 4, 1000, "B", "5000MB"}, // 5000000 rem 0, 5000 rem 0
		{12_345_678, 4, 1000, "", "12.3M"},      // 12345 rem 678 -> 12 rem 345: .345 -> "3"
	}
	for _, tc := range tests {
		if got := num2str(tc.n, tc.maxDigits, tc.base, tc.unit); got != tc.want {
			t.Errorf("num2str(%d, %d, %d, %q) = %q; want %q", tc.n, tc.maxDigits, tc.base, tc.unit, got, tc.want)
		}
	}
}
