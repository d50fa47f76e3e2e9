package emit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/cf"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/lower/abi"
)

// LaunchJSON describes, for every function of an outlined module, how to
// run its kernels without the generated host wrapper: the checks to make,
// the temporaries to allocate, and each kernel in launch order with its
// parameters (how to fill each from the function's arguments) and its grid
// and block size. Sizes are formulas of the size symbols and of the unknown
// extents (`?_x_I`: the extent of argument x's dimension I, from its
// descriptor), in the syntax of size expressions (docs/tir.md).
func LaunchJSON(m *ir.Module) (string, error) {
	hfs, err := hostFuncs(m)
	if err != nil {
		return "", err
	}
	doc := launchDoc{Format: "tir-launch/1"}
	for _, h := range hfs {
		lf, err := describe(h)
		if err != nil {
			return "", err
		}
		doc.Functions = append(doc.Functions, *lf)
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // conditions hold >= and &&
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return "", err
	}
	return compactScalarArrays(out.String()), nil
}

// scalarArray matches an indented JSON array of strings and numbers.
var scalarArray = regexp.MustCompile(`\[\n(\s*("([^"\\]|\\.)*"|-?[0-9]+)(,\n\s*("([^"\\]|\\.)*"|-?[0-9]+))*)\n\s*\]`)

// compactScalarArrays writes arrays of scalars on one line (["I", "J"],
// [32, 8, 1]): the document stays readable in a terminal.
func compactScalarArrays(s string) string {
	return scalarArray.ReplaceAllStringFunc(s, func(m string) string {
		inner := strings.TrimSpace(m[1 : len(m)-1])
		parts := strings.Split(inner, ",\n")
		for i, p := range parts {
			parts[i] = strings.TrimSpace(p)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	})
}

type launchDoc struct {
	Format    string           `json:"format"`
	Functions []launchFunction `json:"functions"`
}

type launchFunction struct {
	Name        string        `json:"name"`
	Arguments   []launchArg   `json:"arguments"`
	Symbols     []string      `json:"symbols"`
	Checks      []launchCheck `json:"checks"`
	Temporaries []launchTemp  `json:"temporaries"`
	// TemporaryBytes is the memory of all the temporaries together, which
	// are live at once (f64 adjoints against their function: docs/derivatives.md).
	TemporaryBytes string         `json:"temporary_bytes"`
	Kernels        []launchKernel `json:"kernels"`
}

type launchArg struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // "input", "result", "symbol"
	Element string   `json:"element,omitempty"`
	Dims    []string `json:"dims,omitempty"`
	Sizes   []string `json:"sizes,omitempty"` // expected extents ("?" when unchecked)
}

type launchCheck struct {
	Code      int    `json:"code"`
	Condition string `json:"condition"`
	Message   string `json:"message"`
}

type launchTemp struct {
	Name    string   `json:"name"`
	Element string   `json:"element"`
	Sizes   []string `json:"sizes"`
	Bytes   string   `json:"bytes"`
}

type launchKernel struct {
	Name       string         `json:"name"`
	Grid       [3]string      `json:"grid"`
	Block      [3]int64       `json:"block"`
	Parameters []launchParamJ `json:"parameters"`
}

type launchParamJ struct {
	Name  string `json:"name"`
	Type  string `json:"type"`  // "pointer" (8 bytes, a device address) or "int64"
	Value string `json:"value"` // where it comes from: "inp.aligned", "inp.strides[0]", "tmp", a formula
}

// symbolic evaluates host values as size expressions (integers) or text
// (conditions).
type symbolic struct {
	h     *hostFunc
	exprs map[*ir.Value]sizeexpr.Expr
	text  map[*ir.Value]string
	temps map[*ir.Value]*launchTemp
}

func describe(h *hostFunc) (*launchFunction, error) {
	lf := &launchFunction{Name: h.sig.Name, Symbols: []string{}, Checks: []launchCheck{}, Temporaries: []launchTemp{}, Kernels: []launchKernel{}}
	s := &symbolic{h: h, exprs: map[*ir.Value]sizeexpr.Expr{}, text: map[*ir.Value]string{}, temps: map[*ir.Value]*launchTemp{}}
	entry := h.fn.Regions[0].Entry()
	nin := 0
	for _, a := range h.sig.Args {
		if a.Mem != nil {
			nin++
		}
	}
	nin -= h.sig.NumResults
	mems := 0
	for i, a := range h.sig.Args {
		la := launchArg{Name: a.Name}
		if a.Mem == nil {
			la.Kind = "symbol"
			lf.Symbols = append(lf.Symbols, a.Name)
			s.exprs[entry.Args[i]] = sizeexpr.Sym(a.Name, 0)
		} else {
			la.Kind = "input"
			if mems >= nin {
				la.Kind = "result"
			}
			mems++
			la.Element = a.Mem.Elem.String()
			la.Dims = a.Dims
			for d := range a.Mem.Shape {
				if a.Known[d] {
					la.Sizes = append(la.Sizes, h.sig.ExprText(a.Extents[d]))
				} else {
					la.Sizes = append(la.Sizes, "?")
				}
			}
		}
		lf.Arguments = append(lf.Arguments, la)
	}
	for _, c := range h.sig.EntryChecks() {
		cond := fmt.Sprintf("%s.strides[%d] == 1", c.Arg.Name, c.Dim)
		switch c.Kind {
		case abi.CheckExtent:
			cond = fmt.Sprintf("%s.sizes[%d] == %s", c.Arg.Name, c.Dim, h.sig.ExprText(c.Arg.Extents[c.Dim]))
		case abi.CheckNonNull:
			cond = fmt.Sprintf("%s.aligned != NULL || %s is empty", c.Arg.Name, c.Arg.Name)
			if len(c.Arg.Mem.Shape) == 0 {
				cond = c.Arg.Name + " != NULL"
			}
		}
		lf.Checks = append(lf.Checks, launchCheck{Code: c.Code, Condition: cond, Message: c.Static})
	}
	asserts := 0
	var total []monomial
	unknown := false
	for _, op := range h.ops {
		switch op.Def {
		case cf.Assert:
			asserts++
			msg, _ := op.Attr(cf.AttrMsg).(ir.StringAttr)
			lf.Checks = append(lf.Checks, launchCheck{Code: abi.AssertCodeBase + asserts, Condition: s.cond(op.Operands[0]), Message: string(msg)})
		case memref.Alloc:
			mt := op.Results[0].Type.(ir.MemRefType)
			t := &launchTemp{Name: uniqueName(op.Results[0].NameHint, lf.Temporaries), Element: mt.Elem.String()}
			m := monomial{coef: ir.StorageBytes(mt.Elem)}
			var ok = true
			k := 0
			for _, d := range mt.Shape {
				e := sizeexpr.Const(d)
				if d == ir.Dynamic {
					var known bool
					e, known = s.exprs[op.Operands[k]]
					k++
					ok = ok && known
				}
				t.Sizes = append(t.Sizes, e.String())
				m = m.times(e)
			}
			t.Bytes = "?"
			if ok {
				t.Bytes = m.String()
				total = append(total, m)
			} else {
				unknown = true
			}
			lf.Temporaries = append(lf.Temporaries, *t)
			s.temps[op.Results[0]] = t
		case gpu.LaunchFunc:
			k, err := s.kernel(op)
			if err != nil {
				return nil, err
			}
			lf.Kernels = append(lf.Kernels, *k)
		default:
			if len(op.Results) == 1 {
				s.eval(op)
			}
		}
	}
	lf.TemporaryBytes = "?"
	if !unknown {
		lf.TemporaryBytes = sumMonomials(total)
	}
	return lf, nil
}

// monomial is a byte count: a constant times a product of size
// expressions (N*M*L is not affine, so not one sizeexpr.Expr).
type monomial struct {
	coef    int64
	factors []string
	// affine is the whole count when it has at most one factor.
	affine *sizeexpr.Expr
}

// times multiplies m by e, folding e into the constant, or into the
// single factor when the product stays affine (8*max(NE, 1)).
func (m monomial) times(e sizeexpr.Expr) monomial {
	if c, ok := e.Const(); ok {
		return monomial{coef: m.coef * c, factors: m.factors, affine: m.affine}
	}
	out := monomial{coef: m.coef, factors: append(append([]string(nil), m.factors...), e.String())}
	if len(out.factors) == 1 {
		out.affine = &e
	}
	return out
}

// key names the factors in any order.
func (m monomial) key() string {
	f := append([]string(nil), m.factors...)
	sort.Strings(f)
	return strings.Join(f, "*")
}

func (m monomial) String() string {
	if m.coef == 0 || len(m.factors) == 0 {
		return strconv.FormatInt(m.coef, 10)
	}
	if len(m.factors) == 1 && m.affine != nil {
		return sizeexpr.Mul(*m.affine, m.coef).String()
	}
	parts := make([]string, 0, len(m.factors)+1)
	if m.coef != 1 {
		parts = append(parts, strconv.FormatInt(m.coef, 10))
	}
	for _, f := range m.factors {
		if strings.ContainsAny(f, " +-") && !strings.HasPrefix(f, "max(") && !strings.HasPrefix(f, "min(") {
			f = "(" + f + ")"
		}
		parts = append(parts, f)
	}
	return strings.Join(parts, "*")
}

// sumMonomials adds byte counts, gathering those with the same factors,
// in the order they first appear ("0" for none).
func sumMonomials(ms []monomial) string {
	var order []string
	byKey := map[string]*monomial{}
	for _, m := range ms {
		if prev, ok := byKey[m.key()]; ok {
			prev.coef += m.coef
			continue
		}
		c := m
		byKey[m.key()] = &c
		order = append(order, m.key())
	}
	var parts []string
	for _, k := range order {
		if byKey[k].coef != 0 {
			parts = append(parts, byKey[k].String())
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " + ")
}

// eval records the expression of an integer host op when it has one.
func (s *symbolic) eval(op *ir.Operation) {
	r := op.Results[0]
	args := make([]sizeexpr.Expr, len(op.Operands))
	known := true
	for i, v := range op.Operands {
		if _, isMem := v.Type.(ir.MemRefType); isMem {
			continue
		}
		e, ok := s.exprs[v]
		args[i] = e
		known = known && ok
	}
	set := func(e sizeexpr.Expr) { s.exprs[r] = e }
	constDiv := func(f func(sizeexpr.Expr, int64) (sizeexpr.Expr, error)) {
		if c, ok := args[1].Const(); ok && c > 0 {
			if e, err := f(args[0], c); err == nil {
				set(e)
			}
		}
	}
	switch op.Def {
	case arith.Constant:
		if a, ok := op.Attr(arith.AttrValue).(ir.IntegerAttr); ok {
			set(sizeexpr.Const(a.Value))
		}
	case memref.Dim:
		c, ok := constOperand(op.Operands[1])
		if a := s.h.argOf(op.Operands[0]); ok && a != nil && int(c) < len(a.Dims) {
			if a.Known[c] {
				set(s.named(a.Extents[c]))
			} else {
				set(sizeexpr.Sym(fmt.Sprintf("?_%s_%s", a.Name, a.Dims[c]), 0))
			}
		}
	}
	if !known {
		return
	}
	switch op.Def {
	case arith.AddI:
		set(sizeexpr.Add(args[0], args[1]))
	case arith.SubI:
		set(sizeexpr.Sub(args[0], args[1]))
	case arith.MulI:
		if e, err := sizeexpr.MulExpr(args[0], args[1]); err == nil {
			set(e)
		}
	case arith.MaxSI:
		set(sizeexpr.Max(args[0], args[1]))
	case arith.MinSI:
		set(sizeexpr.Min(args[0], args[1]))
	case arith.FloorDivSI:
		constDiv(sizeexpr.FloorDiv)
	case arith.CeilDivSI:
		constDiv(sizeexpr.CeilDiv)
	case arith.IndexCast, arith.ExtSI:
		set(args[0])
	case arith.CmpI:
		p, _ := op.Attr(arith.AttrPredicate).(ir.IntegerAttr)
		if int(p.Value) < len(arith.CmpIPredicates) {
			s.text[r] = fmt.Sprintf("%s %s %s", args[0], cmpOps[arith.CmpIPredicates[p.Value]], args[1])
		}
	}
	if op.Is(arith.AndI, arith.OrI) {
		x, y := s.text[op.Operands[0]], s.text[op.Operands[1]]
		if x != "" && y != "" {
			sep := " && "
			if op.Is(arith.OrI) {
				sep = " || "
			}
			s.text[r] = "(" + x + sep + y + ")"
		}
	}
}

// named replaces the map symbols s_i of an extent by the symbols' names.
func (s *symbolic) named(e sizeexpr.Expr) sizeexpr.Expr {
	return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
		if i := v.Order - 1000; v.Kind == sizeexpr.SymbolVar && i >= 0 && i < len(s.h.sig.SymArgs) {
			return sizeexpr.Sym(s.h.sig.SymName(i), 0), true
		}
		return sizeexpr.Expr{}, false
	})
}

func (s *symbolic) formula(v *ir.Value) string {
	if e, ok := s.exprs[v]; ok {
		return e.String()
	}
	return "?"
}

func (s *symbolic) cond(v *ir.Value) string {
	if t, ok := s.text[v]; ok {
		return t
	}
	return "?"
}

func (s *symbolic) kernel(op *ir.Operation) (*launchKernel, error) {
	_, name := gpu.LaunchKernel(op)
	k := &launchKernel{Name: name, Parameters: []launchParamJ{}}
	grid, block := gpu.LaunchGrid(op), gpu.LaunchBlock(op)
	for d := 0; d < 3; d++ {
		k.Grid[d] = s.formula(grid[d])
		c, ok := constOperand(block[d])
		if !ok {
			return nil, ir.Errorf(op.Loc, "%s: the block size must be constant", gpu.LaunchFunc.Name)
		}
		k.Block[d] = c
	}
	params, err := s.h.launchParams(op)
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		j := launchParamJ{Name: p.name, Type: "int64"}
		if p.piece.Kind == abi.ParamPtr {
			j.Type = "pointer"
		}
		j.Value = s.paramSource(p)
		k.Parameters = append(k.Parameters, j)
	}
	return k, nil
}

// paramSource says where a launch parameter's value comes from.
func (s *symbolic) paramSource(p launchParam) string {
	if p.piece.Kind == abi.ParamScalar {
		return s.formula(p.value)
	}
	mt := p.value.Type.(ir.MemRefType)
	if a := s.h.argOf(p.value); a != nil {
		switch p.piece.Kind {
		case abi.ParamPtr:
			if len(mt.Shape) == 0 {
				return a.Name
			}
			return a.Name + ".aligned"
		case abi.ParamOffset:
			return a.Name + ".offset"
		case abi.ParamSize:
			return fmt.Sprintf("%s.sizes[%d]", a.Name, p.piece.Dim)
		}
		return fmt.Sprintf("%s.strides[%d]", a.Name, p.piece.Dim)
	}
	t := s.temps[p.value]
	if t == nil {
		return "?"
	}
	switch p.piece.Kind {
	case abi.ParamPtr:
		return t.Name
	case abi.ParamOffset:
		return "0"
	case abi.ParamSize:
		return t.Sizes[p.piece.Dim]
	}
	// Row-major strides of a contiguous temporary.
	var factors []string
	for d := p.piece.Dim + 1; d < len(t.Sizes); d++ {
		factors = append(factors, t.Sizes[d])
	}
	if len(factors) == 0 {
		return "1"
	}
	if len(factors) == 1 {
		return factors[0]
	}
	return "(" + strings.Join(factors, ")*(") + ")"
}

// uniqueName names a temporary after its value, made distinct from the
// temporaries before it (tmp, tmp_1, ...).
func uniqueName(hint string, before []launchTemp) string {
	if hint == "" {
		hint = "tmp"
	}
	taken := map[string]bool{}
	for _, t := range before {
		taken[t.Name] = true
	}
	name := hint
	for i := 1; taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", hint, i)
	}
	return name
}
