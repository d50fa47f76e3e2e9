package cf

import (
	"strconv"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The branches of MLIR's cf dialect, with MLIR 16's syntax and
// representation: they read multi-block functions as mlir-opt prints them.
//
//	cf.br ^bb1(%a, %b : i32, f32)
//	cf.cond_br %c, ^bb1(%a : i32), ^bb2
//	cf.switch %flag : i32, [default: ^bb1(%a : i32), 42: ^bb2]

// parseDest reads `^bb(%a, %b : T1, T2)` or `^bb`.
func parseDest(p *ir.OpParser) (*ir.Block, []*ir.Value, error) {
	b, err := p.Successor()
	if err != nil {
		return nil, nil, err
	}
	if !p.IsGroup() {
		return b, nil, nil
	}
	g, err := p.Group()
	if err != nil {
		return nil, nil, err
	}
	vs, err := arith.ParseValuesColonTypes(g)
	return b, vs, err
}

func destArgs(p *ir.OpParser, it *ir.Item) ([]*ir.Value, error) {
	if it == nil {
		return nil, nil
	}
	return arith.ParseValuesColonTypes(p.Sub(it))
}

// printDest writes `^bbN(%a : T)`.
func printDest(p ir.OpPrinter, b *ir.Block, args []*ir.Value) {
	p.Write(ir.BlockLabel(b))
	if len(args) > 0 {
		p.Write("(")
		p.Values(args)
		p.Write(" : ")
		p.Types(arith.TypesOf(args))
		p.Write(")")
	}
}

// checkDest verifies that args match the block's arguments.
func checkDest(op *ir.Operation, i int, args []*ir.Value) error {
	if i >= len(op.Successors) || op.Successors[i] == nil {
		return arith.Errf(op, "needs successor #%d", i)
	}
	b := op.Successors[i]
	if len(args) != len(b.Args) {
		return arith.Errf(op, "passes %d operands to successor #%d, which has %d arguments", len(args), i, len(b.Args))
	}
	for j, a := range args {
		if !ir.TypeEqual(a.Type, b.Args[j].Type) {
			return arith.Errf(op, "operand #%d to successor #%d has type %s, but the block argument has type %s", j, i, a.Type, b.Args[j].Type)
		}
	}
	return nil
}

// segments returns the operand_segment_sizes of op, or nil.
func segments(op *ir.Operation, n int) []int64 {
	a, ok := op.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
	if !ok || len(a.Values) != n {
		return nil
	}
	var sum int64
	for _, v := range a.Values {
		sum += v
	}
	if sum != int64(len(op.Operands)) {
		return nil
	}
	return a.Values
}

// Br is cf.br.
var Br = &ir.OpDef{
	Name:        "cf.br",
	Summary:     "branch to a block, passing it values",
	Syntax:      "cf.br ^bb1(%a : i32)",
	Traits:      ir.TraitTerminator,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		b, args, err := parseDest(p)
		if err != nil {
			return err
		}
		st.Operands, st.Successors = args, []*ir.Block{b}
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" ")
		printDest(p, op.Successors[0], op.Operands)
	},
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 || len(op.Successors) != 1 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if len(op.Successors) != 1 {
			return arith.Errf(op, "needs one successor, got %d", len(op.Successors))
		}
		return checkDest(op, 0, op.Operands)
	},
}

// CondBr is cf.cond_br.
var CondBr = &ir.OpDef{
	Name:        "cf.cond_br",
	Summary:     "branch to one of two blocks on an i1",
	Syntax:      "cf.cond_br %c, ^bb1(%a : i32), ^bb2",
	Traits:      ir.TraitTerminator,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		c, loc, err := arith.Operand(p)
		if err != nil {
			return err
		}
		if err := arith.CheckType(c, loc, ir.I1); err != nil {
			return err
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		t, targs, err := parseDest(p)
		if err != nil {
			return err
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		f, fargs, err := parseDest(p)
		if err != nil {
			return err
		}
		extra, err := arith.OptionalBareDict(p)
		if err != nil {
			return err
		}
		st.Operands = append(append([]*ir.Value{c}, targs...), fargs...)
		st.Successors = []*ir.Block{t, f}
		st.Attrs = append(extra, ir.NamedAttr{Name: "operand_segment_sizes", Value: ir.SegmentSizes(1, len(targs), len(fargs))})
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		seg := segments(op, 3)
		p.Write(" ")
		p.Value(op.Operands[0])
		p.Write(", ")
		printDest(p, op.Successors[0], op.Operands[1:1+seg[1]])
		p.Write(", ")
		printDest(p, op.Successors[1], op.Operands[1+seg[1]:])
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		return !arith.OnlyAttrs(op, "operand_segment_sizes") || segments(op, 3) == nil || len(op.Successors) != 2
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		seg := segments(op, 3)
		if seg == nil || seg[0] != 1 || len(op.Successors) != 2 {
			return arith.Errf(op, "needs a condition, two successors and operand_segment_sizes = array<i32: 1, N, M>")
		}
		if !ir.TypeEqual(op.Operands[0].Type, ir.I1) {
			return arith.Errf(op, "condition must be i1, got %s", op.Operands[0].Type)
		}
		if err := checkDest(op, 0, op.Operands[1:1+seg[1]]); err != nil {
			return err
		}
		return checkDest(op, 1, op.Operands[1+seg[1]:])
	},
}

// caseValue reads a case value for an integer type of width w: wider
// spellings wrap, as MLIR's APInt does (255 is -1 for i8).
func caseValue(text string, w int, loc ir.Location) (int64, error) {
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		text = text[1:]
	}
	u, err := strconv.ParseUint(text, 10, 64)
	if err != nil || w > 64 {
		return 0, ir.Errorf(loc, "case value %s is out of range (at most 64 bits are supported)", text)
	}
	v := int64(u)
	if neg {
		v = -v
	}
	if w < 64 {
		v = v << (64 - w) >> (64 - w)
	}
	return v, nil
}

// Switch is cf.switch.
var Switch = &ir.OpDef{
	Name:        "cf.switch",
	Summary:     "branch to the block of the case equal to the flag, or to the default",
	Syntax:      "cf.switch %flag : i32, [default: ^bb1(%a : i32), 42: ^bb2]",
	Traits:      ir.TraitTerminator,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		flag, loc, err := arith.Operand(p)
		if err != nil {
			return err
		}
		t, err := arith.ColonType(p)
		if err != nil {
			return err
		}
		if err := arith.CheckType(flag, loc, t); err != nil {
			return err
		}
		it, ok := t.(ir.IntegerType)
		if !ok {
			return ir.Errorf(loc, "'cf.switch' flag must be an integer, got %s", t)
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		entries, bloc, err := p.Brackets()
		if err != nil {
			return err
		}
		var defArgs, caseArgs []*ir.Value
		var succs []*ir.Block
		var values []ir.Attribute
		var segs []int
		for i, e := range entries {
			if e.Form != ir.EntryCase {
				return ir.Errorf(e.Loc, "expected 'default: ^bb' or 'VALUE: ^bb'")
			}
			if (i == 0) != (e.Name == "default") || (e.Name != "" && e.Name != "default") {
				return ir.Errorf(e.Loc, "the first case of 'cf.switch' is 'default: ^bb', the others 'VALUE: ^bb'")
			}
			b, err := p.ResolveBlock(e.Succ, e.Loc)
			if err != nil {
				return err
			}
			args, err := destArgs(p, e.Args)
			if err != nil {
				return err
			}
			succs = append(succs, b)
			if i == 0 {
				defArgs = args
				continue
			}
			v, err := caseValue(e.Text, it.Width, e.Loc)
			if err != nil {
				return err
			}
			values = append(values, ir.IntegerAttr{Value: v})
			caseArgs = append(caseArgs, args...)
			segs = append(segs, len(args))
		}
		if len(succs) == 0 {
			return ir.Errorf(bloc, "'cf.switch' needs a default case")
		}
		extra, err := arith.OptionalBareDict(p)
		if err != nil {
			return err
		}
		st.Operands = append(append([]*ir.Value{flag}, defArgs...), caseArgs...)
		st.Successors = succs
		st.Attrs = extra
		cs := ir.SegmentSizes(segs...)
		st.Attrs = st.Attrs.With("case_operand_segments", cs)
		if len(values) > 0 {
			d, err := ir.TypedDense(ir.DenseElementsAttr{Values: values}, ir.VectorType{Shape: []int64{int64(len(values))}, Elem: t})
			if err != nil {
				return ir.Errorf(bloc, "%v", err)
			}
			st.Attrs = st.Attrs.With("case_values", d)
		}
		st.Attrs = st.Attrs.With("operand_segment_sizes", ir.SegmentSizes(1, len(defArgs), len(caseArgs)))
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		seg := segments(op, 3)
		cs, _ := op.Attr("case_operand_segments").(ir.DenseArrayAttr)
		vals, _ := op.Attr("case_values").(ir.DenseElementsAttr)
		p.Write(" ")
		p.Value(op.Operands[0])
		p.Write(" : ")
		p.Type(op.Operands[0].Type)
		p.Write(", [default: ")
		printDest(p, op.Successors[0], op.Operands[1:1+seg[1]])
		next := 1 + int(seg[1])
		for i, n := range cs.Values {
			v := vals.Values[0]
			if len(vals.Values) > 1 {
				v = vals.Values[i]
			}
			iv, _ := v.(ir.IntegerAttr)
			// Signed, as MLIR prints case values (1 : i1 is -1).
			val := iv.Value
			if it, ok := op.Operands[0].Type.(ir.IntegerType); ok && it.Width < 64 && it.Width > 0 {
				val = val << (64 - it.Width) >> (64 - it.Width)
			}
			p.Write(", " + strconv.FormatInt(val, 10) + ": ")
			printDest(p, op.Successors[i+1], op.Operands[next:next+int(n)])
			next += int(n)
		}
		p.Write("]")
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		if !arith.OnlyAttrs(op, "operand_segment_sizes", "case_operand_segments", "case_values") || segments(op, 3) == nil {
			return true
		}
		return switchError(op) != nil
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error { return switchError(op) },
}

func switchError(op *ir.Operation) error {
	seg := segments(op, 3)
	cs, ok := op.Attr("case_operand_segments").(ir.DenseArrayAttr)
	if seg == nil || seg[0] != 1 || !ok {
		return arith.Errf(op, "needs a flag, operand_segment_sizes = array<i32: 1, N, M> and case_operand_segments")
	}
	if _, ok := op.Operands[0].Type.(ir.IntegerType); !ok {
		return arith.Errf(op, "flag must be an integer, got %s", op.Operands[0].Type)
	}
	if len(op.Successors) != 1+len(cs.Values) {
		return arith.Errf(op, "has %d successors for %d cases and a default", len(op.Successors), len(cs.Values))
	}
	if len(cs.Values) > 0 {
		vals, ok := op.Attr("case_values").(ir.DenseElementsAttr)
		if !ok || len(vals.Values) != 1 && len(vals.Values) != len(cs.Values) {
			return arith.Errf(op, "needs one case value per case")
		}
	}
	if err := checkDest(op, 0, op.Operands[1:1+seg[1]]); err != nil {
		return err
	}
	next, total := 1+int(seg[1]), int64(0)
	for i, n := range cs.Values {
		total += n
		if next+int(n) > len(op.Operands) {
			return arith.Errf(op, "case operands exceed the operands")
		}
		if err := checkDest(op, i+1, op.Operands[next:next+int(n)]); err != nil {
			return err
		}
		next += int(n)
	}
	if total != seg[2] {
		return arith.Errf(op, "case_operand_segments add up to %d, operand_segment_sizes says %d", total, seg[2])
	}
	return nil
}
