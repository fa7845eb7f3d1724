package stack

import "testing"

// TestIOWQBoundedWorkers: io_init_wq_offload bounds a ring's workers at
// min(sq_entries, 4 × CPUs); io_prep_async_work hashes writes (one worker at a time)
// only for a regular file, not for a block device file, unless the pre-round-8 rule
// (IOPrepAsyncWorkHashAll) is asked for.
func TestIOWQBoundedWorkers(t *testing.T) {
	tests := []struct {
		name                    string
		entries, cpus           int
		regular, reads, hashAll bool
		want                    int
	}{
		{"reads-blockdev-4cpu-qd256", 256, 4, false, true, false, 16},
		{"reads-blockdev-2cpu-qd256", 256, 2, false, true, false, 8},
		{"reads-sq-entries-bound", 4, 16, false, true, false, 4},
		{"writes-blockdev-not-hashed", 4, 2, false, false, false, 4},
		{"writes-blockdev-qd2", 2, 4, false, false, false, 2},
		{"writes-regular-file-hashed", 4, 2, true, false, false, 1},
		{"reads-regular-file-not-hashed", 256, 2, true, true, false, 8},
		{"writes-blockdev-hash-all-old-rule", 4, 2, false, false, true, 1},
		{"reads-hash-all-unchanged", 256, 2, false, true, true, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ioWQBoundedWorkers(tt.entries, tt.cpus, tt.regular, tt.reads, tt.hashAll); got != tt.want {
				t.Errorf("ioWQBoundedWorkers(%d, %d, regular=%v, reads=%v, hashAll=%v) = %d, want %d",
					tt.entries, tt.cpus, tt.regular, tt.reads, tt.hashAll, got, tt.want)
			}
		})
	}
}
