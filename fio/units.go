package fio

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// splitNumber splits s into a leading unsigned decimal number and the suffix
// after it (spaces between them are allowed).
func splitNumber(s string) (num, suffix string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// errNegative is the message for a value with a minus sign.
var errNegative = errors.New("negative value not allowed")

// parseUint parses a plain unsigned decimal integer (fio also accepts 0x hex).
func parseUint(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		return 0, errNegative
	}
	if s == "" {
		return 0, errors.New("missing value")
	}
	base := 10
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s, base = s[2:], 16
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, errors.New("overflows 64 bits")
		}
		return 0, errors.New("not an integer")
	}
	return v, nil
}

// parseInt parses an integer option the way fio reads one (FIO_OPT_INT goes
// through check_str_bytes): decimal or 0x hex, an optional size suffix in
// units of 1024 ("iodepth=1k" is 1024), or an arithmetic expression in
// parentheses; it checks the value lies in [lo, hi].
func parseInt(s string, lo, hi int) (int, error) {
	v, err := parseSize(s, 1024, int64(lo), int64(hi))
	if err != nil {
		return 0, err
	}
	return int(v), nil
}

func rangeErr[T int | int64](lo, hi T) error {
	return fmt.Errorf("out of range [%d, %d]", lo, hi)
}

// byteMultiplier returns the multiplier of a size suffix the way fio's
// get_mult_bytes (parse.c) reads it with kb_base=1024 (the default): k, kb,
// m, mb, g, gb, t, tb, p, pb are powers of 1024, while the IEC spellings kib,
// mib, gib, tib, pib are — for compatibility with old job files — powers of
// 1000. With kb_base=1000 the two families swap. Case is ignored; "" and "b"
// mean bytes.
func byteMultiplier(suffix string, kbBase int) (uint64, error) {
	s := strings.ToLower(suffix)
	pow := strings.IndexByte("kmgtp", firstByte(s)) + 1
	mult := uint64(kbBase)
	switch {
	case s == "" || s == "b":
		return 1, nil
	case pow > 0 && (len(s) == 1 || s[1:] == "b"):
		// k, kb, m, mb, ... use kb_base
	case pow > 0 && s[1:] == "ib":
		mult = 1000 // the other base from kb_base
		if kbBase == 1000 {
			mult = 1024
		}
	default:
		return 0, fmt.Errorf("unknown size suffix %q; want k, m, g, t, p (with optional b or ib)", suffix)
	}
	m := uint64(1)
	for range pow {
		m *= mult
	}
	return m, nil
}

// hexPrefix is the run of hexadecimal digits that starts s.
func hexPrefix(s string) string {
	i := 0
	for i < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[i]) >= 0 {
		i++
	}
	return s[:i]
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// parseSize parses an fio size ("4k", "10G", "512", "0x1000", "(4k*256)") to
// bytes and checks it lies in [lo, hi]. As fio's str_to_decimal: a value
// starting with '(' is an arithmetic expression (see evalExpr); a 0x prefix is
// hex (without suffix); otherwise a decimal number with an optional suffix (see
// byteMultiplier). A percentage is an error here (see parseSizePercent).
func parseSize(s string, kbBase int, lo, hi int64) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing value")
	}
	if strings.HasPrefix(s, "(") {
		v, err := evalExpr(s, kbBase)
		if err != nil {
			return 0, err
		}
		if v < lo || v > hi {
			return 0, rangeErr(lo, hi)
		}
		return v, nil
	}
	if strings.HasPrefix(s, "-") {
		return 0, errNegative
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		v, err := parseUint(s)
		if err != nil {
			if hex := hexPrefix(s[2:]); hex != "" && len(hex) <= 15 {
				// strtoll(base 16) stops at the first non-hex character, and
				// get_mult_bytes, looking after the leading digits, finds the 'x'
				// and no unit: "0x10k" is 16
				n, _ := strconv.ParseUint(hex, 16, 64)
				return 0, fmt.Errorf("%q: fio reads a 0x number up to its last hex digit and applies no suffix, so it would use %d (0x%s); write the number in decimal with its suffix (%d%s)", s, n, hex, n, s[2+len(hex):])
			}
			return 0, fmt.Errorf("not a hex number: %w", err)
		}
		if v > uint64(hi) || int64(v) < lo {
			return 0, rangeErr(lo, hi)
		}
		return int64(v), nil
	}
	num, suffix := splitNumber(s)
	if num == "" {
		return 0, errors.New("not a number; want a number with an optional k, m, g, t, p suffix, 0x hex or (arithmetic)")
	}
	if strings.HasPrefix(suffix, "%") {
		return 0, errors.New("a percentage is not allowed here")
	}
	n, err := parseUint(num)
	if err != nil {
		return 0, err
	}
	if strings.HasPrefix(suffix, ".") {
		// get_mult_bytes: no letter right after the digits, so no multiplier
		return 0, fractionalErr(s, int64(min(n, 1<<63-1)))
	}
	if suffix != "" && s[len(num)] != suffix[0] && !strings.EqualFold(suffix, "b") {
		// a blank before the suffix: get_mult_bytes sees no letter after the digits
		return 0, fmt.Errorf("%q: fio reads the number without the suffix after the blank, so it would use %d; write %s%s", s, n, num, suffix)
	}
	if i := strings.IndexAny(suffix, ":-,/"); i >= 0 {
		// __get_mult_bytes reads the unit only up to a separator (is_separator)
		// and strtoll stops before it: fio keeps "4k" of "4k/8k"
		if m, err := byteMultiplier(suffix[:i], kbBase); err == nil {
			if hp, v := bits.Mul64(n, m); hp == 0 && v <= 1<<63-1 {
				return 0, fmt.Errorf("%q: fio reads it only up to the %q, so it would use %d (%s%s) and drop %q; give one value", s, suffix[i], v, num, suffix[:i], suffix[i:])
			}
		}
	}
	mult, err := byteMultiplier(suffix, kbBase)
	if err != nil {
		return 0, err
	}
	hiProd, v := bits.Mul64(n, mult)
	if hiProd != 0 || v > uint64(hi) || int64(v) < lo {
		return 0, rangeErr(lo, hi)
	}
	return int64(v), nil
}

// parseSizePercent parses a size that may also be a percentage ("50%", as fio
// takes for size=, offset= and offset_increment=: a share of the file or
// device). It returns the bytes, or pct in (0, 100] with bytes 0.
func parseSizePercent(s string, kbBase int, lo, hi int64) (bytes int64, pct float64, err error) {
	t := strings.TrimSpace(s)
	if num, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || v <= 0 || v > 100 {
			return 0, 0, fmt.Errorf("percentage %q out of range (0, 100]", t)
		}
		return 0, v, nil
	}
	n, err := parseSize(t, kbBase, lo, hi)
	return n, 0, err
}

// timeMultiplier returns the nanoseconds of one unit of an fio time suffix as
// fio 3.33's get_mult_time (parse.c) reads it: us (usec), ms (msec), s, m
// (minutes), h, d, case ignored; an empty suffix means def. get_mult_time reads
// any other unit as microseconds ("5sec", "5min" and "500ns" are 5, 5 and 500
// µs there), so those are refused, saying so; "ns", "sec", "min", "hr" and "day"
// used to be read as their names say.
func timeMultiplier(suffix string, def time.Duration) (time.Duration, error) {
	switch strings.ToLower(suffix) {
	case "":
		return def, nil
	case "us", "usec":
		return time.Microsecond, nil
	case "ms", "msec":
		return time.Millisecond, nil
	case "s":
		return time.Second, nil
	case "m":
		return time.Minute, nil
	case "h":
		return time.Hour, nil
	case "d":
		return 24 * time.Hour, nil
	}
	return 0, fmt.Errorf("unknown time suffix %q; want us, ms, s, m, h or d (fio's get_mult_time reads any other unit as microseconds)", suffix)
}

// MaxDuration caps every time option of a job (runtime, ramp_time, startdelay,
// thinktime, ...): one year.
const MaxDuration = 365 * 24 * time.Hour

const maxDuration = MaxDuration

// parseDuration parses an fio time ("60", "500ms", "2m"); a bare number is in
// units of def (fio: seconds for runtime, ramp_time and startdelay).
func parseDuration(s string, def time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") {
		return parseTimeExpr(s, def)
	}
	if strings.HasPrefix(s, "-") {
		return 0, errNegative
	}
	num, suffix := splitNumber(s)
	if num == "" {
		return 0, errors.New("not a time; want a number with an optional us, ms, s, m, h, d suffix")
	}
	n, err := parseUint(num)
	if err != nil {
		return 0, err
	}
	if strings.HasPrefix(suffix, ".") {
		// str_to_decimal: strtoll stops at the '.', and get_mult_time, seeing no
		// letter after the digits, applies the option's default unit
		return 0, fractionalErr(s, time.Duration(min(n, uint64(maxDuration/def)))*def)
	}
	unit, err := timeMultiplier(suffix, def)
	if err != nil {
		return 0, err
	}
	if rest := s[len(num):]; suffix != "" && rest[0] != suffix[0] && unit != def {
		// get_mult_time looks at the byte right after the digits: a blank there
		// means no unit, and the option's default applies
		return 0, fmt.Errorf("%q: fio reads the number without the unit after the blank, so it would use %v; write %s%s", s, time.Duration(min(n, uint64(maxDuration/def)))*def, num, suffix)
	}
	if n > uint64(maxDuration/unit) {
		return 0, fmt.Errorf("out of range [0, %v]", maxDuration)
	}
	return time.Duration(n) * unit, nil
}

// fractionalErr refuses a fractional plain value, saying what fio would make
// of it (the integer part in the option's default unit; the suffix is not read).
func fractionalErr[T time.Duration | int64](s string, fio T) error {
	eg := "1536 for 1.5k"
	if _, ok := any(fio).(time.Duration); ok {
		eg = "200ms for 0.2s"
	}
	return fmt.Errorf("fractional value %q: fio reads only the integer part and ignores the unit after the '.', so it would use %v; give a whole number of a smaller unit (e.g. %s)", s, fio, eg)
}

// plainTime spells d as a plain fio time without a fraction (ms, or us).
func plainTime(d time.Duration) string {
	if d%time.Millisecond == 0 {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%dus", d.Microseconds())
}

// parseTimeExpr reads an arithmetic time value, "(2s)", "(2*3)", "(500ms*3)",
// as fio's str_to_decimal does with the arithmetic parser: the result is in µs
// when an operand has a unit, otherwise in the option's implied unit (def). For an
// option counted in seconds (def = 1 s: runtime, ramp_time, startdelay) fio keeps
// only the whole seconds of an arithmetic value, "(1500ms)" being 1 s and
// "(500ms)" 0 (unlimited runtime); that case is refused, naming what fio would use.
func parseTimeExpr(s string, def time.Duration) (time.Duration, error) {
	v, units, err := evalTimeExpr(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, errNegative
	}
	d := time.Duration(0)
	if units {
		if v > int64(maxDuration/time.Microsecond) {
			return 0, fmt.Errorf("out of range [0, %v]", maxDuration)
		}
		d = time.Duration(v) * time.Microsecond
	} else {
		if v > int64(maxDuration/def) {
			return 0, fmt.Errorf("out of range [0, %v]", maxDuration)
		}
		d = time.Duration(v) * def
	}
	if d > maxDuration {
		return 0, fmt.Errorf("out of range [0, %v]", maxDuration)
	}
	if def == time.Second && d%time.Second != 0 {
		return 0, fmt.Errorf("arithmetic %q is %v: fio keeps only the whole seconds of an arithmetic value of this option, so it would use %v; write it without parentheses (%s) or in whole seconds", s, d, d.Truncate(time.Second), plainTime(d))
	}
	return d, nil
}

// parseBool parses an fio boolean: empty (the option given bare) is true,
// otherwise an integer where 0 is false and anything else true.
func parseBool(s string) (bool, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return true, nil
	}
	v, err := parseUint(s)
	if err != nil {
		return false, errors.New("not a boolean; want 0 or 1")
	}
	return v != 0, nil
}

// parseCPUList parses cpus_allowed: a comma-separated list of CPU numbers and
// ranges ("0-3,8"), returned sorted without duplicates. Memory is bounded by
// the CPU range, not by the length of the list.
func parseCPUList(s string) ([]int, error) {
	var set [MaxCPU + 1]bool
	n := 0
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, errors.New("empty CPU list entry")
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseInt(lo, 0, MaxCPU)
		if err != nil {
			return nil, fmt.Errorf("CPU %q: %w", lo, err)
		}
		b := a
		if isRange {
			if b, err = parseInt(hi, 0, MaxCPU); err != nil {
				return nil, fmt.Errorf("CPU %q: %w", hi, err)
			}
			if b < a {
				return nil, fmt.Errorf("range %s ends before it starts", part)
			}
		}
		for c := a; c <= b; c++ {
			if !set[c] {
				set[c] = true
				n++
			}
		}
	}
	cpus := make([]int, 0, n)
	for c, ok := range set {
		if ok {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// parsePercentileList parses percentile_list: percentages separated by ':'
// (fio also accepts ','), each in (0, 100].
func parsePercentileList(s string) ([]float64, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' })
	if len(fields) == 0 || len(fields) > 64 {
		return nil, errors.New("want 1 to 64 percentages separated by ':'")
	}
	out := make([]float64, 0, len(fields))
	for _, f := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || v <= 0 || v > 100 {
			return nil, fmt.Errorf("percentile %q out of range (0, 100]", f)
		}
		out = append(out, v)
	}
	return out, nil
}
