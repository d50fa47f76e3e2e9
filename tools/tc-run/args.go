package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/internal/npy"
)

// bindArgs turns the --arg flags (and --random) into the function's
// argument tensors, in signature order, and the size symbol values.
//
// NAME=VALUE binds a tensor argument when NAME is a parameter of the
// function (VALUE is a .npy path) and a size symbol otherwise (VALUE must
// be an integer). Symbols not given are inferred from the extents of the
// arguments read from files; --random then generates the arguments still
// missing, which needs their extents, hence every symbol they use.
func bindArgs(fn *ir.Operation, flags []string, random *int64) ([]*interp.Tensor, map[string]int64, error) {
	names := interp.ArgNames(fn)
	ft, _ := tir.FuncType(fn)
	param := map[string]int{}
	for i, n := range names {
		param[n] = i
	}
	isSym := map[string]bool{}
	for _, s := range interp.Symbols(fn) {
		isSym[s] = true
	}
	// Unknown extents (`?_x_I`) can be given too, to size generated inputs.
	for _, t := range ft.Inputs {
		tt, _ := tir.AsTensor(t)
		for _, d := range tt.Dims {
			for _, v := range d.Hi.Vars() {
				if tir.IsUnknownExtent(v) {
					isSym[v.Name] = true
				}
			}
		}
	}
	syms := map[string]int64{}
	given := map[string]*interp.Tensor{}
	for _, f := range flags {
		name, value, ok := strings.Cut(f, "=")
		if !ok || name == "" || value == "" {
			return nil, nil, usagef("--arg %s: expected NAME=FILE.npy or SYMBOL=INT", f)
		}
		if i, isParam := param[name]; isParam {
			if _, dup := given[name]; dup {
				return nil, nil, usagef("argument '%s' is bound twice", name)
			}
			pt, _ := tir.AsTensor(ft.Inputs[i])
			t, err := loadArg(name, value, pt)
			if err != nil {
				return nil, nil, err
			}
			given[name] = t
			continue
		}
		v, err := strconv.ParseInt(value, 10, 64)
		switch {
		case isSym[name] && err != nil:
			return nil, nil, usagef("size symbol %s needs an integer value, got '%s'", name, value)
		case !isSym[name]:
			return nil, nil, usagef("@%s has no argument or size symbol '%s' (arguments: %s; size symbols: %s)",
				ir.SymbolName(fn), name, strings.Join(names, ", "), orNone(interp.Symbols(fn)))
		}
		if _, dup := syms[name]; dup {
			return nil, nil, usagef("size symbol %s is bound twice", name)
		}
		syms[name] = v
	}
	syms = interp.InferSymbols(fn, given, syms)
	args := make([]*interp.Tensor, len(names))
	for i, n := range names {
		if t, ok := given[n]; ok {
			args[i] = t
			continue
		}
		pt, _ := tir.AsTensor(ft.Inputs[i])
		if random == nil {
			return nil, nil, usagef("missing argument '%s' (%s) of @%s: pass --arg %s=FILE.npy or --random SEED", n, pt, ir.SymbolName(fn), n)
		}
		if s := unbound(pt, syms); s != "" {
			return nil, nil, usagef("cannot generate argument '%s': size symbol %s is unbound: pass --arg %s=...", n, s, s)
		}
		dims, err := interp.EvalDims(pt, syms)
		if err != nil {
			return nil, nil, fmt.Errorf("argument '%s': %v", n, err)
		}
		args[i] = randomTensor(pt.Elem, dims, *random, i)
	}
	// Symbols used only by results cannot be inferred from anything.
	for _, t := range ft.Results {
		if tt, ok := tir.AsTensor(t); ok {
			if s := unbound(tt, syms); s != "" {
				return nil, nil, usagef("size symbol %s is unbound: pass --arg %s=...", s, s)
			}
		}
	}
	return args, syms, nil
}

// unbound returns the first size symbol of a type that has no value.
func unbound(t tir.TensorType, syms map[string]int64) string {
	for _, d := range t.Dims {
		for _, e := range []sizeexpr.Expr{d.Lo, d.Hi} {
			for _, v := range e.Vars() {
				if _, ok := syms[v.Name]; !ok && v.Kind == sizeexpr.SymbolVar {
					return v.Name
				}
			}
		}
	}
	return ""
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// loadArg reads a .npy file for a parameter and checks its dtype and rank
// (the extents are checked against the symbols when the function runs).
func loadArg(name, path string, pt tir.TensorType) (*interp.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("argument '%s': %v", name, err)
	}
	defer f.Close()
	a, err := npy.Read(f)
	if err != nil {
		return nil, fmt.Errorf("argument '%s' (%s): %v", name, path, err)
	}
	return fromNpy(name, a, pt)
}

// randomTensor fills a tensor deterministically from the seed and the
// argument's position, so an argument's values do not depend on which other
// arguments were given as files: floats uniform in [-1, 1) (rounded to the
// element type), integers in [-8, 8), i1 true or false.
func randomTensor(elem ir.Type, dims []interp.Dim, seed int64, index int) *interp.Tensor {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(index)))
	t, _ := interp.NewTensor(elem, dims)
	for i := range t.F64 {
		t.F64[i] = interp.RoundTo(elem, 2*r.Float64()-1)
	}
	for i := range t.I64 {
		if it, ok := elem.(ir.IntegerType); ok && it.Width == 1 {
			t.I64[i] = int64(r.IntN(2))
		} else {
			t.I64[i] = int64(r.IntN(16)) - 8
		}
	}
	return t
}
