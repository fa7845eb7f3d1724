package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunJSONCarriesNotes: the notes run prints on stderr (fio's own, and the model's:
// a job left at fio's default buffered I/O runs as direct=1) reached a JSON consumer
// nowhere, while the warnings are under "blkmq". They are now "blkmq"."notes".
func TestRunJSONCarriesNotes(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(job, []byte("[j]\nioengine=libaio\nrw=randread\nsize=1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(dir, "o.json")
	if out, err := run("run", job, "--output-format", "json", "--output", outPath); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Blkmq struct {
			Notes []string `json:"notes"`
		} `json:"blkmq"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range doc.Blkmq.Notes {
		found = found || strings.Contains(n, "neither direct= nor buffered= is set")
	}
	if !found {
		t.Errorf("blkmq.notes = %q, want the buffered-default note", doc.Blkmq.Notes)
	}
}

// TestReplicaJSONCarriesWarnings: README says an option accepted but not modelled is
// a warning "on stderr and in the JSON under blkmq"; with --replicas the "blkmq"
// object held the spread only, no warnings (nor notes). Now both are there.
func TestReplicaJSONCarriesWarnings(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(job, []byte("[j]\nioengine=libaio\nrw=randread\nsize=1m\ndisable_slat=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(dir, "o.json")
	if out, err := run("run", job, "--replicas", "2", "--output-format", "json", "--output", outPath); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Blkmq struct {
			Replicas int      `json:"replicas"`
			Warnings []string `json:"warnings"`
			Notes    []string `json:"notes"`
		} `json:"blkmq"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Blkmq.Replicas != 2 || len(doc.Blkmq.Warnings) == 0 || !strings.Contains(strings.Join(doc.Blkmq.Warnings, "\n"), "disable_slat=1") || len(doc.Blkmq.Notes) == 0 {
		t.Errorf("blkmq = %+v, want 2 replicas, the disable_slat warning and the buffered-default note", doc.Blkmq)
	}
}
