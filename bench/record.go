package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// DefaultBandWidth is the relative half-width of a band that RecordClaims writes for
// a claim without one (±5 % of the model value): wide enough for the seed-to-seed
// noise of a recorded miss, narrow enough that a change in mechanism shows.
const DefaultBandWidth = 0.05

// RecordClaims rewrites the records of a claims file (the schema of
// testdata/claims.json) from evaluated results, and returns the new file and a line per
// change. For each known miss and informational claim it records the model value and
// re-centres the band on it, keeping the band's relative half-width (DefaultBandWidth
// when there was none; exact for units "bool" and "count"). A known miss that is now
// met loses its known_miss and record; a not-robust claim that has a record gets it
// re-centred on its mean the same way. An unexpected miss, and a claim whose
// replicas' interval crosses its tolerance without a not_robust reason (Spread), are
// left alone (the mechanism or reason must be written by hand) and reported. With
// replicas a claim counts as met when its whole interval is (as judge decides).
// Results whose claim is not in the file, or that failed, change nothing.
func RecordClaims(data []byte, results []Result) ([]byte, []string, error) {
	f, err := decodeClaims(data)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string]Result{}
	for _, r := range results {
		byID[r.Claim.ID] = r
	}
	var notes []string
	for i := range f.Claims {
		c := &f.Claims[i]
		r, ok := byID[c.ID]
		if !ok || r.Status == Failed {
			continue
		}
		inside, across, judged := c.placeResult(r)
		refresh := false
		switch {
		case !judged: // informational
			refresh = true
		case inside && c.KnownMiss != "":
			notes = append(notes, fmt.Sprintf("%s: now met (model %.4g): known_miss removed; check its text was not the only record of a mechanism", c.ID, r.Model))
			c.KnownMiss, c.Recorded = "", nil
		case (inside || across) && c.NotRobust != "":
			refresh = c.Recorded != nil // a not-robust claim's record follows its mean
		case inside: // met or calibrated
		case c.KnownMiss != "":
			refresh = true
		case across:
			notes = append(notes, fmt.Sprintf("%s: spread (mean %.4g, 95%% interval %s, accepted %s): write its not_robust by hand", c.ID, r.Model, fmtInterval(r.Interval), c.Bounds()))
		default:
			notes = append(notes, fmt.Sprintf("%s: unexpected miss (model %.4g, accepted %s): write its known_miss by hand", c.ID, r.Model, c.Bounds()))
		}
		if refresh {
			old := c.Recorded
			rec := &Record{Model: round4(r.Model)}
			if old != nil && old.Model == rec.Model && old.In(r.Model) {
				continue // unchanged: keep the band as written
			}
			w := DefaultBandWidth
			if old != nil {
				rec.Reason = old.Reason
				if old.Model != 0 {
					w = math.Max(old.Model-old.Band[0], old.Band[1]-old.Model) / math.Abs(old.Model)
				}
			}
			if c.Unit == "bool" || c.Unit == "count" || r.Model == 0 {
				rec.Band = [2]float64{rec.Model, rec.Model}
			} else {
				d := math.Abs(r.Model) * w
				rec.Band = [2]float64{round4(r.Model - d), round4(r.Model + d)}
			}
			if old == nil || *old != *rec {
				was := "none"
				if old != nil {
					was = fmt.Sprintf("%.4g [%.4g, %.4g]", old.Model, old.Band[0], old.Band[1])
				}
				notes = append(notes, fmt.Sprintf("%s: record %s -> %.4g [%.4g, %.4g]", c.ID, was, rec.Model, rec.Band[0], rec.Band[1]))
			}
			c.Recorded = rec
		}
	}
	out, err := EncodeClaims(f.About, f.Claims)
	return out, notes, err
}

// EncodeClaims writes a claims file in the layout of testdata/claims.json (one-space
// indentation, a final newline).
func EncodeClaims(about string, claims []Claim) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(claimsFile{About: about, Claims: claims}); err != nil {
		return nil, fmt.Errorf("bench: claims: %w", err)
	}
	return buf.Bytes(), nil
}

// round4 keeps four significant digits (records are compared against bands, not
// bit for bit).
func round4(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return r
}
