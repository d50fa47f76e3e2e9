package tiraffine

import (
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// TestEveryOpIsLowered keeps the lowering in step with the dialect, as
// the interpreter's TestEveryOpIsImplemented does: every op of tir.Ops()
// has an entry of opLowerings, or is lowered the generic way eval.go's at
// picks (data movement through lowerAccess, the other elementwise ops
// through lowerElementwise, which must lower it on some element type), or
// is one of the ops lowered as part of the function or before the point
// evaluation, listed here with where.
func TestEveryOpIsLowered(t *testing.T) {
	elsewhere := map[*tir.Op]string{
		tir.Func:   "lowerFunc makes it a func.func",
		tir.Return: "lowerFunc stores its operands into the results",
		tir.Yield:  "lowerReduce and the scans lower the bodies it ends",
		tir.Scan:   "computed into a buffer before any point is evaluated (scan.go)",
	}
	for _, o := range tir.Ops() {
		_, own := opLowerings[o]
		switch {
		case own:
			if _, ok := elsewhere[o]; ok {
				t.Errorf("%s has an entry of opLowerings but the test says it is lowered elsewhere", o.Name)
			}
		case movesData(o):
		case o.Traits&ir.TraitElementwise != 0:
			if err := lowersScalar(o); err != nil {
				t.Errorf("%s is elementwise but scalarOp lowers it on no element type: %v", o.Name, err)
			}
		case elsewhere[o] != "":
		default:
			t.Errorf("convert-tir-to-affine does not lower %s: add an entry to opLowerings", o.Name)
		}
	}
}

// movesData reports whether o only moves data (tir.MovesData).
func movesData(o *tir.Op) bool {
	return tir.MovesData(ir.NewOpOf(o, ir.Location{}, nil, nil, nil))
}

// lowersScalar lowers o with scalarOp on f32, then i32 and i1 operands,
// and returns the error of the last type when none lowers.
func lowersScalar(o *tir.Op) error {
	var err error
	for _, elem := range []ir.Type{ir.F32, ir.I32, ir.I1} {
		b := builder{block: (&ir.Region{}).AddBlock()}
		var args []*ir.Value
		for i := 0; i < o.NumOperands; i++ {
			args = append(args, b.block.AddArg(elem, ""))
		}
		result := elem
		attrs := ir.DictAttr{}
		if o == tir.Cmp {
			result = ir.I1
			attrs = attrs.With("predicate", ir.StringAttr("lt"))
		}
		op := ir.NewOpOf(o, ir.Location{}, args, []ir.Type{tir.TensorType{Elem: result}}, attrs)
		if _, err = scalarOp(b, op, args, result); err == nil {
			return nil
		}
	}
	return err
}
