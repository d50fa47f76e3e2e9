package tollvm

import (
	"fmt"
	"sort"
	"strings"

	ll "github.com/llir/llvm/ir"

	"tir/dialects/fn"
	"tir/dialects/ir"
)

// A compiled function is an external symbol named after the func.func
// (spec 5.1), and so are its helpers f_error and f_result_shape. A name that
// is also a C function the module calls would make the module call itself:
// the functions it declares (snprintf, free, tanhf), and the libm functions
// llc turns math intrinsics into (llvm.exp.f32 becomes a call to expf on
// every target, llvm.floor.f32 one to floorf on x86-64 without SSE4.1).
// Such a clash is a located error. Any other name is fine, C library names
// included (abs, exp for a module that does not call exp, malloc): the
// generated C (header, CUDA host wrapper, test driver) declares those with
// an asm label (docs/decisions.md).

// intrinsicLibcalls are the math intrinsics llc (LLVM 14) may lower to a
// libm call of the same name: base name + "f" for float elements
// (vectors are scalarised into the same calls).
var intrinsicLibcalls = map[string]bool{
	"exp": true, "exp2": true, "log": true, "log2": true, "log10": true,
	"sin": true, "cos": true, "pow": true, "fma": true,
	"floor": true, "ceil": true, "round": true, "roundeven": true,
	"trunc": true, "rint": true, "nearbyint": true,
}

// libcallName is the C function llc may call for a declared intrinsic
// (llvm.exp.v8f32: expf), or "".
func libcallName(intrinsic string) string {
	rest, ok := strings.CutPrefix(intrinsic, "llvm.")
	if !ok {
		return ""
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return ""
	}
	base, suffix := rest[:dot], rest[dot+1:]
	if !intrinsicLibcalls[base] {
		return ""
	}
	switch {
	case strings.HasSuffix(suffix, "f64"):
		return base
	case strings.HasSuffix(suffix, "f32"), strings.HasSuffix(suffix, "f16"):
		return base + "f"
	}
	return ""
}

// calledSymbols maps each external C symbol the module may call to what
// calls it (for the message).
func calledSymbols(mod *ll.Module) map[string]string {
	out := map[string]string{}
	for _, f := range mod.Funcs {
		if len(f.Blocks) > 0 {
			continue
		}
		name := f.Name()
		if c := libcallName(name); c != "" {
			if _, ok := out[c]; !ok {
				base := name[:strings.LastIndexByte(name, '.')]
				out[c] = fmt.Sprintf("the libm function llc calls for %s", base)
			}
			continue
		}
		if !strings.HasPrefix(name, "llvm.") {
			out[name] = "a C function the compiled module calls"
		}
	}
	return out
}

// checkLibraryClashes reports, at the func.func, a function whose symbol or
// helper symbols are also C functions the module calls.
func checkLibraryClashes(m *ir.Module, mod *ll.Module) error {
	called := calledSymbols(mod)
	if len(called) == 0 {
		return nil
	}
	for _, op := range m.Body().Ops {
		if !op.Is(fn.Func) || len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
			continue
		}
		name := ir.SymbolName(op)
		var clashes []string
		for _, sym := range []string{name, name + "_error", name + "_result_shape"} {
			if why, ok := called[sym]; ok {
				clashes = append(clashes, fmt.Sprintf("%s, %s", sym, why))
			}
		}
		if len(clashes) > 0 {
			sort.Strings(clashes)
			return ir.Errorf(op.Loc, "tollvm: function @%s clashes with %s: rename the function", name, strings.Join(clashes, "; "))
		}
	}
	return nil
}
