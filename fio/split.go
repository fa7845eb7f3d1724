package fio

import (
	"fmt"
	"strings"
)

// splitKind is how fio 3.33's handle_option (parse.c) treats the parts of a numeric
// option's value. For every option of type FIO_OPT_INT, FIO_OPT_ULL, FIO_OPT_STR_VAL
// and FIO_OPT_STR_VAL_TIME it cuts the value at the first ',' of what is left, else
// at the first ':', else at the first '-' (parentheses do not protect them), and
// hands each part to __handle_option in turn; str_to_decimal then reads a part up to
// its separator.
type splitKind int

const (
	// splitFirst: one field (off1) and no handler: the parts after the first are
	// parsed and dropped.
	splitFirst splitKind = iota
	// splitDirs: fields for read, write and trim (off1..off3): "4k:8k" and
	// "4k-8k" are "4k,8k".
	splitDirs
	// splitEach: a handler (str_size_cb, str_offset_cb, ...) called with each
	// part, so the last part is what fio keeps.
	splitEach
)

// numericSplit lists the modelled numeric options whose values fio 3.33 splits
// (options.c: the type, off2 and cb of each), by canonical name.
var numericSplit = map[string]splitKind{
	"bs": splitDirs, "blockalign": splitDirs, "rate": splitDirs, "rate_min": splitDirs,
	"rate_iops": splitDirs, "rate_iops_min": splitDirs,
	"size": splitEach, "io_size": splitEach, "offset": splitEach, "offset_increment": splitEach,
	"rwmixread": splitEach, "rwmixwrite": splitEach,
	"numjobs": splitFirst, "loops": splitFirst, "iodepth": splitFirst, "iodepth_low": splitFirst,
	"iodepth_batch_submit": splitFirst, "iodepth_batch_complete_min": splitFirst,
	"iodepth_batch_complete_max": splitFirst, "number_ios": splitFirst, "ratecycle": splitFirst,
	"thinktime": splitFirst, "thinktime_spin": splitFirst, "thinktime_blocks": splitFirst,
	"fsync": splitFirst, "fdatasync": splitFirst, "randseed": splitFirst,
	"runtime": splitFirst, "ramp_time": splitFirst, "bwavgtime": splitFirst,
	"iopsavgtime": splitFirst, "log_avg_msec": splitFirst,
}

// fioParts cuts v as handle_option does: at the first ',' of the rest, else its
// first ':', else its first '-'. A part is the text before the cut (for a cut at
// ',' it may hold a ':' or '-' that fio's number reading then stops at). A ','
// that ends the value ends the last part, which is then followed by an empty one.
func fioParts(v string) []string {
	var parts []string
	rest := v
	for {
		i := strings.IndexByte(rest, ',')
		if i < 0 {
			i = strings.IndexByte(rest, ':')
		}
		if i < 0 {
			i = strings.IndexByte(rest, '-')
		}
		if i < 0 {
			return append(parts, rest)
		}
		parts = append(parts, rest[:i])
		rest = rest[i+1:]
	}
}

// fioSplit rewrites or refuses the value of a numeric option as fio 3.33 reads its
// ':' and '-': for a read,write,trim option (bs, rate, ...) they separate the
// directions as ',' does, so "bs=4k:8k" is "bs=4k,8k"; for any other numeric option
// fio keeps one part and drops the others without a word, so such a value is
// refused, naming the part fio would use. A value with no ':' or '-' (or a leading
// '-', refused as negative by the option) is returned unchanged, and so is a
// parenthesised value of a one-field option (fio evaluates its first part, the
// whole expression).
func fioSplit(name, v string) (string, error) {
	kind, ok := numericSplit[name]
	t := strings.TrimSpace(v)
	if perSecond[name] {
		t = stripPerSecond(t)
	}
	if !ok || !strings.ContainsAny(t, ":-") || strings.HasPrefix(t, "-") {
		if perSecond[name] {
			return t, nil
		}
		return v, nil
	}
	paren := strings.Contains(t, "(")
	parts := fioParts(t)
	switch {
	case kind == splitFirst && paren:
		return v, nil
	case kind == splitFirst:
		return "", fmt.Errorf("fio 3.33 cuts this value at %q (parse.c handle_option) and reads only %q; give one value", t[len(parts[0])], strings.TrimSpace(numberPrefix(parts[0])))
	case kind == splitEach:
		return "", fmt.Errorf("fio 3.33 cuts this value at each ':' and '-'%s (parse.c handle_option) and applies the parts in turn, so it would keep the last, %q; give one value", parenNote(paren), strings.TrimSpace(parts[len(parts)-1]))
	case paren:
		return "", fmt.Errorf("fio 3.33 cuts this value at each ':' and '-'%s into read, write and trim values (parse.c handle_option), so it would take %s; give the result, or the directions separated by ','", parenNote(true), describeDirs(parts))
	}
	for _, p := range parts {
		if strings.ContainsAny(p, ":-") {
			// cut at ',' first: fio reads this part only up to its ':' or '-'
			return "", fmt.Errorf("fio 3.33 cuts this value at ',' first and reads the part %q only up to its ':' or '-' (parse.c handle_option), so it would take %s; separate read, write and trim with one kind of separator", p, describeDirs(parts))
		}
	}
	return strings.Join(parts, ","), nil
}

// parenNote is the remark for a value whose parentheses hold a separator.
func parenNote(paren bool) string {
	if paren {
		return ", even inside parentheses,"
	}
	return ""
}

// numberPrefix is the part of s that str_to_decimal reads before a separator
// (is_separator in parse.c: ':', '-', ',', '/').
func numberPrefix(s string) string {
	if i := strings.IndexAny(s, ":-,/"); i >= 0 {
		return s[:i]
	}
	return s
}

// describeDirs names the read, write and trim parts fio would take.
func describeDirs(parts []string) string {
	names := []string{"read", "write", "trim"}
	var b strings.Builder
	for i, p := range parts {
		if i == len(names) {
			b.WriteString(", the rest dropped")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %q", names[i], strings.TrimSpace(numberPrefix(p)))
	}
	return b.String()
}

// perSecond lists the rate options, whose values a user may write per second:
// "rate=1k/s". fio's suffix reading stops at the '/' (is_separator), so "1k/s" is
// 1k, as meant.
var perSecond = map[string]bool{"rate": true, "rate_min": true, "rate_iops": true, "rate_iops_min": true}

// stripPerSecond removes a "/s" that ends each ','-, ':'- or '-'-separated part of
// a rate value ("1k/s", "1m/s,2m/s"); any other text after a '/' is left for the
// option to refuse, since fio would drop it without a word.
func stripPerSecond(v string) string {
	if !strings.Contains(v, "/") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '/' && i+1 < len(v) && (v[i+1] == 's' || v[i+1] == 'S') && (i+2 == len(v) || strings.IndexByte(",:-", v[i+2]) >= 0) {
			i++ // drop "/s"
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
