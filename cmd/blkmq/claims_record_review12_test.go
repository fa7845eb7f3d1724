package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkmq/blkmq"
)

// TestClaimsRecordNeedsDefaultRun: --record rewrites the records the default run
// (seed 1, each claim's own replicas) is judged against, so with --replicas N or
// another --seed it wrote the N-replica mean (000/tasks/wal-IOPS/per-hctx 356.2 ->
// 345.1 with --replicas 2) or another seed's value as the record, which the next
// plain run does not give (and may leave the band of: MOVED). Refused, exit 2, the
// file untouched.
func TestClaimsRecordNeedsDefaultRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claims.json")
	if err := os.WriteFile(path, blkmq.ClaimsJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--replicas", "2"},
		{"--seed", "2"},
	} {
		out, err := run(append([]string{"claims", "--only", "004/", "--eta", "never", "--record", path}, args...)...)
		if exitCode(err) != 2 || !strings.Contains(out, "--record") || !strings.Contains(out, args[0]) {
			t.Errorf("%v: exit %d, want 2 naming --record and %s:\n%s", args, exitCode(err), args[0], out)
		}
		if got, _ := os.ReadFile(path); string(got) != string(blkmq.ClaimsJSON) {
			t.Errorf("%v: the claims file was rewritten", args)
		}
	}
}
