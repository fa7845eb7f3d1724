package fio

import (
	"strings"
	"testing"
)

// TestEvalExprFioPrecedence checks the operators and precedence of fio's
// exp/expression-parser.y: ^ is power (right-associative, above * and /), %
// binds tighter than ^, unary minus tightest.
func TestEvalExprFioPrecedence(t *testing.T) {
	tests := []struct {
		name, in string
		want     int64
		err      string
	}{
		{name: "power", in: "(2^10)", want: 1024},
		{name: "suffix binds to its operand", in: "(2^3k)", err: "overflows"}, // 2^3072, as fio's lexer reads 3k as one number
		{name: "power right-assoc", in: "(2^3^2)", want: 512},
		{name: "power above product", in: "(3*2^2)", want: 12},
		{name: "modulo above power", in: "(2^5%3)", want: 4},
		{name: "modulo above product", in: "(10*7%3)", want: 10},
		{name: "unary minus tightest", in: "(-2^2)", want: 4},
		{name: "negative exponent truncates", in: "(2^-1)", want: 0},
		{name: "one to negative", in: "(1^-5)", want: 1},
		{name: "zero exponent", in: "(0^0)", want: 1},
		{name: "zero to negative", in: "(0^-1)", err: "negative power"},
		{name: "power overflow", in: "(2^63)", err: "overflows"},
		{name: "huge exponent", in: "(2^10000)", err: "overflows"},
		{name: "largest power", in: "(2^62)", want: 1 << 62},
		{name: "product unchanged", in: "(4k*256)", want: 1 << 20},
		{name: "modulo by zero", in: "(5%0)", err: "division by zero"},
		{name: "bad operator named", in: "(4k&1)", err: `unexpected "&1)"`},
		{name: "unclosed", in: "(4k", err: "missing )"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalExpr(tc.in, 1024)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("evalExpr(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("evalExpr(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}
