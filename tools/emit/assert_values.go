package emit

import (
	"fmt"
	"strings"

	"tir/dialects/cf"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/lower/abi"
)

// A cf.assert whose message carries run-time values (abi.AttrAssertFormat)
// fails in the host wrapper through f_fail with its format and the values
// as C expressions, so f_error gives the message the CPU build gives.

// hasFormattedAssert reports whether some cf.assert of ops has a format.
func hasFormattedAssert(ops []*ir.Operation) bool {
	for _, op := range ops {
		if _, _, ok, _ := abi.AssertFormat(op); op.Is(cf.Assert) && ok {
			return true
		}
	}
	return false
}

// assertFail is the C statement run when the cf.assert op with condition
// cond fails with code: `rc = f_fail(code, "...%lld...", (long long)(N * 2)); goto done;`,
// or without values `rc = code; goto done;`.
func (f *funcWriter) assertFail(op *ir.Operation, code int) (string, error) {
	format, values, ok, err := abi.AssertFormat(op)
	if err != nil || !ok {
		return fmt.Sprintf("rc = %d; goto done;", code), err
	}
	dims := f.h.sig.SizeDims()
	name := func(v sizeexpr.Var) string {
		if v.Kind == sizeexpr.DimVar && v.Order >= 0 && v.Order < len(dims) {
			d := dims[v.Order]
			return fmt.Sprintf("%s->sizes[%d]", f.params[d.Arg], d.Dim)
		}
		return f.symbolName(v)
	}
	args := []string{fmt.Sprint(code), cString(format)}
	for _, v := range values {
		args = append(args, "(long long)("+cExpr(v, name)+")")
	}
	return fmt.Sprintf("rc = %s_fail(%s); goto done;", f.h.sig.Name, strings.Join(args, ", ")), nil
}
