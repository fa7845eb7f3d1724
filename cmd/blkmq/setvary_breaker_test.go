package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepSetAndVarySameKey: `sweep --set queue/nr_requests=16 --vary
// queue/nr_requests=4,8` ran the varied values and dropped the --set without a word,
// while --kernel with --vary kernel=... (and --cpus with system/nr_cpus) is refused as
// two values given in one place. The same key in --set and --vary is now refused too,
// naming both; a config file's set entry stays a base the sweep overrides.
func TestSweepSetAndVarySameKey(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(job, []byte("[j]\ndirect=1\nruntime=1ms\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run("sweep", job, "--set", "queue/nr_requests=16", "--vary", "queue/nr_requests=4,8")
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "--set queue/nr_requests=16") || !strings.Contains(err.Error(), "--vary queue/nr_requests") {
		t.Fatalf("exit %d, err %v; want exit 2 naming the --set and the --vary:\n%s", exitCode(err), err, out)
	}
	conf := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(conf, []byte("set = [\"queue/nr_requests=16\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run("sweep", job, "--config", conf, "--vary", "queue/nr_requests=4,8"); err != nil {
		t.Fatalf("a config file's set under --vary: %v\n%s", err, out)
	}
}
