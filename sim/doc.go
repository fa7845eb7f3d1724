// Package sim is the virtual-time engine underneath the blkmq model: a clock in integer
// nanoseconds, a deterministic discrete-event engine, seeded randomness, and simulated
// CPUs that charge the cost of each path step (including cache-line transfers on shared
// structures).
//
// Invariant: events fire in non-decreasing time order; events scheduled for the same
// instant fire in the order they were scheduled (insertion sequence), so a run is a pure
// function of its inputs and seeds. The engine never reads the wall clock.
//
// Prefer sim over goroutines and time.Sleep whenever a result must be reproducible bit
// for bit and independent of the host machine's speed.
//
// The engine is single-goroutine: an Engine, its Handlers, CPUs and SharedLines must be
// used from one goroutine at a time.
package sim
