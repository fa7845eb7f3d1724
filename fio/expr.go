package fio

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
)

// evalExpr evaluates an integer arithmetic expression the way fio's option
// values allow one: a value in parentheses ("(4k*256)", parse.c
// str_to_decimal with the arithmetic parser), or a value in which $ncpus,
// $mb_memory or $pagesize were replaced and that then contains + - * /
// (options.c fio_keyword_replace, which pipes it through bc: integer
// arithmetic, division truncates). Operands are unsigned integers (decimal or
// 0x hex) with an optional size suffix in units of kbBase (k, m, g, t, p, with
// b or ib); operators are + - * / ^ % and unary minus with the precedence of
// fio's exp/expression-parser.y (lowest first: + -, then * /, then ^ (power,
// right-associative), then %, then unary minus, so -2^2 is 4 and 2*7%3 is 2),
// and parentheses. Overflow of int64 and division by zero are errors; a
// negative power truncates towards zero as fio's (long long)pow() does (2^-1
// is 0), and 0 to a negative power is an error (fio's is undefined).
func evalExpr(s string, kbBase int) (int64, error) {
	p := &exprParser{s: s, kbBase: kbBase}
	return p.eval()
}

// evalTimeExpr evaluates an arithmetic time value the way fio's lexer reads one
// with lexer_value_is_time set (exp/expression-parser.l): an operand's suffix is
// a time unit (us, ms, s, m = minutes, h, d), and the result is in microseconds
// when any operand had a unit (units=true); without one the caller applies the
// option's implied unit. fio's lexer would also take size suffixes (k, g, ...) in
// a time; they are refused here as no time.
func evalTimeExpr(s string) (v int64, units bool, err error) {
	p := &exprParser{s: s, kbBase: 1000, time: true}
	v, err = p.eval()
	return v, p.units, err
}

func (p *exprParser) eval() (int64, error) {
	v, err := p.sum()
	if err != nil {
		return 0, err
	}
	p.skip()
	if p.i != len(p.s) {
		return 0, fmt.Errorf("arithmetic %q: unexpected %q", p.s, p.s[p.i:])
	}
	return v, nil
}

type exprParser struct {
	s      string
	i      int
	kbBase int
	depth  int
	time   bool // operands take time suffixes, in µs (evalTimeExpr)
	units  bool // time: some operand had a suffix
}

// timeUnitsUsec are the suffixes of fio's lexer in a time value, in µs.
var timeUnitsUsec = map[string]uint64{"us": 1, "ms": 1000, "s": 1e6, "m": 60e6, "h": 3600e6, "d": 86400e6}

func (p *exprParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

var errExprOverflow = errors.New("arithmetic overflows 64 bits")

func (p *exprParser) sum() (int64, error) {
	v, err := p.product()
	for err == nil {
		p.skip()
		if p.i >= len(p.s) || (p.s[p.i] != '+' && p.s[p.i] != '-') {
			break
		}
		op := p.s[p.i]
		p.i++
		var w int64
		if w, err = p.product(); err != nil {
			break
		}
		r := v + w
		if op == '-' {
			r = v - w
		}
		if op == '+' && (w > 0 && r < v || w < 0 && r > v) || op == '-' && (w > 0 && r > v || w < 0 && r < v) {
			return 0, errExprOverflow
		}
		v = r
	}
	return v, err
}

func (p *exprParser) product() (int64, error) {
	v, err := p.power()
	for err == nil {
		p.skip()
		if p.i >= len(p.s) || strings.IndexByte("*/", p.s[p.i]) < 0 {
			break
		}
		op := p.s[p.i]
		p.i++
		var w int64
		if w, err = p.power(); err != nil {
			break
		}
		switch op {
		case '*':
			hi, lo := bits.Mul64(uint64(abs64(v)), uint64(abs64(w)))
			if hi != 0 || lo > 1<<63-1 {
				return 0, errExprOverflow
			}
			v *= w
		case '/':
			if w == 0 {
				return 0, errors.New("arithmetic: division by zero")
			}
			v /= w
		}
	}
	return v, err
}

// power is fio's '^' level: right-associative, above * and / and below %.
func (p *exprParser) power() (int64, error) {
	v, err := p.modulo()
	if err != nil {
		return 0, err
	}
	p.skip()
	if p.i >= len(p.s) || p.s[p.i] != '^' {
		return v, nil
	}
	p.i++
	w, err := p.power()
	if err != nil {
		return 0, err
	}
	return intPow(v, w)
}

// intPow is v^w in int64, erroring on overflow.
func intPow(v, w int64) (int64, error) {
	switch {
	case w == 0:
		return 1, nil
	case v == 0 && w < 0:
		return 0, errors.New("arithmetic: 0 to a negative power")
	case v == 1:
		return 1, nil
	case v == -1:
		if w%2 == 0 {
			return 1, nil
		}
		return -1, nil
	case w < 0, v == 0:
		return 0, nil
	case w > 63:
		return 0, errExprOverflow
	}
	r := int64(1)
	for range w {
		hi, lo := bits.Mul64(uint64(abs64(r)), uint64(abs64(v)))
		if hi != 0 || lo > 1<<63-1 {
			return 0, errExprOverflow
		}
		r *= v
	}
	return r, nil
}

// modulo is fio's '%' level: left-associative, above ^ and below unary minus.
func (p *exprParser) modulo() (int64, error) {
	v, err := p.unary()
	for err == nil {
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] != '%' {
			break
		}
		p.i++
		var w int64
		if w, err = p.unary(); err != nil {
			break
		}
		if w == 0 {
			return 0, errors.New("arithmetic: division by zero")
		}
		v %= w
	}
	return v, err
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func (p *exprParser) unary() (int64, error) {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
		v, err := p.unary()
		return -v, err
	}
	if p.i < len(p.s) && p.s[p.i] == '(' {
		if p.depth++; p.depth > 64 {
			return 0, errors.New("arithmetic nested too deeply")
		}
		p.i++
		v, err := p.sum()
		if err != nil {
			return 0, err
		}
		p.skip()
		if p.i >= len(p.s) {
			return 0, fmt.Errorf("arithmetic %q: missing )", p.s)
		}
		if p.s[p.i] != ')' {
			return 0, fmt.Errorf("arithmetic %q: unexpected %q; want an operator (+ - * / ^ %%) or )", p.s, p.s[p.i:])
		}
		p.i++
		p.depth--
		return v, nil
	}
	start := p.i
	for p.i < len(p.s) && (isAlnum(p.s[p.i])) {
		p.i++
	}
	tok := p.s[start:p.i]
	if tok == "" {
		return 0, fmt.Errorf("arithmetic %q: expected a number at %q", p.s, p.s[start:])
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		// fio's lexer takes decimals ("(1.5*1024)"), with a float path of its own
		// (a suffix truncates the number first: "(0.5k)" is 0); not modelled
		end := p.i + 1
		for end < len(p.s) && p.s[end] >= '0' && p.s[end] <= '9' {
			end++
		}
		return 0, fmt.Errorf("arithmetic %q: fractional number %q: blkmq's arithmetic is integer only (fio's has a float path); write it in a smaller unit", p.s, p.s[start:end])
	}
	if p.time {
		return p.timeOperand(tok)
	}
	n, err := parseSize(tok, p.kbBase, 0, 1<<63-1)
	if err != nil {
		return 0, fmt.Errorf("arithmetic operand %q: %w", tok, err)
	}
	return n, nil
}

// timeOperand reads one operand of a time expression: a number (decimal or 0x
// hex) with an optional time suffix, in µs when it has one.
func (p *exprParser) timeOperand(tok string) (int64, error) {
	num, suffix := splitNumber(tok)
	if strings.HasPrefix(tok, "0x") || strings.HasPrefix(tok, "0X") {
		num, suffix = tok, ""
	}
	n, err := parseUint(num)
	if err != nil {
		return 0, fmt.Errorf("arithmetic operand %q: %w", tok, err)
	}
	if suffix == "" {
		if n > 1<<63-1 {
			return 0, errExprOverflow
		}
		return int64(n), nil
	}
	mult, ok := timeUnitsUsec[strings.ToLower(suffix)]
	if !ok {
		return 0, fmt.Errorf("arithmetic operand %q: unknown time suffix %q; want us, ms, s, m (minutes), h or d", tok, suffix)
	}
	hi, v := bits.Mul64(n, mult)
	if hi != 0 || v > 1<<63-1 {
		return 0, errExprOverflow
	}
	p.units = true
	return int64(v), nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
