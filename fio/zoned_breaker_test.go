package fio

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestZonedMissingSizeAsFio: fio's own examples/rand-zones.fio has
// "random_distribution=zoned:50/5:30/15:20/". split_parse_ddir reads an empty size
// share (or none, or 0) as missing, and zone_split_ddir gives each missing share
// (100 - the given ones) / the missing count; the parser refused the file with
// "size share out of range".
func TestZonedMissingSizeAsFio(t *testing.T) {
	for _, tt := range []struct {
		name, dist string
		want       []Zone
		err        string
	}{
		{"fio example empty share", "zoned:50/5:30/15:20/", []Zone{{Access: 50, Size: 5}, {Access: 30, Size: 15}, {Access: 20, Size: 80}}, ""},
		{"no slash", "zoned:60/40:40", []Zone{{Access: 60, Size: 40}, {Access: 40, Size: 60}}, ""},
		{"zero share is missing", "zoned:60/40:40/0", []Zone{{Access: 60, Size: 40}, {Access: 40, Size: 60}}, ""},
		{"two missing split evenly", "zoned:50/50:25/:25/", []Zone{{Access: 50, Size: 50}, {Access: 25, Size: 25}, {Access: 25, Size: 25}}, ""},
		{"given over 100", "zoned:50/80:50/30", nil, "zone sizes add up to 110%, want 100"},
		{"filled short of 100", "zoned:40/11:20/:20/:20/", nil, "zone sizes add up to 98%, want 100 (fio also runs a sum under 100"},
		{"access short", "zoned:50/50:20/", nil, "zone access shares add up to 70, want 100"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randread\nrandom_distribution="+tt.dist+"\n"), "t.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, specs[0].Dist.Zones); diff != "" {
				t.Errorf("zones (-want +got):\n%s", diff)
			}
		})
	}
}
