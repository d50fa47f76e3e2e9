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
// function (VALUE is a .npy path, or a number for a 0-d parameter) and a
// size symbol otherwise (VALUE must be an integer). Symbols not given are inferred from the extents of the
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
			return nil, nil, usagef("--arg %s: expected NAME=FILE.npy, NAME=NUMBER (a 0-d argument) or SYMBOL=INT", f)
		}
		if i, isParam := param[name]; isParam {
			if _, dup := given[name]; dup {
				return nil, nil, usagef("argument '%s' is bound twice", name)
			}
			pt, _ := tir.AsTensor(ft.Inputs[i])
			t, isNumber, err := scalarArg(name, value, pt)
			if !isNumber && err == nil {
				t, err = loadArg(name, value, pt)
			}
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
			if what, v := sampleNumber(pt); v != "" {
				return nil, nil, usagef("missing argument '%s' (%s) of @%s: pass %s (--arg %s=%s), --arg %s=FILE.npy or --random SEED", n, pt, ir.SymbolName(fn), what, n, v, n)
			}
			return nil, nil, usagef("missing argument '%s' (%s) of @%s: pass --arg %s=FILE.npy or --random SEED", n, pt, ir.SymbolName(fn), n)
		}
		if s := unbound(pt, syms, nil); s != "" {
			return nil, nil, usagef("cannot generate argument '%s': size symbol %s is unbound: pass --arg %s=...", n, s, s)
		}
		dims, err := interp.EvalDims(pt, syms)
		if err != nil {
			return nil, nil, fmt.Errorf("argument '%s': %v", n, err)
		}
		args[i] = randomTensor(pt.Elem, dims, *random, i)
	}
	// Symbols used only by results cannot be inferred from anything
	// (extents computed from data, tir.compress's, are known when the
	// function runs).
	data := tir.DataSymbols(fn)
	for _, t := range ft.Results {
		if tt, ok := tir.AsTensor(t); ok {
			if s := unbound(tt, syms, data); s != "" {
				return nil, nil, usagef("size symbol %s is unbound: pass --arg %s=...", s, s)
			}
		}
	}
	return args, syms, nil
}

// unbound returns the first size symbol of a type that has no value, other
// than those of computed.
func unbound(t tir.TensorType, syms map[string]int64, computed map[string]*ir.Operation) string {
	for _, d := range t.Dims {
		for _, e := range []sizeexpr.Expr{d.Lo, d.Hi} {
			for _, v := range e.Vars() {
				if _, ok := syms[v.Name]; !ok && v.Kind == sizeexpr.SymbolVar && computed[v.Name] == nil {
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

// sampleNumber is a value of a 0-d parameter's element type as --arg takes
// it, for the hints, and what it is: "0.7" for a float, "3" for an integer,
// "true" for an i1; "" for a parameter with dimensions or one that
// scalarArg does not read from a number.
func sampleNumber(pt tir.TensorType) (what, value string) {
	if len(pt.Dims) > 0 {
		return "", ""
	}
	switch e := pt.Elem.(type) {
	case ir.FloatType:
		return "a number", "0.7"
	case ir.IntegerType:
		if e.Width == 1 {
			return "a boolean", "true"
		}
		return "an integer", "3"
	}
	return "", ""
}

// scalarArg binds a 0-d parameter from a number: a float parameter from
// any number (rounded to its type), an integer one from an integer that
// fits its width (as a signed or an unsigned value, like the .npy rule), an
// i1 from 0, 1, true or false. isNumber is false when value is to be read
// as a .npy file instead: for a parameter with dimensions, and for a value
// that names an existing file or ends in .npy; any other value that is not
// a number of the parameter's kind is an error.
func scalarArg(name, value string, pt tir.TensorType) (t *interp.Tensor, isNumber bool, err error) {
	if len(pt.Dims) > 0 {
		return nil, false, nil
	}
	if _, statErr := os.Stat(value); statErr == nil || strings.HasSuffix(value, ".npy") {
		return nil, false, nil
	}
	t, err = interp.NewTensor(pt.Elem, nil)
	if err != nil {
		return nil, false, fmt.Errorf("argument '%s': %v", name, err)
	}
	f, ferr := strconv.ParseFloat(value, 64)
	switch e := pt.Elem.(type) {
	case ir.FloatType:
		if ferr != nil {
			return nil, false, usagef("argument '%s' is a 0-d %s tensor: pass a number (--arg %s=0.5) or a .npy file, not '%s'", name, e, name, value)
		}
		t.F64[0] = interp.RoundTo(e, f)
	case ir.IntegerType:
		v, ierr := strconv.ParseInt(value, 10, 64)
		if e.Width == 1 {
			switch {
			case value == "true" || ierr == nil && v == 1:
				v = 1
			case value == "false" || ierr == nil && v == 0:
				v = 0
			default:
				return nil, false, usagef("argument '%s' is a 0-d i1 tensor: pass 0, 1, true or false (or a .npy file), not '%s'", name, value)
			}
			t.I64[0] = v
			return t, true, nil
		}
		if ierr != nil {
			if ferr == nil {
				return nil, false, usagef("argument '%s' is a 0-d %s tensor: pass an integer, not '%s'", name, e, value)
			}
			return nil, false, usagef("argument '%s' is a 0-d %s tensor: pass an integer (--arg %s=3) or a .npy file, not '%s'", name, e, name, value)
		}
		if w := uint(e.Width); w < 64 {
			if v < -1<<(w-1) || v > 1<<w-1 {
				return nil, false, usagef("argument '%s' is a 0-d %s tensor: %s does not fit %d bits", name, e, value, w)
			}
			v = v << (64 - w) >> (64 - w)
		}
		t.I64[0] = v
	default:
		return nil, false, usagef("argument '%s' is a 0-d %s tensor: only float and integer scalars can be given as numbers; pass a .npy file", name, pt.Elem)
	}
	return t, true, nil
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
