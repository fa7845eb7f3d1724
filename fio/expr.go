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
// b or ib); operators are + - * / % with the usual precedence, unary minus
// and parentheses. Overflow of int64 and division by zero are errors.
func evalExpr(s string, kbBase int) (int64, error) {
	p := &exprParser{s: s, kbBase: kbBase}
	v, err := p.sum()
	if err != nil {
		return 0, err
	}
	p.skip()
	if p.i != len(p.s) {
		return 0, fmt.Errorf("arithmetic %q: unexpected %q", s, p.s[p.i:])
	}
	return v, nil
}

type exprParser struct {
	s      string
	i      int
	kbBase int
	depth  int
}

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
	v, err := p.unary()
	for err == nil {
		p.skip()
		if p.i >= len(p.s) || strings.IndexByte("*/%", p.s[p.i]) < 0 {
			break
		}
		op := p.s[p.i]
		p.i++
		var w int64
		if w, err = p.unary(); err != nil {
			break
		}
		switch op {
		case '*':
			hi, lo := bits.Mul64(uint64(abs64(v)), uint64(abs64(w)))
			if hi != 0 || lo > 1<<63-1 {
				return 0, errExprOverflow
			}
			v *= w
		case '/', '%':
			if w == 0 {
				return 0, errors.New("arithmetic: division by zero")
			}
			if op == '/' {
				v /= w
			} else {
				v %= w
			}
		}
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
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return 0, fmt.Errorf("arithmetic %q: missing )", p.s)
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
	n, err := parseSize(tok, p.kbBase, 0, 1<<63-1)
	if err != nil {
		return 0, fmt.Errorf("arithmetic operand %q: %w", tok, err)
	}
	return n, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
