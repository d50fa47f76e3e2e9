package vector

import (
	"fmt"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// vector.shuffle picks the lanes of its result from the lanes of two 1-D
// vectors, as MLIR 16 writes it:
//
//	%r = vector.shuffle %a, %b [0, 8, 1, 9] : vector<8xf32>, vector<8xf32>
//
// Index i < len(a) names a's lane i, index len(a) + j b's lane j; the
// result has one lane per index (attribute mask, an array of i64).
// affine-vectorize transposes blocks of rows with it (a lane per row of a
// reduction, passes/affinepasses/vectorize_outer.go), affine-contraction-tile
// the blocks of the operands it packs transposed (contraction_pack.go);
// convert-to-llvm lowers it to LLVM's shufflevector.

// Shuffle is vector.shuffle.
var Shuffle = &ir.OpDef{
	Name:        "vector.shuffle",
	Summary:     "a 1-D vector of lanes picked from two 1-D vectors",
	Syntax:      "%r = vector.shuffle %a, %b [i, j, ...] : vector<NxT>, vector<MxT>",
	Traits:      ir.TraitPure,
	NumOperands: 2, NumResults: 1, NumRegions: 0,
	Format: format("$v1 , $v2 mask : types($v1,$v2) mask-result($v1)"),
	NeedsGeneric: func(op *ir.Operation) bool {
		_, ok := ShuffleMask(op)
		return !ok || !arith.OnlyAttrs(op, "mask")
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		var lanes [2]int64
		var elem ir.Type
		for i, x := range op.Operands {
			vt, ok := x.Type.(ir.VectorType)
			if !ok || len(vt.Shape) != 1 || vt.Shape[0] < 1 || len(vt.Scalable) > 0 && vt.Scalable[0] {
				return arith.Errf(op, "operand #%d must be a 1-D vector of static length, not %s", i, x.Type)
			}
			if i == 1 && !ir.TypeEqual(vt.Elem, elem) {
				return arith.Errf(op, "operands must have one element type, not %s and %s", elem, vt.Elem)
			}
			lanes[i], elem = vt.Shape[0], vt.Elem
		}
		mask, ok := ShuffleMask(op)
		if !ok || len(mask) == 0 {
			return arith.Errf(op, "needs a mask attribute: a non-empty array of i64 lane indices")
		}
		for _, m := range mask {
			if m < 0 || m >= lanes[0]+lanes[1] {
				return arith.Errf(op, "lane index %d is out of range [0, %d)", m, lanes[0]+lanes[1])
			}
		}
		want := ir.VectorType{Shape: []int64{int64(len(mask))}, Elem: elem}
		if !ir.TypeEqual(op.Results[0].Type, want) {
			return arith.Errf(op, "result type %s must be %s (one lane per index)", op.Results[0].Type, want)
		}
		return nil
	},
}

// directives are vector's pieces of syntax for its formats (ir.Format),
// with arith's:
//
//	mask            `[i, j, ...]`, at least one integer lane index:
//	                attribute mask
//	mask-result($v) nothing written: the result is a vector of as many
//	                lanes as the mask has, of operand v's element type
var directives = ir.Directives{
	"mask": {
		Attrs: func(string) []string { return []string{"mask"} },
		Parse: func(c *ir.FormatParser, _ string) error {
			entries, loc, err := c.Brackets()
			if err != nil {
				return err
			}
			var mask []int64
			for _, e := range entries {
				if e.Form != ir.EntryExpr || e.E == nil || e.E.Kind != ir.ExprInt {
					return ir.Errorf(e.Loc, "expected an integer lane index")
				}
				mask = append(mask, e.E.Int)
			}
			if len(mask) == 0 {
				return ir.Errorf(loc, "expected at least one lane index")
			}
			c.St.Attrs = c.St.Attrs.With("mask", maskAttr(mask))
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			mask, _ := ShuffleMask(c.Op)
			parts := make([]string, len(mask))
			for i, m := range mask {
				parts[i] = fmt.Sprint(m)
			}
			c.Space()
			c.Write("[" + strings.Join(parts, ", ") + "]")
		},
	},
	"mask-result": {
		Parse: func(c *ir.FormatParser, arg string) error {
			elem := c.Operands(strings.TrimPrefix(arg, "$"))[0].Type
			if vt, ok := elem.(ir.VectorType); ok {
				elem = vt.Elem
			}
			mask := c.St.Attrs.Get("mask").(ir.ArrayAttr)
			c.St.ResultTypes = []ir.Type{ir.VectorType{Shape: []int64{int64(len(mask))}, Elem: elem}}
			return nil
		},
		Print: func(*ir.FormatPrinter, string) {},
	},
}

// format compiles a vector op's format with vector's directives and
// arith's.
func format(spec string) *ir.Format {
	return ir.NewFormat(spec, arith.Directives.With(directives), false)
}

func maskAttr(mask []int64) ir.ArrayAttr {
	a := make(ir.ArrayAttr, len(mask))
	for i, m := range mask {
		a[i] = ir.IntegerAttr{Value: m, Type: ir.I64}
	}
	return a
}

// ShuffleMask returns the lane indices of a vector.shuffle; false when
// the mask attribute is missing or not an array of integers.
func ShuffleMask(op *ir.Operation) ([]int64, bool) {
	a, ok := op.Attr("mask").(ir.ArrayAttr)
	if !ok {
		return nil, false
	}
	out := make([]int64, len(a))
	for i, x := range a {
		c, ok := x.(ir.IntegerAttr)
		if !ok {
			return nil, false
		}
		out[i] = c.Value
	}
	return out, true
}

// NewShuffle builds `%r = vector.shuffle %a, %b [mask]`.
func NewShuffle(loc ir.Location, a, b *ir.Value, mask []int64) *ir.Operation {
	elem := a.Type.(ir.VectorType).Elem
	t := ir.VectorType{Shape: []int64{int64(len(mask))}, Elem: elem}
	return ir.NewOpOf(Shuffle, loc, []*ir.Value{a, b}, []ir.Type{t}, ir.DictAttr(nil).With("mask", maskAttr(mask)))
}
