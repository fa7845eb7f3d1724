package tagset

// SetRaceWindow installs fn to run inside the unlocked wake-batch update of
// Options.UnlockedWakeBatchUpdate (tests only); nil removes it.
func SetRaceWindow(fn func()) { raceWindow = fn }
