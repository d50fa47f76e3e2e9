package mathexpand

import (
	"math"

	"tir/dialects/ir"
)

// roundeven: |x| + 2^(p-1) - 2^(p-1) rounds |x| < 2^(p-1) to an integer,
// halfway cases to even (the default rounding mode); larger |x|, Inf and
// NaN are integers already (or NaN) and kept; the sign is copied back
// (roundeven(-0.4) = -0).
func (b *builder) roundeven(x *ir.Value) *ir.Value {
	two := b.c(math.Ldexp(1, b.f.p-1))
	ax := b.abs(x)
	t := b.sub(b.add(ax, two), two)
	return b.sel(b.lt(ax, two), b.copysign(t, x), x)
}
