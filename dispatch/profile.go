package dispatch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blkmq/blkmq/sbitmap"
)

// A Profile is a kernel as people run it: a mainline release plus the stable
// backports its release line carries for the switches the model has. Kernel and
// KernelProfile build one from a release string.
//
// The stable releases of the 6.1 line (6.1.N, and Debian 12's uname -r form
// 6.1.0-ABI-FLAVOUR) carry these backports of modelled switches (source: the
// "New upstream stable update" sections of Debian's linux 6.1.192-3
// changelog, which list every stable release's commits; mainline ids from the
// mainline history):
//
//	switch                       6.1      from    mainline commit (release)  title
//	sbitmap WakeScheme           countdown 6.1.16  4f8126bb2308 (6.2)  sbitmap: Use single per-bitmap counting to wake up queued tags  → global
//	sbitmap RecalcEra            5.17     6.1.16  b5fcf7871acb (6.2)  sbitmap: correct wake_batch recalculation to avoid potential IO hung  → 6.2 formula
//	DeadlineAsyncDepth           raw/word 6.1.53  d47f9717e5cf (6.6)  block/mq-deadline: use correct way to throttling write requests  → word-shift
//	NoTagWaitBarrier             true     6.1.77  5266caaf5660 (6.8)  blk-mq: fix IO hang from sbitmap wakeup race (CVE-2024-26671)  → false
//	DeadlineAsyncDepth           raw/word 6.1.84  256aab46e316 (6.8)  Revert "block/mq-deadline: use correct way to throttling write requests"  → raw/word
//	DeadlineAsyncDepth           raw/word 6.1.105 39823b47bbd4 (6.10) block/mq-deadline: Fix the tag reservation code  → scaled
//
// Two carried fixes close races that the model never reproduces (its event order
// is exact, so it always runs the fixed code): 4f1731df60f9 "blk-mq: fix potential
// io hang by wrong 'wake_batch'" (6.1.39) and 72d04bdcf3f7 "sbitmap: fix io hung
// due to race on sbitmap_word::cleared" (6.1.103). None of the 6.1.y budget and
// restart changes (scsi_lib.c) touches a modelled switch: the SCSI commits of the
// line fix error handling, VPD and procfs.
//
// The release bounds come from the stable announcements: "Linux 6.1.53" (13 Sep
// 2023) lists Zhiguo Niu's d47f9717e5cf among its commits and "Linux 6.1.84" (3
// Apr 2024) lists Bart Van Assche's revert, so 6.1.53–6.1.83 run mq-deadline with
// async_depth = 3/4 of the sched tags' word width (DeadlineAsyncWordShift) and
// 6.1.84–6.1.104 return to the raw 3/4 of nr_requests (DeadlineAsyncRawPerWord).
//
// So Debian 12's 6.1.0-57-amd64 (6.1.192) is mainline 6.1 with the v6.2 sbitmap
// wake-up and wake-batch rules, the CVE-2024-26671 barrier and the v6.10
// mq-deadline tag reservation.
//
// Debian ABI numbers map to stable releases through the changelog's "Bump ABI"
// entries (2–38, each ABI to the last release built with it) and, for 57, the
// guest the oracle boots (/proc/version: Debian 6.1.192-3); other ABIs (39–56,
// named automatically since 6.1.148) are an error asking for the upstream release.
// Other stable lines have no backport table: their releases get the mainline
// MAJOR.MINOR rules and Profile.Note says so.
type Profile struct {
	// Release is the kernel the profile models: "6.1.192", or "6.1" for mainline.
	Release string
	// Given is the string the profile was built from (e.g. "6.1.0-57-amd64").
	Given string
	// Base is the mainline release MAJOR.MINOR the line starts from.
	Base string
	// Options are the dispatch switches of Release.
	Options Options
	// WakeScheme and RecalcEra are the sbitmap_queue rules of Release
	// (lib/sbitmap.c: how freed bits wake waiters, how the wake batch is
	// recalculated when the active-queue count changes).
	WakeScheme sbitmap.WakeScheme
	RecalcEra  sbitmap.RecalcEra
	// Backports are the carried backports that move a modelled switch, oldest
	// first (reverted ones included, with their revert).
	Backports []Backport
	// Unmodelled are carried backports that change a modelled mechanism in a
	// way no switch expresses; a run of such a release differs from the kernel
	// there (setup warns). The 6.1.y table has none: every backport it lists
	// sets a switch.
	Unmodelled []Backport
	// Note explains the mapping ("Debian ABI 57 = 6.1.192", "no backport table
	// for 5.15.y: mainline 5.15 rules"); "" when there is nothing to say.
	Note string
	// PastTable reports a 6.1 stable release newer than Table61Release, the newest
	// one the backport table was read from: backports after it, if any moved a
	// modelled switch, are not in the profile (setup warns).
	PastTable bool
}

// Table61Release is the newest 6.1 stable release (6.1.N) whose backports the 6.1.y
// table covers: the table was read from Debian's 6.1.192-3 changelog.
const Table61Release = 192

// Backport is one mainline commit carried by a stable release line.
type Backport struct {
	// Switch names what it changes: an Options field ("NoTagWaitBarrier",
	// "DeadlineAsyncDepth") or "sbitmap WakeScheme" / "sbitmap RecalcEra".
	Switch string
	// Value is the switch's value from Stable on: "global", "6.2", "true"/"false", or
	// for DeadlineAsyncDepth "word-shift", "raw-per-word" or "scaled" (the
	// DeadlineAsync* rules).
	Value string
	// Commit is the mainline commit id (12 hex digits), Title its subject line.
	Commit, Title string
	// Mainline is the first mainline release with it, Stable the first release
	// of the line that carries it ("6.1.16").
	Mainline, Stable string

	patch int // Stable's patch level
	apply func(p *Profile)
}

// backports61 are the modelled-switch backports of the 6.1.y line, in order.
var backports61 = []Backport{
	{Switch: "sbitmap WakeScheme", Value: "global", Commit: "4f8126bb2308", Mainline: "6.2", Stable: "6.1.16", patch: 16,
		Title: "sbitmap: Use single per-bitmap counting to wake up queued tags",
		apply: func(p *Profile) { p.WakeScheme = sbitmap.WakeGlobal }},
	{Switch: "sbitmap RecalcEra", Value: "6.2", Commit: "b5fcf7871acb", Mainline: "6.2", Stable: "6.1.16", patch: 16,
		Title: "sbitmap: correct wake_batch recalculation to avoid potential IO hung",
		apply: func(p *Profile) { p.RecalcEra = sbitmap.Recalc6_2 }},
	{Switch: "DeadlineAsyncDepth", Value: "word-shift", Commit: "d47f9717e5cf", Mainline: "6.6", Stable: "6.1.53", patch: 53,
		Title: "block/mq-deadline: use correct way to throttling write requests",
		apply: func(p *Profile) { p.Options.DeadlineAsyncDepth = DeadlineAsyncWordShift }},
	{Switch: "NoTagWaitBarrier", Value: "false", Commit: "5266caaf5660", Mainline: "6.8", Stable: "6.1.77", patch: 77,
		Title: "blk-mq: fix IO hang from sbitmap wakeup race (CVE-2024-26671)",
		apply: func(p *Profile) { p.Options.NoTagWaitBarrier = false }},
	{Switch: "DeadlineAsyncDepth", Value: "raw-per-word", Commit: "256aab46e316", Mainline: "6.8", Stable: "6.1.84", patch: 84,
		Title: "Revert \"block/mq-deadline: use correct way to throttling write requests\"",
		apply: func(p *Profile) { p.Options.DeadlineAsyncDepth = DeadlineAsyncRawPerWord }},
	{Switch: "DeadlineAsyncDepth", Value: "scaled", Commit: "39823b47bbd4", Mainline: "6.10", Stable: "6.1.105", patch: 105,
		Title: "block/mq-deadline: Fix the tag reservation code",
		apply: func(p *Profile) { p.Options.DeadlineAsyncDepth = DeadlineAsyncScaled }},
}

// debianABI61 maps Debian 12's kernel ABI (the N of 6.1.0-N-amd64) to the last
// stable release built with it.
var debianABI61 = map[int]int{
	2: 7, 3: 8, 4: 11, 5: 12, 6: 15, 7: 20, 8: 25, 9: 27, 10: 38, 11: 38, 12: 52, 13: 55,
	14: 64, 15: 66, 16: 67, 17: 69, 18: 76, 19: 82, 20: 85, 21: 90, 22: 94, 23: 99,
	24: 106, 25: 106, 26: 112, 27: 115, 28: 119, 29: 123, 30: 124, 31: 128, 32: 129,
	33: 133, 34: 135, 35: 137, 36: 139, 37: 140, 38: 147, 57: 192,
}

// Backports61 returns the modelled-switch backports of the 6.1.y stable line,
// oldest first (the table of the Profile documentation).
func Backports61() []Backport { return append([]Backport(nil), backports61...) }

// KernelProfile returns the profile of a release as a user or uname -r writes it:
// "6.1" or "v6.1" (mainline), "6.1.192" (stable), "6.1.0-57-amd64" (Debian 12:
// ABI 57 = 6.1.192), "6.8-rc2" (mainline 6.8). It returns an error naming the
// allowed forms and range ([4.15, 6.19]) for anything else, and for a Debian ABI
// it has no release for.
func KernelProfile(release string) (Profile, error) {
	r, err := parseRelease(release)
	if err != nil {
		return Profile{}, err
	}
	base := fmt.Sprintf("%d.%d", r.maj, r.min)
	o, err := mainlineKernel(base)
	if err != nil {
		return Profile{}, err
	}
	p := Profile{Release: base, Given: release, Base: base, Options: o}
	p.WakeScheme, p.RecalcEra = mainlineSbitmap(r.maj*100 + r.min)
	patch := r.patch
	if r.debianABI > 0 {
		if base != "6.1" {
			p.Note = fmt.Sprintf("Debian ABI %d of %s: no ABI table for this line: mainline %s rules", r.debianABI, base, base)
			return p, nil
		}
		pl, ok := debianABI61[r.debianABI]
		if !ok {
			return Profile{}, fmt.Errorf("dispatch: kernel %q: Debian ABI %d has no known 6.1 stable release (known: 2-38, 57); give the upstream release from /proc/version, e.g. 6.1.158", release, r.debianABI)
		}
		patch = pl
		p.Note = fmt.Sprintf("Debian ABI %d = 6.1.%d", r.debianABI, pl)
	}
	if patch <= 0 {
		return p, nil
	}
	p.Release = fmt.Sprintf("%s.%d", base, patch)
	if base != "6.1" {
		p.Note = fmt.Sprintf("no stable backport table for %s.y: mainline %s rules", base, base)
		return p, nil
	}
	p.PastTable = patch > Table61Release
	for _, b := range backports61 {
		if patch < b.patch {
			break
		}
		p.Backports = append(p.Backports, b)
		if b.apply != nil {
			b.apply(&p)
		}
	}
	return p, nil
}

// Table returns the profile's switches as rows "switch = value (commit, release)"
// for --explain: each carried backport with the value it sets, or "mainline"
// when the release carries none.
func (p Profile) Table() []string {
	if len(p.Backports) == 0 {
		return []string{fmt.Sprintf("%s: mainline %s rules, no modelled backport", p.Release, p.Base)}
	}
	var out []string
	for _, b := range p.Backports {
		out = append(out, fmt.Sprintf("%s = %s (%s %s, mainline %s, stable %s)", b.Switch, b.Value, b.Commit, b.Title, b.Mainline, b.Stable))
	}
	return out
}

// stableKernel is Kernel's path for anything but a plain mainline MAJOR.MINOR:
// ok is false for a plain release, which Kernel handles itself.
func stableKernel(version string) (o Options, ok bool, err error) {
	if _, _, perr := parseVersion(version); perr == nil {
		return Options{}, false, nil
	}
	p, err := KernelProfile(version)
	if err != nil {
		return Options{}, true, err
	}
	return p.Options, true, nil
}

// mainlineSbitmap is the sbitmap_queue rule set of mainline release v
// (MAJOR*100+MINOR): the countdown wake scheme and the 5.17 wake-batch formula
// before v6.2, the global scheme and the 6.2 formula after.
func mainlineSbitmap(v int) (sbitmap.WakeScheme, sbitmap.RecalcEra) {
	if v < 602 {
		return sbitmap.WakeCountdown, sbitmap.Recalc5_17
	}
	return sbitmap.WakeGlobal, sbitmap.Recalc6_2
}

type release struct {
	maj, min, patch int
	debianABI       int
}

// parseRelease reads MAJOR.MINOR[.PATCH][-SUFFIX] with an optional leading v. A
// Debian suffix "0-N-FLAVOUR" (patch 0, then a number and a flavour) gives the ABI
// N; "-rcN" and other suffixes are ignored.
func parseRelease(s string) (release, error) {
	bad := fmt.Errorf("dispatch: kernel release %q: want MAJOR.MINOR, MAJOR.MINOR.PATCH or a uname -r form (6.1.0-57-amd64), e.g. \"6.1.192\"", s)
	v := strings.TrimPrefix(strings.TrimSpace(s), "v")
	core, suffix, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return release{}, bad
	}
	var n [3]int
	for i, x := range parts {
		k, err := strconv.Atoi(x)
		if err != nil || k < 0 || x == "" || x[0] == '+' {
			return release{}, bad
		}
		n[i] = k
	}
	r := release{maj: n[0], min: n[1], patch: n[2]}
	if len(parts) == 3 && r.patch == 0 && suffix != "" {
		abi, _, _ := strings.Cut(suffix, "-")
		if k, err := strconv.Atoi(abi); err == nil && k > 0 {
			r.debianABI = k
		}
	}
	return r, nil
}
