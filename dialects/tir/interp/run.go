package interp

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Run evaluates a tir.func on argument tensors (in signature order) and
// returns its results on the declared output domains (the result types of
// the signature).
//
// Arguments are matched to the parameter types by position of their
// dimensions (storage order); only their extents are checked: the bounds of
// the parameter type apply (a NumPy array has no lower bounds), so
// Dims[k].Lo of an argument may be anything. Dimension names, when set,
// must match. syms gives size symbols; symbols it lacks are inferred from
// argument extents where an extent is SYM + c (or a*SYM + c), as the
// runtime binds them from descriptors. Errors name the argument and the
// dimension: "argument 'inp' dimension J: expected extent 9, got 8".
// Errors found while evaluating an op are *ir.Diagnostic located at it.
func Run(fn *ir.Operation, args []*Tensor, syms map[string]int64) ([]*Tensor, error) {
	return call(fn, args, syms, 0, false)
}

// call runs fn; exact (tir.call) requires argument bounds to equal the
// parameter bounds instead of only the extents, and binds symbols from the
// bounds themselves.
func call(fn *ir.Operation, args []*Tensor, syms map[string]int64, depth int, exact bool) ([]*Tensor, error) {
	if depth > maxCallDepth {
		return nil, fmt.Errorf("call depth exceeds %d (recursive tir.call?)", maxCallDepth)
	}
	ft, err := signature(fn)
	if err != nil {
		return nil, err
	}
	names := ArgNames(fn)
	if len(args) != len(ft.Inputs) {
		return nil, fmt.Errorf("@%s takes %d argument(s) (%s), got %d", ir.SymbolName(fn), len(ft.Inputs), strings.Join(names, ", "), len(args))
	}
	env := copySyms(syms)
	var eqs []equation
	for i, a := range args {
		pt, err := paramType(fn, ft, i)
		if err != nil {
			return nil, err
		}
		if err := checkShape(names[i], pt, a); err != nil {
			return nil, err
		}
		for k, d := range pt.Dims {
			if exact {
				// An inverted interval ([1:0] of [1:N] with N = 0) is
				// empty: the callee sees an extent of 0, never a negative
				// size symbol (docs/decisions.md).
				lo, hi := a.Dims[k].Lo, max(a.Dims[k].Hi, a.Dims[k].Lo)
				eqs = append(eqs, equation{d.Lo, lo}, equation{d.Hi, hi})
			} else {
				eqs = append(eqs, equation{d.Extent(), a.Dims[k].Extent()})
			}
		}
	}
	solve(eqs, env)
	if err := checkSymbols(env); err != nil {
		return nil, err
	}
	bound := make([]*Tensor, len(args))
	for i, a := range args {
		pt, _ := paramType(fn, ft, i)
		if bound[i], err = bindArg(names[i], pt, a, env, exact); err != nil {
			return nil, err
		}
	}
	// The run-time checks of the compiled code hold here too, with the
	// same messages, in the same order: those on sizes at entry, then the
	// extents computed from data (tir.iota, tir.compress, in program
	// order, with what they read), then the checks that need those.
	lookup := func(x sizeexpr.Var) (int64, bool) { n, ok := env[x.Name]; return n, ok }
	entryChecks, dataChecks := tir.SplitDataChecks(fn, tir.RuntimeChecks(fn, nil))
	if err := runChecks(entryChecks, lookup); err != nil {
		return nil, err
	}
	ev := &evaluator{fn: fn, syms: env, vals: map[*ir.Value]*Tensor{}, depth: depth}
	if err := ev.dataExtents(fn.Regions[0].Entry(), bound); err != nil {
		return nil, located(fn, err)
	}
	if err := runChecks(dataChecks, lookup); err != nil {
		return nil, err
	}
	outs, err := ev.block(fn.Regions[0].Entry(), bound)
	if err != nil {
		return nil, located(fn, err)
	}
	if len(outs) != len(ft.Results) {
		return nil, ir.Errorf(fn.Loc, "@%s returns %d values but declares %d results", ir.SymbolName(fn), len(outs), len(ft.Results))
	}
	for i, r := range ft.Results {
		elem, dims, err := typeDomain(r, env)
		if err != nil {
			return nil, fmt.Errorf("result #%d of @%s: %v", i, ir.SymbolName(fn), err)
		}
		if outs[i], err = restrict(outs[i], elem, dims); err != nil {
			at := fn
			if ops := fn.Regions[0].Entry().Ops; len(ops) > 0 {
				at = ops[len(ops)-1] // the tir.return
			}
			return nil, located(at, fmt.Errorf("result #%d: %v", i, err))
		}
		outs[i] = zeroMasked(outs[i])
	}
	return outs, nil
}

// zeroMasked returns t with 0 at its masked points, the value a masked
// point of a function's result is defined to have (docs/tir.md), whatever
// the ops before left there: a reduction whose init is masked goes on
// accumulating into it. The mask stays, so that callers can count the
// points; the data is copied first when a masked point holds anything
// else, since a result may share it with an argument.
func zeroMasked(t *Tensor) *Tensor {
	if t.MaskedCount() == 0 || !hasNonZeroAt(t, t.Mask) {
		return t
	}
	out := clone(t)
	clearAt(out, t.Mask)
	return out
}

func hasNonZeroAt(t *Tensor, mask []bool) bool {
	for i, m := range mask {
		if !m {
			continue
		}
		switch {
		case t.F64 != nil && (t.F64[i] != 0 || math.Signbit(t.F64[i])):
			return true
		case t.I64 != nil && t.I64[i] != 0:
			return true
		}
	}
	for _, c := range t.Tuple {
		if hasNonZeroAt(c, mask) {
			return true
		}
	}
	return false
}

// clearAt writes +0 at the points mask sets, in every tuple component.
func clearAt(t *Tensor, mask []bool) {
	for i, m := range mask {
		if !m {
			continue
		}
		if t.F64 != nil {
			t.F64[i] = 0
		}
		if t.I64 != nil {
			t.I64[i] = 0
		}
	}
	for _, c := range t.Tuple {
		clearAt(c, mask)
	}
}

// runChecks evaluates run-time checks; the first that fails is the error.
func runChecks(checks []tir.RuntimeCheck, lookup func(sizeexpr.Var) (int64, bool)) error {
	for _, c := range checks {
		for _, e := range c.NonNeg {
			v, err := e.Eval(lookup)
			// An unbound symbol is reported where it is needed.
			if err == nil && v < 0 {
				return ir.Errorf(c.Loc, "%s", c.Message(lookup))
			}
		}
	}
	return nil
}

func signature(fn *ir.Operation) (ir.FunctionType, error) {
	if fn == nil || !fn.Is(tir.Func) {
		return ir.FunctionType{}, fmt.Errorf("not a tir.func")
	}
	ft, ok := tir.FuncType(fn)
	if !ok || len(fn.Regions) == 0 || fn.Regions[0].Entry() == nil {
		return ir.FunctionType{}, fmt.Errorf("@%s has no signature or body", ir.SymbolName(fn))
	}
	return ft, nil
}

func paramType(fn *ir.Operation, ft ir.FunctionType, i int) (tir.TensorType, error) {
	t, ok := tir.AsTensor(ft.Inputs[i])
	if !ok {
		return t, fmt.Errorf("parameter #%d of @%s is not a !tir.tensor", i, ir.SymbolName(fn))
	}
	return t, nil
}

// ArgNames are the parameter names of a function as written (without '%'),
// "arg0", "arg1", ... where the input gave none.
func ArgNames(fn *ir.Operation) []string {
	ft, _ := tir.FuncType(fn)
	names := make([]string, len(ft.Inputs))
	var entry *ir.Block
	if len(fn.Regions) > 0 {
		entry = fn.Regions[0].Entry()
	}
	for i := range names {
		if entry != nil && i < len(entry.Args) && entry.Args[i].NameHint != "" {
			names[i] = entry.Args[i].NameHint
		} else {
			names[i] = fmt.Sprintf("arg%d", i)
		}
	}
	return names
}

// Symbols lists the size parameters of a function in ABI order (spec 5.1;
// unknown extents are not parameters).
func Symbols(fn *ir.Operation) []string {
	var out []string
	for _, v := range tir.Symbols(fn) {
		out = append(out, v.Name)
	}
	return out
}

// Bind orders named arguments by the signature. Every parameter must be
// given, and every name must be a parameter.
func Bind(fn *ir.Operation, byName map[string]*Tensor) ([]*Tensor, error) {
	names := ArgNames(fn)
	known := map[string]bool{}
	args := make([]*Tensor, len(names))
	var missing []string
	for i, n := range names {
		known[n] = true
		t, ok := byName[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		args[i] = t
	}
	var unknown []string
	for n := range byName {
		if !known[n] {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return nil, fmt.Errorf("@%s has no argument %s (its arguments: %s)", ir.SymbolName(fn), quoteList(unknown), strings.Join(names, ", "))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing argument %s of @%s", quoteList(missing), ir.SymbolName(fn))
	}
	return args, nil
}

// InferSymbols completes syms with the symbols that the extents of the
// given arguments (by name; others may be absent) determine, without
// checking anything else. Tools use it to know the domain of the arguments
// they must generate.
func InferSymbols(fn *ir.Operation, byName map[string]*Tensor, syms map[string]int64) map[string]int64 {
	env := copySyms(syms)
	ft, _ := tir.FuncType(fn)
	var eqs []equation
	for i, n := range ArgNames(fn) {
		a, ok := byName[n]
		pt, isT := tir.AsTensor(ft.Inputs[i])
		if !ok || !isT || len(a.Dims) != len(pt.Dims) {
			continue
		}
		for k, d := range pt.Dims {
			eqs = append(eqs, equation{d.Extent(), a.Dims[k].Extent()})
		}
	}
	solve(eqs, env)
	return env
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}

func copySyms(syms map[string]int64) map[string]int64 {
	env := map[string]int64{}
	for k, v := range syms {
		env[k] = v
	}
	return env
}

// equation says that a size expression has a value at run time.
type equation struct {
	e sizeexpr.Expr
	v int64
}

// solve binds symbols from equations of the form a*SYM + c = v (after
// substituting the symbols already known), repeating until nothing new is
// learnt. Equations it cannot use are left to the checks that follow.
func solve(eqs []equation, env map[string]int64) {
	for changed := true; changed; {
		changed = false
		for _, q := range eqs {
			e := q.e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
				if x, ok := env[v.Name]; ok && v.Kind == sizeexpr.SymbolVar {
					return sizeexpr.Const(x), true
				}
				return sizeexpr.Expr{}, false
			})
			terms, c, ok := e.Linear()
			if !ok || len(terms) != 1 || terms[0].Var.Kind != sizeexpr.SymbolVar {
				continue
			}
			if n := q.v - c; n%terms[0].Coef == 0 {
				env[terms[0].Var.Name] = n / terms[0].Coef
				changed = true
			}
		}
	}
}

func checkSymbols(env map[string]int64) error {
	var names []string
	for n := range env {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if env[n] < 0 {
			return fmt.Errorf("size symbol %s = %d is negative (size symbols are >= 0)", n, env[n])
		}
	}
	return nil
}

// checkShape checks an argument's element type, rank, dimension names and
// data length against its parameter type (not the extents, which need the
// symbols).
func checkShape(name string, pt tir.TensorType, a *Tensor) error {
	if a == nil {
		return fmt.Errorf("missing argument '%s'", name)
	}
	if !ir.TypeEqual(a.Elem, pt.Elem) {
		return fmt.Errorf("argument '%s' has element type %v, expected %s", name, a.Elem, pt.Elem)
	}
	if len(a.Dims) != len(pt.Dims) {
		return fmt.Errorf("argument '%s' has %d dimensions, expected %d (%s)", name, len(a.Dims), len(pt.Dims), pt)
	}
	for k, d := range pt.Dims {
		if n := a.Dims[k].Name; n != "" && n != d.Name {
			return fmt.Errorf("argument '%s' dimension #%d is %s, expected %s", name, k, n, d.Name)
		}
	}
	return checkData("argument '"+name+"'", a)
}

// checkData verifies that a tensor's data fields match its element type and
// point count.
func checkData(what string, t *Tensor) error {
	n := t.Len()
	k, err := kindOf(t.Elem)
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	switch k {
	case kindFloat:
		if len(t.F64) != n {
			return fmt.Errorf("%s: %d float values for %d points", what, len(t.F64), n)
		}
	case kindInt:
		if len(t.I64) != n {
			return fmt.Errorf("%s: %d integer values for %d points", what, len(t.I64), n)
		}
	case kindTuple:
		tt := t.Elem.(ir.TupleType)
		if len(t.Tuple) != len(tt.Elems) {
			return fmt.Errorf("%s: %d tuple components for %s", what, len(t.Tuple), tt)
		}
		for i, c := range t.Tuple {
			if !ir.TypeEqual(c.Elem, tt.Elems[i]) || len(c.Dims) != len(t.Dims) {
				return fmt.Errorf("%s: tuple component #%d is %s", what, i, c)
			}
			if err := checkData(fmt.Sprintf("%s component #%d", what, i), c); err != nil {
				return err
			}
		}
	}
	if t.Mask != nil && len(t.Mask) != n {
		return fmt.Errorf("%s: mask of %d entries for %d points", what, len(t.Mask), n)
	}
	return nil
}

// bindArg checks the extents (or, exact, the bounds) of an argument against
// its parameter type and returns it on the parameter's bounds, sharing the
// data.
func bindArg(name string, pt tir.TensorType, a *Tensor, env map[string]int64, exact bool) (*Tensor, error) {
	dims := make([]Dim, len(pt.Dims))
	for k, d := range pt.Dims {
		lo, err := evalExpr(d.Lo, env, nil)
		if err != nil {
			return nil, fmt.Errorf("argument '%s' dimension %s: %v", name, d.Name, err)
		}
		hi, err := evalExpr(d.Hi, env, nil)
		if err != nil {
			return nil, fmt.Errorf("argument '%s' dimension %s: %v", name, d.Name, err)
		}
		dims[k] = Dim{Name: d.Name, Lo: lo, Hi: hi}
		got := a.Dims[k]
		got.Hi = max(got.Hi, got.Lo) // inverted is empty, as in call
		if exact && (got.Lo != lo || got.Hi != hi) {
			return nil, fmt.Errorf("argument '%s' dimension %s: expected [%d:%d], got [%d:%d]", name, d.Name, lo, hi, got.Lo, got.Hi)
		}
		if want := dims[k].Extent(); got.Extent() != want {
			expected := fmt.Sprint(want)
			if ext := d.Extent(); !ext.IsConst() {
				expected = fmt.Sprintf("%s = %d", ext, want)
			}
			return nil, fmt.Errorf("argument '%s' dimension %s: expected extent %s, got %d", name, d.Name, expected, got.Extent())
		}
	}
	return rebase(a, dims), nil
}

// rebase returns t with other bounds of the same extents, sharing the data.
func rebase(t *Tensor, dims []Dim) *Tensor {
	out := &Tensor{Elem: t.Elem, Dims: dims, F64: t.F64, I64: t.I64, Mask: t.Mask}
	for _, c := range t.Tuple {
		out.Tuple = append(out.Tuple, rebase(c, dims))
	}
	return out
}

// restrict returns a function result on its declared output domain. The
// declared domain must be inside the computed one (checked at compile time
// when provable, here always); the value is broadcast along declared
// dimensions it does not vary in.
func restrict(t *Tensor, elem ir.Type, dims []Dim) (*Tensor, error) {
	if !ir.TypeEqual(t.Elem, elem) {
		return nil, fmt.Errorf("element type %s, but the function declares %s", t.Elem, elem)
	}
	for _, d := range t.Dims {
		if findDim(dims, d.Name) < 0 {
			return nil, fmt.Errorf("the value varies along %s, which the declared output (%s) lacks", d.Name, dimsString(dims))
		}
	}
	for _, w := range dims {
		if k := t.Find(w.Name); k >= 0 && w.Extent() > 0 {
			g := t.Dims[k]
			if w.Lo < g.Lo || w.Hi > g.Hi {
				return nil, fmt.Errorf("output domain not inside the computed one: dimension %s is declared %s but computed only on %s", w.Name, w, g)
			}
		}
	}
	return align(t, dims)
}
