package abi

import (
	"fmt"
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// A run-time check of the program (cf.assert, codes from AssertCodeBase +
// 1) whose message carries run-time values (spec 5.1: "expected extent
// 20, got 18") has two more attributes, both optional:
//
//	tir.format = "assume_shape: ... expected extent 20, got %lld"
//	             the message as a printf format; each %lld takes one value
//	tir.values = ["d0", "2*s1"]
//	             the values, one size expression per %lld over d<j>, the
//	             size of the j-th dimension among the function's memref
//	             arguments of rank > 0 (in argument order, dimension by
//	             dimension; SizeDims), and s<i>, the i-th trailing index
//	             argument, as in tir.extents
//
// The values are text rather than an affine map because they may need min
// or max, which MLIR's affine_map cannot spell; mlir-opt keeps both
// attributes as they are. The msg of the cf.assert is the message without
// values, which f_error returns for a code that did not just fail.
const (
	AttrAssertFormat = "tir.format"
	AttrAssertValues = "tir.values"
)

// ArgDim is one dimension of a memref argument.
type ArgDim struct{ Arg, Dim int }

// SizeDims lists the dimensions d0, d1, ... of tir.values: every dimension
// of every memref argument of rank > 0, in order.
func (s *Signature) SizeDims() []ArgDim {
	var out []ArgDim
	for _, a := range s.Args {
		if a.Mem == nil {
			continue
		}
		for d := range a.Mem.Shape {
			out = append(out, ArgDim{a.Index, d})
		}
	}
	return out
}

// AssertValuesAttr is the tir.values attribute of values over ir.MapDim and
// ir.MapSym.
func AssertValuesAttr(values []sizeexpr.Expr) ir.ArrayAttr {
	out := ir.ArrayAttr{}
	for _, v := range values {
		out = append(out, ir.StringAttr(v.String()))
	}
	return out
}

// AssertFormat reads the tir.format and tir.values of a cf.assert: ok is
// false when it has none (its message is msg alone). The values are over
// ir.MapDim(j) (SizeDims()[j]) and ir.MapSym(i).
func AssertFormat(op *ir.Operation) (format string, values []sizeexpr.Expr, ok bool, err error) {
	f, hasF := op.Attr(AttrAssertFormat).(ir.StringAttr)
	vs, hasV := op.Attr(AttrAssertValues).(ir.ArrayAttr)
	if !hasF && !hasV {
		return "", nil, false, nil
	}
	if !hasF || !hasV {
		return "", nil, false, ir.Errorf(op.Loc, "cf.assert needs both %s and %s, or neither", AttrAssertFormat, AttrAssertValues)
	}
	if n := strings.Count(strings.ReplaceAll(string(f), "%%", ""), "%lld"); n != len(vs) || strings.Count(strings.ReplaceAll(string(f), "%%", ""), "%") != n {
		return "", nil, false, ir.Errorf(op.Loc, "%s must have one %%lld per entry of %s (%d) and no other conversion", AttrAssertFormat, AttrAssertValues, len(vs))
	}
	for _, v := range vs {
		s, isStr := v.(ir.StringAttr)
		if !isStr {
			return "", nil, false, ir.Errorf(op.Loc, "%s must be an array of strings, found %s", AttrAssertValues, v)
		}
		e, err := sizeexpr.Parse(string(s), mapVar)
		if err != nil {
			return "", nil, false, ir.Errorf(op.Loc, "%s entry %q: %v", AttrAssertValues, string(s), err)
		}
		values = append(values, e)
	}
	return string(f), values, true, nil
}

// mapVar reads d<j> and s<i> as ir.MapDim(j) and ir.MapSym(i).
func mapVar(name string) (sizeexpr.Expr, bool) {
	if len(name) < 2 || (name[0] != 'd' && name[0] != 's') {
		return sizeexpr.Expr{}, false
	}
	i, err := strconv.Atoi(name[1:])
	if err != nil || i < 0 || fmt.Sprint(i) != name[1:] {
		return sizeexpr.Expr{}, false
	}
	if name[0] == 'd' {
		return ir.MapDim(i), true
	}
	return ir.MapSym(i), true
}
