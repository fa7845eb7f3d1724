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
