package npy

import (
	"fmt"
	"strconv"
	"strings"
)

// The header is a Python dict literal, e.g.
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
//
// The parser accepts exactly the literal forms NumPy writes (strings,
// True/False, tuples of integers), in any key order, with any spacing.

type header struct {
	descr   string
	fortran bool
	shape   []int
}

func parseHeader(s string) (header, error) {
	p := &litParser{s: strings.TrimSpace(s)}
	var h header
	seen := map[string]bool{}
	if !p.eat('{') {
		return h, p.errorf("expected '{'")
	}
	for !p.eat('}') {
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if !p.eat(':') {
			return h, p.errorf("expected ':' after '%s'", key)
		}
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return h, err
			}
		case "fortran_order":
			if h.fortran, err = p.boolean(); err != nil {
				return h, err
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return h, err
			}
		default:
			return h, p.errorf("unexpected key '%s' (a structured or unsupported array?)", key)
		}
		seen[key] = true
		if !p.eat(',') {
			if !p.eat('}') {
				return h, p.errorf("expected ',' or '}'")
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("npy header lacks '%s'", k)
		}
	}
	return h, nil
}

type litParser struct {
	s   string
	pos int
}

func (p *litParser) errorf(format string, args ...any) error {
	return fmt.Errorf("npy header at offset %d: %s in %q", p.pos, fmt.Sprintf(format, args...), p.s)
}

func (p *litParser) skip() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n') {
		p.pos++
	}
}

func (p *litParser) eat(c byte) bool {
	p.skip()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *litParser) str() (string, error) {
	p.skip()
	if p.pos >= len(p.s) || (p.s[p.pos] != '\'' && p.s[p.pos] != '"') {
		return "", p.errorf("expected a string")
	}
	q := p.s[p.pos]
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	v := p.s[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return v, nil
}

func (p *litParser) boolean() (bool, error) {
	p.skip()
	for _, w := range []string{"True", "False"} {
		if strings.HasPrefix(p.s[p.pos:], w) {
			p.pos += len(w)
			return w == "True", nil
		}
	}
	return false, p.errorf("expected True or False")
}

func (p *litParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, p.errorf("expected a shape tuple")
	}
	out := []int{}
	for !p.eat(')') {
		p.skip()
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		// Python 2 era files may write long integers as 3L.
		n, err := strconv.Atoi(p.s[start:p.pos])
		if err != nil {
			return nil, p.errorf("expected a dimension size")
		}
		if p.pos < len(p.s) && p.s[p.pos] == 'L' {
			p.pos++
		}
		out = append(out, n)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, p.errorf("expected ',' or ')' in the shape")
			}
			break
		}
	}
	return out, nil
}

// formatHeader writes the dict exactly as NumPy does.
func formatHeader(descr string, shape []int) string {
	var dims []string
	for _, s := range shape {
		dims = append(dims, strconv.Itoa(s))
	}
	tuple := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
}
