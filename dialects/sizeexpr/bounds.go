package sizeexpr

import "fmt"

// IndexLimit bounds the integers of the sizes of a program: every bound and
// extent of a tensor dimension, and every constant and coefficient of the
// expressions that spell them, lies strictly between -IndexLimit and
// IndexLimit. 2^60 is far beyond any tensor a machine can hold (2^60
// elements of one byte are an exbibyte) and leaves int64 room for what
// the compiler derives from a few such values: a bound plus an offset, an
// extent rounded up to a vector width or a tile, the difference of two
// bounds. A type outside it is refused where it is written or where an op
// infers it, so later passes never meet a size near the ends of int64.
const IndexLimit int64 = 1 << 60

// CheckOverflow returns an error when computing e overflowed int64, and
// nil otherwise.
func (e Expr) CheckOverflow() error {
	if e.Overflowed() {
		return fmt.Errorf("overflows: its value does not fit in 64 bits")
	}
	return nil
}

// CheckLimit returns an error naming the first integer of e (its
// constant, a coefficient, a divisor, at any depth) whose magnitude is
// IndexLimit or more, or the overflow that made e; nil when there is
// none.
func (e Expr) CheckLimit() error {
	if err := e.CheckOverflow(); err != nil {
		return err
	}
	k, ok := e.beyondLimit()
	switch {
	case !ok:
		return nil
	case e.IsConst():
		return fmt.Errorf("%d is outside the range of index values (magnitude below 2^60)", k)
	}
	return fmt.Errorf("%s holds %d, outside the range of index values (magnitude below 2^60)", e, k)
}

// beyondLimit returns the first integer of e whose magnitude is
// IndexLimit or more.
func (e Expr) beyondLimit() (int64, bool) {
	out := func(k int64) bool { return k >= IndexLimit || k <= -IndexLimit }
	for _, t := range e.terms() {
		if out(t.k) {
			return t.k, true
		}
		switch t.a.op {
		case OpMin, OpMax:
			for _, x := range t.a.args {
				if k, ok := x.beyondLimit(); ok {
					return k, true
				}
			}
		case OpFloorDiv, OpCeilDiv, OpMod:
			if out(t.a.d) {
				return t.a.d, true
			}
			if k, ok := t.a.x.beyondLimit(); ok {
				return k, true
			}
		}
	}
	if c := e.constant(); out(c) {
		return c, true
	}
	return 0, false
}

// CheckLimit checks both bounds of iv and its extent Hi - Lo against
// IndexLimit; the error says which one is out of range.
func (iv Interval) CheckLimit() error {
	for _, b := range []struct {
		what string
		e    Expr
	}{{"lower bound", iv.Lo}, {"upper bound", iv.Hi}, {"extent", iv.Extent()}} {
		if err := b.e.CheckLimit(); err != nil {
			return fmt.Errorf("%s %v", b.what, err)
		}
	}
	return nil
}
