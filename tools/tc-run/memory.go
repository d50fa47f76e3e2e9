package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/internal/memory"
)

// Arguments and results that cannot fit in memory are refused before they
// are allocated: with the size symbols given on the command line, before
// --random generates arguments (preflight), then with every symbol bound,
// before the function runs (checkMemory). .npy files are checked by their
// reader.

// elementBytes is what one element costs: its interpreter value (8
// bytes), and for compiled code its exchange file and the driver's buffer
// (the element's size each).
func elementBytes(elem ir.Type) float64 {
	size := 8.0
	switch t := elem.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f16", "bf16":
			size = 2
		case "f32":
			size = 4
		}
	case ir.IntegerType:
		size = float64(max(t.Width/8, 1))
	}
	return 8 + 2*size
}

// footprint is the memory of the tensors of types whose extents the
// symbols determine (others are skipped), in bytes.
func footprint(types []ir.Type, syms map[string]int64) float64 {
	total := 0.0
	for _, t := range types {
		tt, ok := tir.AsTensor(t)
		if !ok {
			continue
		}
		dims, err := interp.EvalDims(tt, syms)
		if err != nil {
			continue
		}
		n := 1.0
		for _, d := range dims {
			n *= float64(d.Extent())
		}
		total += n * elementBytes(tt.Elem)
	}
	return total
}

// preflight refuses a run whose generated arguments and results need more
// memory than is available, with the symbols of the command line.
func preflight(fn *ir.Operation, flags []string, random *int64) error {
	param := map[string]bool{}
	for _, n := range interp.ArgNames(fn) {
		param[n] = true
	}
	syms := map[string]int64{}
	bound := map[string]bool{}
	for _, f := range flags {
		name, value, _ := strings.Cut(f, "=")
		if param[name] {
			bound[name] = true
		} else if v, err := strconv.ParseInt(value, 10, 64); err == nil {
			syms[name] = v
		}
	}
	ft, _ := tir.FuncType(fn)
	var types []ir.Type
	if random != nil {
		for i, n := range interp.ArgNames(fn) {
			if !bound[n] {
				types = append(types, ft.Inputs[i])
			}
		}
	}
	types = append(types, ft.Results...)
	return checkFootprint(fn, footprint(types, syms), syms)
}

// checkMemory refuses a run whose results (and the arguments' copies for
// compiled code: the arguments themselves are in memory already) need
// more memory than is available, once every symbol is bound.
func checkMemory(fn *ir.Operation, syms map[string]int64) error {
	ft, _ := tir.FuncType(fn)
	need := footprint(ft.Results, syms)
	for _, t := range ft.Inputs {
		if tt, ok := tir.AsTensor(t); ok {
			need += footprint([]ir.Type{t}, syms) * (elementBytes(tt.Elem) - 8) / elementBytes(tt.Elem)
		}
	}
	return checkFootprint(fn, need, syms)
}

func checkFootprint(fn *ir.Operation, need float64, syms map[string]int64) error {
	var names []string
	for s := range syms {
		names = append(names, s)
	}
	sort.Strings(names)
	var bound []string
	for _, s := range names {
		bound = append(bound, fmt.Sprintf("%s = %d", s, syms[s]))
	}
	what := fmt.Sprintf("the arguments and results of @%s", ir.SymbolName(fn))
	if len(bound) > 0 {
		what += " (" + strings.Join(bound, ", ") + ")"
	}
	return memory.Check(need, what)
}
