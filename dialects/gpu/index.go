package gpu

import (
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// DimAttr is MLIR's #gpu<dim x>: the dimension (x, y or z) an index op
// reads. It is a string so that a bad dimension built by a pass reaches the
// verifier, which names it, instead of being unrepresentable.
type DimAttr string

func (a DimAttr) String() string { return "#gpu<dim " + string(a) + ">" }

func validDim(d string) bool { return d == "x" || d == "y" || d == "z" }

// The index ops (see Ops for the naming rule).
var (
	ThreadID = indexDef("gpu.thread_id", "the thread's index in its block along a dimension")
	BlockID  = indexDef("gpu.block_id", "the block's index in the grid along a dimension")
	BlockDim = indexDef("gpu.block_dim", "the number of threads of a block along a dimension")
	GridDim  = indexDef("gpu.grid_dim", "the number of blocks of the grid along a dimension")
)

// IndexOps lists the index ops.
var IndexOps = []*ir.OpDef{ThreadID, BlockID, BlockDim, GridDim}

// parseGPUAttr reads the body of #gpu<...>. Only `dim` is interpreted; the
// other #gpu<...> attributes of MLIR (shuffle modes, reduction kinds, ...)
// are keyword lists that stay opaque, as they were before this dialect
// registered a parser.
func parseGPUAttr(p *ir.OpParser) (ir.Attribute, error) {
	if p.Word("dim") {
		d, loc, err := p.Keyword("a dimension (x, y or z)")
		if err != nil {
			return nil, err
		}
		if !validDim(d) {
			return nil, ir.Errorf(loc, "expected a dimension: x, y or z, found '%s'", d)
		}
		return DimAttr(d), p.ExpectEnd()
	}
	var words []string
	for !p.AtEnd() {
		w, _, err := p.Keyword("a keyword (#gpu<dim x>)")
		if err != nil {
			return nil, err
		}
		words = append(words, w)
	}
	return ir.OpaqueAttr{Name: "gpu", Body: strings.Join(words, " ")}, nil
}

// directives are gpu's pieces of syntax for its formats (ir.Format), with
// arith's:
//
//	module-body  a gpu.module's body: one block without arguments whose
//	       terminator, gpu.module_end, is left out (MLIR's
//	       SingleBlockImplicitTerminator) and added back when read
//	dim    a dimension keyword x, y or z: attribute dimension; printed
//	       after two blanks, as MLIR 16 prints it (its format puts a
//	       blank before the attribute, whose printer starts with one), so
//	       text from mlir-opt and ours agree
var directives = ir.Directives{
	"module-body": {
		Parse: func(c *ir.FormatParser, _ string) error {
			body, err := c.Region([]ir.RegionArg{}, nil)
			if err != nil {
				return err
			}
			arith.EnsureTerminator(body, func() *ir.Operation { return NewModuleEnd(c.St.Loc) })
			c.St.Regions = append(c.St.Regions, body)
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			ir.PrintRegion(c.OpPrinter, c.Op.Regions[0], false, false)
		},
	},
	"dim": {
		Attrs: func(string) []string { return []string{"dimension"} },
		Parse: func(c *ir.FormatParser, _ string) error {
			d, loc, err := c.Keyword("a dimension (x, y or z)")
			if err != nil {
				return err
			}
			if !validDim(d) {
				return ir.Errorf(loc, "expected a dimension: x, y or z, found '%s'", d)
			}
			c.St.Attrs = c.St.Attrs.With("dimension", DimAttr(d))
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) { c.Write("  " + Dimension(c.Op)) },
		Printable: func(c *ir.FormatPrinter, _ string) bool {
			d, ok := c.Op.Attr("dimension").(DimAttr)
			return ok && validDim(string(d))
		},
	},
}

// format compiles a gpu op's format with gpu's directives and arith's.
func format(spec string) *ir.Format {
	return ir.NewFormat(spec, arith.Directives.With(directives), false)
}

// indexDef defines one of the four index ops: `%r = NAME  x`, result index,
// attribute dimension. They are pure, so CSE may merge repeated reads.
func indexDef(name, summary string) *ir.OpDef {
	return &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      "%r = " + name + "  x|y|z",
		Traits:      ir.TraitPure,
		NumOperands: 0, NumResults: 1, NumRegions: 0,
		Format: format("dim"),
		NeedsGeneric: func(op *ir.Operation) bool {
			d, ok := op.Attr("dimension").(DimAttr)
			return !ok || !validDim(string(d)) || !arith.OnlyAttrs(op, "dimension")
		},
		Infer: func(*ir.Operation) ([]ir.Type, error) { return []ir.Type{ir.Index}, nil },
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			if d, ok := op.Attr("dimension").(DimAttr); !ok || !validDim(string(d)) {
				return arith.Errf(op, "attribute 'dimension' failed to satisfy constraint: a dimension, either 'x', 'y', or 'z'")
			}
			if !ir.TypeEqual(op.Results[0].Type, ir.Index) {
				return arith.Errf(op, "result #0 must be index, but got '%s'", op.Results[0].Type)
			}
			// MLIR 16 accepts these anywhere; outside a gpu.func they have
			// no thread to describe.
			if enclosing(op, Func) == nil {
				return arith.Errf(op, "must be inside a gpu.func")
			}
			return nil
		},
	}
}

// NewIndexOp builds `%r = KIND  DIM`: kind is the name of one of IndexOps
// ("gpu.thread_id", ThreadID.Name, ...) and dim one of "x", "y", "z". An
// unknown kind is a bug of the caller and panics; a bad dim is left to the
// verifier.
func NewIndexOp(loc ir.Location, kind, dim string) *ir.Operation {
	for _, k := range IndexOps {
		if k.Name == kind {
			return ir.NewOpOf(k, loc, nil, []ir.Type{ir.Index}, ir.DictAttr{}.With("dimension", DimAttr(dim)))
		}
	}
	panic("gpu: unknown index op " + kind)
}

// Dimension is the dimension ("x", "y" or "z") an index op reads, "" when
// its dimension attribute is missing.
func Dimension(op *ir.Operation) string {
	d, _ := op.Attr("dimension").(DimAttr)
	return string(d)
}
