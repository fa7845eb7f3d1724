package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClaimsReplicasJSON: --replicas N judges each claim from N jitter replicas; the
// JSON carries the replica count, each replica's value, the sd and the 95 % interval,
// and the text table the interval column; the same seeds give the same output.
func TestClaimsReplicasJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scenario 003 three times")
	}
	out, err := run("claims", "--only", "003/", "--replicas", "3", "--format", "json", "--eta", "never")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var doc struct {
		Claims []struct {
			ID       string     `json:"id"`
			Model    *float64   `json:"model"`
			Replicas int        `json:"replicas"`
			Values   []*float64 `json:"values"`
			SD       *float64   `json:"sd"`
			Interval []*float64 `json:"interval"`
			Status   string     `json:"status"`
		} `json:"claims"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Claims) != 1 {
		t.Fatalf("%d claims", len(doc.Claims))
	}
	c := doc.Claims[0]
	if c.Replicas != 3 || len(c.Values) != 3 || c.SD == nil || len(c.Interval) != 2 || c.Interval[0] == nil || c.Interval[1] == nil {
		t.Fatalf("replica fields missing: %+v", c)
	}
	if !(*c.Interval[0] <= *c.Model && *c.Model <= *c.Interval[1]) {
		t.Errorf("interval [%g, %g] does not hold the mean %g", *c.Interval[0], *c.Interval[1], *c.Model)
	}
	again, err := run("claims", "--only", "003/", "--replicas", "3", "--format", "json", "--eta", "never")
	if err != nil || again != out {
		t.Errorf("second run differs (err %v)", err)
	}
	text, err := run("claims", "--only", "003/", "--replicas", "3", "--eta", "never")
	if err != nil || !strings.Contains(text, "INTERVAL (N)") || !strings.Contains(text, "(3)") {
		t.Errorf("text table without the interval column (err %v):\n%s", err, text)
	}
}
