package fio_test

import (
	"strings"
	"testing"

	"github.com/blkmq/blkmq/fio"
)

// TestIncludeCycleBreaker checks that an include cycle is one error naming the
// chain, not one "no new sections" error per nesting level and a depth error,
// while including the same file twice side by side stays allowed.
func TestIncludeCycleBreaker(t *testing.T) {
	files := map[string]string{
		"self.fio":  "[a]\ninclude self.fio\n",
		"a.inc":     "bs=8k\ninclude b.inc\n",
		"b.inc":     "iodepth=2\ninclude a.inc\n",
		"ab.fio":    "[j]\ninclude a.inc\n",
		"o.inc":     "bs=8k\n",
		"twice.fio": "[j]\ninclude o.inc\ninclude o.inc\n",
	}
	cfg := &fio.ParseConfig{ReadFile: func(p string) ([]byte, error) {
		return []byte(files[p]), nil
	}}
	tests := []struct {
		name, file, want string
	}{
		{"self", "self.fio", "fio: self.fio:2: include=self.fio: include cycle: self.fio includes self.fio again"},
		{"two-files", "ab.fio", "fio: b.inc:2: include=a.inc: include cycle: a.inc -> b.inc includes a.inc again"},
		{"same-file-twice", "twice.fio", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cfg.Parse(strings.NewReader(files[tc.file]), tc.file)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Parse error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}
