package bench

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// The claims runner needs some simulated runs twice: the storvsc scenario's unpinned
// variants at nr_requests 56 are also points of the nr_requests sweep (same
// configuration, runtime and seed). Each run is deterministic for its inputs, so the
// second caller takes the first one's figures instead of simulating 60 s again. A
// caller that arrives while the run is in progress waits for it (the sweep and the
// scenario run in parallel).

// storvscKey names one storvsc run by every input its figures depend on.
type storvscKey struct {
	shared  bool
	nr      int
	runtime time.Duration
	seed    uint64
	scale   string
}

type storvscMemoEntry struct {
	once sync.Once
	f    StorvscFigures // metrics only (Result and Wal are dropped: not kept alive)
	err  error
}

var (
	storvscMemoMu sync.Mutex
	storvscMemo   = map[storvscKey]*storvscMemoEntry{}
)

// scaleKey is a canonical text form of sc (sorted names).
func scaleKey(sc Scale) string {
	if len(sc) == 0 {
		return ""
	}
	names := make([]string, 0, len(sc))
	for n := range sc {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%v;", n, sc[n])
	}
	return b.String()
}

// memoStorvsc returns the wal IOPS, wal clat and hogs IOPS of runStorvscScaled for these
// inputs, running it once per process.
func memoStorvsc(shared bool, nr int, runtime time.Duration, seed uint64, sc Scale) (StorvscFigures, error) {
	k := storvscKey{shared, nr, runtime, seed, scaleKey(sc)}
	storvscMemoMu.Lock()
	e := storvscMemo[k]
	if e == nil {
		e = &storvscMemoEntry{}
		storvscMemo[k] = e
	}
	storvscMemoMu.Unlock()
	e.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				e.err = fmt.Errorf("model panic: %v", p)
			}
		}()
		f, err := runStorvscScaled(shared, nr, runtime, seed, sc)
		if err != nil {
			e.err = err
			return
		}
		e.f = StorvscFigures{WalIOPS: f.WalIOPS, WalClatUs: f.WalClatUs, HogsIOPS: f.HogsIOPS}
	})
	return e.f, e.err
}

// runParallel calls run(0) … run(n-1), at most GOMAXPROCS at once, and returns the
// error of the lowest index that failed (a panic in a call becomes its error).
func runParallel(n int, run func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("model panic: %v", p)
				}
				<-sem
				wg.Done()
			}()
			errs[i] = run(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
