package affinepasses

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/vector"
)

// A small interpreter for the affine-stage subset the passes produce and
// the random tests generate: affine.for/if/apply/min/max, affine loads and
// stores (scalar and vector), memref.alloc/dealloc, arith constants and
// float add/sub/mul/max/min, cmpf and select (i1 lanes are 0 or 1),
// vector.broadcast, vector.reduction (float kinds, lanes in order),
// vector.shuffle,
// func.return. Every access is bounds-checked: an out-of-bounds access is
// a failure, as a wrong transformation would produce.

type ival struct {
	i    int64
	f    []float64 // one element for scalars, the lanes for vectors
	isF  bool
	buf  *ibuf
	isMR bool
}

type ibuf struct {
	shape []int64
	data  []float64
}

type interp struct {
	vals map[*ir.Value]ival
	err  error
}

func (in *interp) fail(format string, args ...any) {
	if in.err == nil {
		in.err = fmt.Errorf(format, args...)
	}
}

// runFunc executes fn with the given arguments (memrefs as *ibuf, index
// values as int64).
func runFunc(fn *ir.Operation, args []any) error {
	in := &interp{vals: map[*ir.Value]ival{}}
	body := fn.Regions[0].Blocks[0]
	for i, a := range body.Args {
		switch x := args[i].(type) {
		case *ibuf:
			in.vals[a] = ival{buf: x, isMR: true}
		case int64:
			in.vals[a] = ival{i: x}
		case float64:
			in.vals[a] = ival{f: []float64{x}, isF: true}
		}
	}
	in.block(body)
	return in.err
}

func (in *interp) block(b *ir.Block) []ival {
	for _, o := range b.Ops {
		if in.err != nil {
			return nil
		}
		if o.Name == "affine.yield" || o.Name == "func.return" {
			out := make([]ival, len(o.Operands))
			for i, v := range o.Operands {
				out[i] = in.vals[v]
			}
			return out
		}
		in.op(o)
	}
	return nil
}

func (in *interp) evalMap(m ir.AffineMap, operands []*ir.Value) []int64 {
	env := func(w sizeexpr.Var) (int64, bool) {
		k, err := strconv.Atoi(w.Name[1:])
		if err != nil {
			return 0, false
		}
		if w.Name[0] == 's' {
			k += m.NumDims
		}
		if k >= len(operands) {
			return 0, false
		}
		return in.vals[operands[k]].i, true
	}
	out := make([]int64, len(m.Results))
	for i, r := range m.Results {
		v, err := r.Eval(env)
		if err != nil {
			in.fail("map %s: %v", m, err)
		}
		out[i] = v
	}
	return out
}

func (in *interp) op(o *ir.Operation) {
	switch o.Name {
	case "arith.constant":
		switch a := o.Attr("value").(type) {
		case ir.IntegerAttr:
			in.vals[o.Results[0]] = ival{i: a.Value}
		case ir.FloatAttr:
			in.vals[o.Results[0]] = ival{f: []float64{a.Value}, isF: true}
		case ir.DenseElementsAttr:
			vt := a.Type.(ir.VectorType)
			f := make([]float64, vt.Shape[0])
			for i := range f {
				f[i] = a.Values[0].(ir.FloatAttr).Value
			}
			in.vals[o.Results[0]] = ival{f: f, isF: true}
		}
	case "arith.addf", "arith.subf", "arith.mulf", "arith.maxf", "arith.minf":
		x, y := in.vals[o.Operands[0]].f, in.vals[o.Operands[1]].f
		r := make([]float64, len(x))
		for i := range x {
			r[i] = floatBinary(o.Name, x[i], y[i])
		}
		in.vals[o.Results[0]] = ival{f: r, isF: true}
	case "arith.cmpf":
		x, y := in.vals[o.Operands[0]].f, in.vals[o.Operands[1]].f
		r := make([]float64, len(x))
		for i := range x {
			var c bool
			switch pred := o.Attr("predicate").(ir.IntegerAttr).Value; pred {
			case 2: // ogt
				c = x[i] > y[i]
			case 4: // olt
				c = x[i] < y[i]
			default:
				in.fail("the test interpreter does not know cmpf predicate %d", pred)
			}
			if c {
				r[i] = 1
			}
		}
		in.vals[o.Results[0]] = ival{f: r, isF: true}
	case "arith.select":
		c, x, y := in.vals[o.Operands[0]].f, in.vals[o.Operands[1]].f, in.vals[o.Operands[2]].f
		r := make([]float64, len(x))
		for i := range x {
			r[i] = y[i]
			if c[min(i, len(c)-1)] != 0 { // a scalar condition applies to every lane
				r[i] = x[i]
			}
		}
		in.vals[o.Results[0]] = ival{f: r, isF: true}
	case "vector.reduction":
		v := in.vals[o.Operands[0]].f
		name := map[string]string{"add": "arith.addf", "mul": "arith.mulf", "maxf": "arith.maxf", "minf": "arith.minf"}[strings.TrimSuffix(strings.TrimPrefix(o.Attr("kind").String(), "#vector.kind<"), ">")]
		if name == "" {
			in.fail("the test interpreter does not know %s", o.Attr("kind"))
			return
		}
		acc := v[0]
		rest := v[1:]
		if len(o.Operands) == 2 {
			acc, rest = in.vals[o.Operands[1]].f[0], v
		}
		for _, x := range rest {
			acc = floatBinary(name, acc, x)
		}
		in.vals[o.Results[0]] = ival{f: []float64{acc}, isF: true}
	case "affine.apply", "affine.min", "affine.max":
		rs := in.evalMap(o.Attr("map").(ir.AffineMapAttr).Map, o.Operands)
		v := rs[0]
		for _, r := range rs[1:] {
			if (o.Name == "affine.min") == (r < v) {
				v = r
			}
		}
		in.vals[o.Results[0]] = ival{i: v}
	case "affine.load", "affine.vector_load", "affine.store", "affine.vector_store":
		val, mem, m, operands := affine.AccessParts(o)
		idx := in.evalMap(m, operands)
		b := in.vals[mem].buf
		lanes := int64(1)
		t := o.Results
		if val != nil {
			t = []*ir.Value{val}
		}
		if vt, ok := t[0].Type.(ir.VectorType); ok {
			lanes = vt.Shape[0]
		}
		off := int64(0)
		for d, x := range idx {
			hi := x
			if d == len(idx)-1 {
				hi = x + lanes - 1
			}
			if x < 0 || hi >= b.shape[d] {
				in.fail("%s out of bounds: %v (+%d lanes) in %v", o.Name, idx, lanes, b.shape)
				return
			}
			off = off*b.shape[d] + x
		}
		if val == nil {
			f := append([]float64(nil), b.data[off:off+lanes]...)
			in.vals[o.Results[0]] = ival{f: f, isF: true}
			return
		}
		copy(b.data[off:off+lanes], in.vals[val].f)
	case "memref.alloc", "memref.alloca":
		mt := o.Results[0].Type.(ir.MemRefType)
		shape := append([]int64(nil), mt.Shape...)
		k, n := 0, int64(1)
		for i, s := range shape {
			if s == ir.Dynamic {
				shape[i] = in.vals[o.Operands[k]].i
				k++
			}
			n *= shape[i]
		}
		in.vals[o.Results[0]] = ival{buf: &ibuf{shape: shape, data: make([]float64, n)}, isMR: true}
	case "memref.dealloc":
	case "vector.broadcast":
		x := in.vals[o.Operands[0]].f[0]
		f := make([]float64, o.Results[0].Type.(ir.VectorType).Shape[0])
		for i := range f {
			f[i] = x
		}
		in.vals[o.Results[0]] = ival{f: f, isF: true}
	case "vector.shuffle":
		both := append(append([]float64(nil), in.vals[o.Operands[0]].f...), in.vals[o.Operands[1]].f...)
		mask, _ := vector.ShuffleMask(o)
		f := make([]float64, len(mask))
		for i, m := range mask {
			f[i] = both[m]
		}
		in.vals[o.Results[0]] = ival{f: f, isF: true}
	case "affine.if":
		set := o.Attr("condition").(ir.AffineSetAttr).Set
		m := ir.AffineMap{NumDims: set.NumDims, NumSyms: set.NumSyms}
		for _, c := range set.Constraints {
			m.Results = append(m.Results, c.Expr)
		}
		ok := true
		for i, v := range in.evalMap(m, o.Operands) {
			if set.Constraints[i].Eq && v != 0 || !set.Constraints[i].Eq && v < 0 {
				ok = false
			}
		}
		var out []ival
		if ok {
			out = in.block(o.Regions[0].Blocks[0])
		} else if len(o.Regions) > 1 && len(o.Regions[1].Blocks) > 0 {
			out = in.block(o.Regions[1].Blocks[0])
		}
		for i, r := range o.Results {
			in.vals[r] = out[i]
		}
	case "affine.for":
		lb, lbOps, ub, ubOps, step := affine.ForBounds(o)
		lo, hi := int64(-1<<62), int64(1<<62)
		for _, v := range in.evalMap(lb, lbOps) {
			lo = max(lo, v)
		}
		for _, v := range in.evalMap(ub, ubOps) {
			hi = min(hi, v)
		}
		body := affine.ForBody(o)
		iters := make([]ival, len(o.Results))
		for i, v := range iterInits(o) {
			iters[i] = in.vals[v]
		}
		for iv := lo; iv < hi && in.err == nil; iv += step {
			in.vals[body.Args[0]] = ival{i: iv}
			for i, a := range body.Args[1:] {
				in.vals[a] = iters[i]
			}
			next := in.block(body)
			copy(iters, next)
		}
		for i, r := range o.Results {
			in.vals[r] = iters[i]
		}
	default:
		in.fail("the test interpreter does not know %s", o.Name)
	}
}

// floatBinary applies a float op of arith to scalars; maxf and minf are
// IEEE maximum and minimum (the programs hold no NaN).
func floatBinary(name string, x, y float64) float64 {
	switch name {
	case "arith.addf":
		return x + y
	case "arith.subf":
		return x - y
	case "arith.maxf":
		return math.Max(x, y)
	case "arith.minf":
		return math.Min(x, y)
	}
	return x * y
}
