package scsi

import (
	"testing"

	"github.com/blkmq/blkmq/device"
	"github.com/blkmq/blkmq/dispatch"
	"github.com/blkmq/blkmq/sim"
)

// TestBudgetMapFolds (CPUCosts.BudgetMapLines): with one command in flight at a time on one CPU, each get takes
// the bit after the one the previous put freed (sbitmap_put moves the hint to it), so
// a word's bits are used up one after the other and the get after the word's last
// free bit folds the deferred-cleared mask back (sbitmap_deferred_clear): one fold per
// word's width of I/Os. Queue depth 64 gives 16-bit words (sbitmap_calculate_shift):
// 64 I/Os fold 3 times, all in one word, and leave nothing held.
func TestBudgetMapFolds(t *testing.T) {
	tests := []struct {
		name      string
		depth     int
		ios       int
		wantFolds uint64
	}{
		{"depth-64-16-bit-words", 64, 64, 3},
		{"depth-192-32-bit-words", 192, 64, 1},
		{"fewer-ios-than-a-word", 192, 20, 0},
		{"lines-off", 64, 64, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := sim.NewEngine()
			costs := dispatch.DefaultCPUCosts()
			costs.BudgetMapLines = tt.name != "lines-off"
			h, err := dispatch.NewHost(eng, dispatch.HostConfig{NrCPUs: 1, NrHwQueues: 1, CanQueue: tt.depth,
				CPU: dispatch.CPUModel{Costs: costs}})
			if err != nil {
				t.Fatal(err)
			}
			sh, err := NewHost(h, CompleteOnHctxIRQ)
			if err != nil {
				t.Fatal(err)
			}
			null, _ := device.NewNull(eng, device.NullParams{Name: "hba", CompletionNsec: sim.Microsecond})
			lun, err := sh.AddDevice(DeviceConfig{Device: null, QueueDepth: tt.depth, Queue: dispatch.LUNConfig{Elevator: "none"}})
			if err != nil {
				t.Fatal(err)
			}
			// start at the first bit of word 0 so the walk is the whole word
			lun.hints[0] = 0
			words := map[int]bool{}
			for i := 0; i < tt.ios; i++ {
				b := dispatch.Bio{Op: device.OpRead, Offset: int64(i) * 8192, Length: 4096, Sync: true, End: endNothing{}}
				lun.Queue().SubmitBio(&b, 0, true, nil)
				eng.Run()
			}
			for w, n := range lun.lines.held {
				if n != 0 {
					t.Errorf("word %d: %d bits held after the run", w, n)
				}
				if n == 0 && w < len(lun.lines.untilFold) && lun.lines.untilFold[w] != lun.wordBits(w) {
					words[w] = true
				}
			}
			if lun.lines.folds != tt.wantFolds {
				t.Errorf("folds = %d, want %d", lun.lines.folds, tt.wantFolds)
			}
			if tt.wantFolds > 0 && len(words) != 1 {
				t.Errorf("words used = %v, want one", words)
			}
		})
	}
}
