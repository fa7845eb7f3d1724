package fio

import (
	"bufio"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeparatorsAsFio: fio 3.33's handle_option cuts a numeric option's value at
// the first ',' of what is left, else ':', else '-', and str_to_decimal reads a
// number only up to a separator (':', '-', ',', '/'). "bs=4k:8k" is therefore
// "bs=4k,8k" and "rate=1k/s" is 1k; both used to be refused as an unknown size
// suffix. A value where fio would drop a part without a word (iodepth=4:8 is 4,
// size=4k:8k is 8k, bs=(16k-4k) is read 12k write 4k, 0x10k is 16) is refused,
// naming what fio would use; before, "(16k-4k)" was silently 12k for every
// direction and size.
func TestSeparatorsAsFio(t *testing.T) {
	type got struct {
		BS, WBS  int64
		Rate     [2]int64
		RateIOPS [2]int
		Size     int64
		IODepth  int
	}
	base := got{BS: 4096, IODepth: 1}
	with := func(f func(*got)) got { g := base; f(&g); return g }
	for _, tt := range []struct {
		name, opt string
		want      got
		err       string // "" = accepted
	}{
		{"bs colon is read,write", "bs=4k:8k", with(func(g *got) { g.WBS = 8192 }), ""},
		{"bs dash is read,write", "bs=4k-8k", with(func(g *got) { g.WBS = 8192 }), ""},
		{"bs colon three parts", "bs=4k:8k:16k", with(func(g *got) { g.WBS = 8192 }), ""},
		{"bs comma unchanged", "bs=4k,8k", with(func(g *got) { g.WBS = 8192 }), ""},
		{"bs colon then comma", "bs=4k:8k,16k", got{}, `fio 3.33 cuts this value at ',' first and reads the part "4k:8k" only up to its ':' or '-' (parse.c handle_option), so it would take read = "4k", write = "16k"`},
		{"bs arithmetic with minus", "bs=(16k-4k)", got{}, `even inside parentheses, into read, write and trim values (parse.c handle_option), so it would take read = "(16k", write = "4k)"`},
		{"bs arithmetic without minus", "bs=(4k*2)", with(func(g *got) { g.BS = 8192 }), ""},
		{"bs slash", "bs=4k/8k", got{}, `"4k/8k": fio reads it only up to the '/', so it would use 4096 (4k) and drop "/8k"`},
		{"rate colon", "rate=1m:2m", with(func(g *got) { g.Rate = [2]int64{1 << 20, 2 << 20} }), ""},
		{"rate per second", "rate=1k/s", with(func(g *got) { g.Rate = [2]int64{1024, 1024} }), ""},
		{"rate per second upper", "rate=1M/S", with(func(g *got) { g.Rate = [2]int64{1 << 20, 1 << 20} }), ""},
		{"rate per second two", "rate=1m/s,2m/s", with(func(g *got) { g.Rate = [2]int64{1 << 20, 2 << 20} }), ""},
		{"rate_iops per second", "rate_iops=100/s", with(func(g *got) { g.RateIOPS = [2]int{100, 100} }), ""},
		{"rate_iops dash", "rate_iops=100-200", with(func(g *got) { g.RateIOPS = [2]int{100, 200} }), ""},
		{"rate other slash", "rate=1k/x", got{}, `fio reads it only up to the '/', so it would use 1024 (1k) and drop "/x"`},
		{"iodepth colon", "iodepth=4:8", got{}, `fio 3.33 cuts this value at ':' (parse.c handle_option) and reads only "4"; give one value`},
		{"iodepth blank colon", "iodepth=4 : 8", got{}, `cuts this value at ':'`},
		{"iodepth arithmetic minus", "iodepth=(8-4)", with(func(g *got) { g.IODepth = 4 }), ""},
		{"size colon keeps last", "size=4k:8k", got{}, `fio 3.33 cuts this value at each ':' and '-' (parse.c handle_option) and applies the parts in turn, so it would keep the last, "8k"`},
		{"size arithmetic minus", "size=(16k-4k)", got{}, `even inside parentheses, (parse.c handle_option) and applies the parts in turn, so it would keep the last, "4k)"`},
		{"size negative", "size=-4k", got{}, "negative value not allowed"},
		{"runtime colon", "runtime=1:30", got{}, `reads only "1"`},
		{"hex with suffix", "bs=0x10k", got{}, `"0x10k": fio reads a 0x number up to its last hex digit and applies no suffix, so it would use 16 (0x10); write the number in decimal with its suffix (16k)`},
		{"hex size with suffix", "size=0x10m", got{}, "so it would use 16 (0x10)"},
		{"hex plain", "bs=0x2000", with(func(g *got) { g.BS = 8192 }), ""},
		{"hex junk", "bs=0xzz", got{}, "not a hex number"},
		// kb_base=1024 reads kib as 1000: "not a multiple of 512" did not say why
		{"kib is 1000 by default", "bs=4kib", got{}, "not a multiple of 512 (4000 bytes: with fio's default kb_base=1024, kib/mib/... are powers of 1000, 4kib is 4000"},
		{"kib with kb_base 1000", "kb_base=1000\nbs=4kib", with(func(g *got) { g.BS = 4096 }), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randrw\n"+tt.opt+"\n"), "t.fio")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := specs[0]
			if diff := cmp.Diff(tt.want, got{s.BlockSize, s.WriteBlockSize, s.Rate, s.RateIOPS, s.Size, s.IODepth}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnsetVariableNote: fio's own examples/xnvme-compare.fio has
// "rw=${FIO_RW}"; with FIO_RW unset fio substitutes nothing, and the error read
// "[override] rw: unknown pattern" without saying why the value was empty.
func TestUnsetVariableNote(t *testing.T) {
	env := map[string]string{"SET_BS": "4k"}
	cfg := &ParseConfig{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	for _, tt := range []struct{ name, opt, want string }{
		{"unset pattern", "rw=${FIO_RW}", "rw: unknown pattern; want one of read, write, randread, randwrite, rw, readwrite, randrw (${FIO_RW} not set in the environment: fio substitutes an empty string)"},
		{"two unset", "bs=${A}${B}", "(${A}, ${B} not set in the environment"},
		{"set but bad", "iodepth=${SET_BS}x", "iodepth=4kx: unknown size suffix"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cfg.Parse(strings.NewReader("[a]\n"+tt.opt+"\n"), "t.fio")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if tt.name == "set but bad" && strings.Contains(err.Error(), "not set in the environment") {
				t.Errorf("note on a set variable: %v", err)
			}
		})
	}
}

// TestHeaderTrimBlockSize: fio's job line prints the trim block size, which
// handle_option sets to the last value given: "bs=4k,8k" (or "bs=4k:8k") shows
// "(T) 8192B-8192B"; the header printed the read size there.
func TestHeaderTrimBlockSize(t *testing.T) {
	for _, tt := range []struct{ name, bs, want string }{
		{"one size", "bs=4k", "bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B,"},
		{"read,write", "bs=4k,8k", "bs=(R) 4096B-4096B, (W) 8192B-8192B, (T) 8192B-8192B,"},
		{"read:write", "bs=4k:8k", "bs=(R) 4096B-4096B, (W) 8192B-8192B, (T) 8192B-8192B,"},
		{"write only", "bs=,8k", "bs=(R) 4096B-4096B, (W) 8192B-8192B, (T) 8192B-8192B,"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Parse(strings.NewReader("[a]\nrw=randrw\n"+tt.bs+"\n"), "t.fio")
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			w := bufio.NewWriter(&b)
			writeHeaders(w, specs)
			w.Flush()
			if !strings.Contains(b.String(), tt.want) {
				t.Errorf("header %q, want %q", b.String(), tt.want)
			}
		})
	}
}
