package affine_test

import (
	"strings"
	"testing"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/fn"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/mathd"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

var (
	d0, d1, d2 = ir.MapDim(0), ir.MapDim(1), ir.MapDim(2)
	s0         = ir.MapSym(0)
)

func add(b *ir.Block, op *ir.Operation) *ir.Value {
	b.Append(op)
	if len(op.Results) == 0 {
		return nil
	}
	return op.Results[0]
}

func name(v *ir.Value, n string) *ir.Value { v.NameHint = n; return v }

// TestBuilders builds a function with every builder, including maps no
// parser would produce (permuted and repeated operands), and checks that the
// result verifies, prints to a fixed point, and is accepted by MLIR.
func TestBuilders(t *testing.T) {
	loc := ir.Location{File: "built", Line: 1, Col: 1}
	mt := ir.MemRefType{Shape: []int64{ir.Dynamic, 16}, Elem: ir.F32}
	f, entry := fn.NewFunc(loc, "built", ir.FunctionType{Inputs: []ir.Type{mt, ir.Index}, Results: []ir.Type{ir.F32}})
	mem, n := name(entry.Args[0], "m"), name(entry.Args[1], "N")
	zero := name(add(entry, arith.NewConstantFloat(loc, 0, ir.F32)), "zero")
	c1 := name(add(entry, arith.NewConstantIndex(loc, 1)), "c1")

	// for %i = 0 to %N { %row = for %j = 0 to 16 step 4 iter_args(%acc = %zero) }
	outer := affine.NewFor(loc, affine.ConstantMap(0), nil, affine.SymbolMap(), []*ir.Value{n}, 1, nil)
	entry.Append(outer)
	i := name(affine.InductionVar(outer), "i")
	ob := affine.ForBody(outer)
	inner := affine.NewFor(loc, affine.ConstantMap(0), nil, affine.ConstantMap(16), nil, 4, []*ir.Value{zero})
	ob.Append(inner)
	j, acc := name(affine.InductionVar(inner), "j"), name(affine.IterArgs(inner)[0], "acc")
	ib := affine.ForBody(inner)
	fd, _ := sizeexpr.FloorDiv(d2, 2)
	// (d0, d1, d2) -> (d1 + d2 floordiv 2, d0) on (%j, %i, %i)
	x := add(ib, affine.NewLoad(loc, mem, affine.MapOf(3, 0, sizeexpr.Add(d1, fd), d0), []*ir.Value{j, i, i}))
	sum := add(ib, arith.NewBinary(loc, arith.AddF.Name, acc, x))
	ib.Append(affine.NewYield(loc, sum))
	row := name(inner.Results[0], "row")
	// (d0)[s0] -> (s0 - d0 - 1, 0) on (%i)[%N]
	ob.Append(affine.NewStore(loc, row, mem, affine.MapOf(1, 1, sizeexpr.Sub(sizeexpr.Sub(s0, d0), sizeexpr.Const(1)), sizeexpr.Const(0)), []*ir.Value{i, n}))
	ob.Append(affine.NewYield(loc))

	// affine.parallel (%p, %q) = (0, 0) to (%N, 16) step (1, 4) with vectors and math.
	par := affine.NewParallel(loc, affine.ConstantBounds(0, 0), affine.SingleBounds(affine.MapOf(0, 1, s0, sizeexpr.Const(16)), []*ir.Value{n}), []int64{1, 4}, nil, nil)
	entry.Append(par)
	pb := affine.ParallelBody(par)
	p, q := name(pb.Args[0], "p"), name(pb.Args[1], "q")
	vt := ir.VectorType{Shape: []int64{4}, Elem: ir.F32}
	v := add(pb, affine.NewVectorLoad(loc, vt, mem, affine.MapOf(2, 0, d0, d1), []*ir.Value{p, q}))
	half := add(pb, arith.NewConstantSplat(loc, 0.5, vt))
	e := add(pb, mathd.NewUnary(loc, mathd.Exp.Name, v))
	fma := add(pb, mathd.NewFma(loc, e, half, v))
	pb.Append(affine.NewVectorStore(loc, fma, mem, affine.MapOf(2, 0, d0, d1), []*ir.Value{p, q}))
	pb.Append(affine.NewYield(loc))

	// Index arithmetic, a temporary, an affine.if and an scf.for.
	lo := add(entry, affine.NewMax(loc, affine.MapOf(0, 1, s0, sizeexpr.Const(2)), []*ir.Value{n}))
	hi := add(entry, affine.NewMin(loc, affine.MapOf(1, 1, sizeexpr.Add(d0, sizeexpr.Const(8)), s0), []*ir.Value{lo, n}))
	ext := add(entry, affine.NewApply(loc, affine.MapOf(2, 0, sizeexpr.Sub(d1, d0)), []*ir.Value{lo, hi}))
	tmp := add(entry, memref.NewAlloc(loc, ir.MemRefType{Shape: []int64{ir.Dynamic}, Elem: ir.F32}, []*ir.Value{ext}))
	set := ir.AffineSet{NumDims: 1, NumSyms: 1, Constraints: []ir.AffineConstraint{{Expr: sizeexpr.Sub(s0, d0)}}}
	cond := affine.NewIf(loc, set, []*ir.Value{lo, n}, []ir.Type{ir.F32}, true)
	entry.Append(cond)
	affine.ThenBlock(cond).Append(affine.NewYield(loc, zero))
	neg := add(affine.ElseBlock(cond), arith.NewElementwise(loc, arith.NegF.Name, zero))
	affine.ElseBlock(cond).Append(affine.NewYield(loc, neg))
	loop := scf.NewFor(loc, lo, hi, c1, []*ir.Value{cond.Results[0]})
	entry.Append(loop)
	lb := scf.ForBody(loop)
	k := name(scf.InductionVar(loop), "k")
	ld := add(lb, memref.NewLoad(loc, tmp, []*ir.Value{k}))
	lb.Append(scf.NewYield(loc, add(lb, arith.NewBinary(loc, arith.AddF.Name, lb.Args[1], ld))))
	entry.Append(memref.NewDealloc(loc, tmp))
	entry.Append(fn.NewReturn(loc, loop.Results[0]))

	m := ir.NewModule(loc)
	m.Body().Append(f)
	m.Body().Append(fn.NewDecl(loc, "ext", ir.FunctionType{Inputs: []ir.Type{ir.F32}, Results: []ir.Type{ir.F32}}))
	out := dialecttest.CheckModule(t, "built", m)
	for _, want := range []string{
		"affine.for %i = 0 to %N {",
		"%row = affine.for %j = 0 to 16 step 4 iter_args(%acc = %zero) -> (f32) {",
		"affine.load %m[%i + %i floordiv 2, %j] : memref<?x16xf32>",
		"affine.store %row, %m[-%i + symbol(%N) - 1, 0] : memref<?x16xf32>",
		"affine.parallel (%p, %q) = (0, 0) to (symbol(%N), 16) step (1, 4) {",
		"affine.vector_load %m[%p, %q] : memref<?x16xf32>, vector<4xf32>",
		"arith.constant dense<0.5> : vector<4xf32>",
		"affine.apply affine_map<(d0, d1) -> (-d0 + d1)>(%6, %7)",
		"func.func private @ext(f32) -> f32",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log(out)
}

// TestSubscriptCanonical prints loads whose maps a pass could build in any
// shape (operands permuted, repeated, unused, non-linear terms) and checks
// each prints to a fixed point that MLIR reads as the same access.
func TestSubscriptCanonical(t *testing.T) {
	fd := func(e sizeexpr.Expr, c int64) sizeexpr.Expr { x, _ := sizeexpr.FloorDiv(e, c); return x }
	md := func(e sizeexpr.Expr, c int64) sizeexpr.Expr { x, _ := sizeexpr.Mod(e, c); return x }
	s1 := ir.MapSym(1)
	cases := []struct {
		name string
		m    ir.AffineMap
		ops  []int // 0: %a, 1: %b (loop ivs), 2: %N, 3: %M (symbols)
		want string
	}{
		{"permuted", affine.MapOf(2, 0, d1, d0), []int{0, 1}, "[%b, %a]"},
		{"mixed", affine.MapOf(2, 0, d1, sizeexpr.Add(d0, d1)), []int{0, 1}, "[%b, %b + %a]"},
		{"repeated", affine.MapOf(2, 0, sizeexpr.Add(d0, d1), d0), []int{0, 0}, "[2*%a, %a]"},
		{"unused", affine.MapOf(3, 0, d2, d2), []int{0, 1, 1}, "[%b, %b]"},
		{"nonlinear", affine.MapOf(2, 0, sizeexpr.Add(fd(d1, 2), md(d0, 3)), d0), []int{0, 1}, "[%a mod 3 + %b floordiv 2, %a]"},
		{"symbols", affine.MapOf(1, 2, sizeexpr.Add(s1, d0), s0), []int{0, 2, 3}, "[%a + symbol(%M), symbol(%N)]"},
		{"symbol as dim", affine.MapOf(2, 1, sizeexpr.Add(d0, d1), s0), []int{2, 0, 2}, "[%N + %a, %N]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := ir.Location{File: c.name, Line: 1, Col: 1}
			mt := ir.MemRefType{Shape: []int64{ir.Dynamic, ir.Dynamic}, Elem: ir.F32}
			f, entry := fn.NewFunc(loc, "f", ir.FunctionType{Inputs: []ir.Type{mt, ir.Index, ir.Index}})
			mem := name(entry.Args[0], "mem")
			vals := []*ir.Value{nil, nil, name(entry.Args[1], "N"), name(entry.Args[2], "M")}
			la := affine.NewConstantFor(loc, 0, 4, 1)
			entry.Append(la)
			lb := affine.NewConstantFor(loc, 0, 4, 1)
			affine.ForBody(la).Append(lb)
			vals[0], vals[1] = name(affine.InductionVar(la), "a"), name(affine.InductionVar(lb), "b")
			var ops []*ir.Value
			for _, k := range c.ops {
				ops = append(ops, vals[k])
			}
			body := affine.ForBody(lb)
			body.Append(affine.NewLoad(loc, mem, c.m, ops))
			body.Append(affine.NewYield(loc))
			affine.ForBody(la).Append(affine.NewYield(loc))
			entry.Append(fn.NewReturn(loc))
			m := ir.NewModule(loc)
			m.Body().Append(f)
			out := dialecttest.CheckModule(t, c.name, m)
			if !strings.Contains(out, "affine.load %mem"+c.want) {
				t.Errorf("want %s in:\n%s", c.want, out)
			}
		})
	}
}
