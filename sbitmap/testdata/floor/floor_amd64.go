// Package floor holds the scratch LOCK BTS benchmark (see go.mod).
package floor

// bts atomically sets bit in *addr (LOCK BTSQ) and reports whether it was set before.
func bts(addr *uint64, bit uint64) bool

// btr atomically clears bit in *addr (LOCK BTRQ) and reports whether it was set before.
func btr(addr *uint64, bit uint64) bool
