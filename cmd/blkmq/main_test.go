package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func run(args ...string) (string, error) {
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	report(&out, err) // as main prints it
	return out.String(), err
}

func exitCode(err error) int { return exitStatus(err) }

func TestClaimsBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"claims", "--format", "xml"}, `--format "xml": allowed values are text, json`},
		{[]string{"claims", "--only", "999/"}, `--only "999/" matches no claim id`},
		{[]string{"claims", "--parallel", "-1"}, `--parallel -1: must be >= 0`},
		{[]string{"claims", "--replicas", "-1"}, `--replicas -1: must be in [0, 1000]`},
		{[]string{"claims", "--replicas", "1001"}, `--replicas 1001: must be in [0, 1000]`},
		{[]string{"claims", "extra"}, `unknown command "extra"`},
	}
	for _, tt := range tests {
		_, err := run(tt.args...)
		if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v (exit %d), want exit 2 with %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}

func TestClaimsJSONPending(t *testing.T) {
	// 004 claims have no scenario yet in this tree or run quickly once they do; either
	// way the output must be valid JSON with one entry per claim.
	out, err := run("claims", "--only", "004/", "--format", "json")
	if code := exitCode(err); code == 2 {
		t.Fatalf("exit 2: %v", err)
	}
	var doc struct {
		Claims []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"claims"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(doc.Claims) != 3 {
		t.Errorf("got %d claims for 004/, want 3", len(doc.Claims))
	}
	// Every 004 figure is met or a recorded known miss: exit 0.
	if code := exitCode(err); code != 0 {
		t.Errorf("claims --only 004/: exit %d (%v), want 0 (met or recorded known misses)", code, err)
	}
}

func TestVersion(t *testing.T) {
	out, err := run("version")
	if err != nil || !strings.HasPrefix(out, "blkmq ") {
		t.Errorf("version: %q, %v", out, err)
	}
}
