package affine

import (
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// affine.apply / affine.min / affine.max: `%r = affine.apply
// affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%N]`; operands are the map
// operands, the attribute is `map`, the result an index.

// The map ops (see Ops for the naming rule).
var (
	Apply = mapOpDef("affine.apply", "evaluate a one-result affine map", true)
	Min   = mapOpDef("affine.min", "the least result of an affine map", false)
	Max   = mapOpDef("affine.max", "the greatest result of an affine map", false)
)

// directives are affine's pieces of syntax for its formats (ir.Format):
//
//	map-use($x)  an affine map applied to operands x,
//	             `affine_map<(d0)[s0] -> (...)>(%i)[%N]`: attribute map
var directives = ir.Directives{
	"map-use": {
		Operands: func(arg string) (string, bool) { return strings.TrimPrefix(arg, "$"), true },
		Attrs:    func(string) []string { return []string{"map"} },
		Parse: func(c *ir.FormatParser, arg string) error {
			m, ops, err := parseMapUse(c.OpParser)
			if err != nil {
				return err
			}
			c.SetOperands(strings.TrimPrefix(arg, "$"), ops)
			c.St.Attrs = c.St.Attrs.With("map", ir.AffineMapAttr{Map: m})
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			printMapUse(c.OpPrinter, c.Op.Attr("map").(ir.AffineMapAttr).Map, c.Operands(strings.TrimPrefix(arg, "$")))
		},
	},
}

func mapOpDef(name, summary string, single bool) *ir.OpDef {
	return &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      "%r = " + name + " affine_map<(d0)[s0] -> (...)>(%i)[%N]",
		Traits:      ir.TraitPure,
		NumOperands: -1, NumResults: 1, NumRegions: 0,
		Format: ir.NewFormat("map-use($mapOperands) res-type(index)", directives, false),
		NeedsGeneric: func(op *ir.Operation) bool {
			a, ok := op.Attr("map").(ir.AffineMapAttr)
			return !ok || a.Map.NumDims+a.Map.NumSyms != len(op.Operands) || !arith.OnlyAttrs(op, "map")
		},
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			a, ok := op.Attr("map").(ir.AffineMapAttr)
			if !ok {
				return errf(op, "needs an affine map attribute 'map'")
			}
			if single && len(a.Map.Results) != 1 {
				return errf(op, "mapping must produce one value")
			}
			if len(a.Map.Results) == 0 {
				return errf(op, "map needs at least one result")
			}
			if !ir.TypeEqual(op.Results[0].Type, ir.Index) {
				return errf(op, "result must be an index")
			}
			return checkMapOperands(op, "the", a.Map, op.Operands)
		},
	}
}

// NewApply builds `%r = affine.apply m(operands)` (m has one result).
func NewApply(loc ir.Location, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return newMapOp(loc, Apply, m, operands)
}

// NewMin builds `%r = affine.min m(operands)`: the least of m's results.
func NewMin(loc ir.Location, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return newMapOp(loc, Min, m, operands)
}

// NewMax builds `%r = affine.max m(operands)`: the greatest of m's results.
func NewMax(loc ir.Location, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return newMapOp(loc, Max, m, operands)
}

func newMapOp(loc ir.Location, k *ir.OpDef, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return ir.NewOpOf(k, loc, operands, []ir.Type{ir.Index}, ir.DictAttr{}.With("map", ir.AffineMapAttr{Map: m}))
}
