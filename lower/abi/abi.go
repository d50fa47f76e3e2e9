// Package abi describes the C ABI of a lowered function (spec 5.1) as data:
// which arguments are descriptors, scalars and size symbols, the extents
// each descriptor must have, and the entry checks with their error codes
// and messages. The CPU lowering (tollvm, in LLVM IR) and the CUDA host
// wrapper (cudahost, in C) both implement the ABI from this description,
// so a wrong argument gets the same code and message from either.
package abi

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// The attributes of a lowered func.func the ABI reads, all optional. The
// tir lowering writes them:
//
//	tir.arg_names   = ["inp", "out", "N"]          one StringAttr per argument
//	tir.dim_names   = [["I", "J"], ["I"], []]      one ArrayAttr of StringAttr per argument
//	tir.extents     = [affine_map<()[s0] -> (s0 + 2)>, ..., unit]
//	                  one AffineMapAttr per argument (unit or an empty map for
//	                  non-memrefs) giving the expected extent of each
//	                  dimension; symbol s_i is the i-th of the function's
//	                  trailing index arguments; an entry with a min or
//	                  max (which affine_map cannot spell) is an array of
//	                  one string per dimension, ["s0", "min(s0, s1) - 1"]
//	                  (ExtentsAttr)
//	tir.num_results = 1 : i64                      the last k memref arguments are results
const (
	AttrArgNames   = "tir.arg_names"
	AttrDimNames   = "tir.dim_names"
	AttrExtents    = "tir.extents"
	AttrNumResults = "tir.num_results"
)

// Data-dependent extents (tir.iota, tir.compress; docs/abi.md):
//
//	tir.result_shape_of = "f"   on the func.func f_result_shape_data: it
//	                              has f's inputs, one memref<K x i64> result
//	                              (f's K result extents) and f's size
//	                              parameters, and is emitted as
//	                              int32_t f_result_shape_data(inputs...,
//	                              int64_t syms..., int64_t *sizes), sharing
//	                              f's error codes and f_error
//	tir.data_extent = "?_r_I"   on the op that computes the extent ?_r_I
//	                              from data (GPU targets refuse it)
const (
	AttrShapeOf    = "tir.result_shape_of"
	AttrDataExtent = "tir.data_extent"
)

// ShapeDataSuffix names a function's shape function: f_result_shape_data.
const ShapeDataSuffix = "_result_shape_data"

// AssertCodeBase numbers the failure codes of the run-time checks inside a
// function (cf.assert): the first is AssertCodeBase + 1, after the codes
// of the entry checks (1, 2, ...).
const AssertCodeBase = 1000

// CodeAllocFailed is the status code of a call that could not allocate a
// temporary (a buffer the compiled code allocates itself: tir-temporaries'
// values, scan columns and slabs, packed panels, a memref.alloc of the
// input; on GPU targets the host wrapper's device buffers): its byte count
// overflows 64 bits or the allocator returned NULL. The CPU build and the
// CUDA host wrapper return the same code, and f_error says which
// temporary and how many bytes (AllocFailFormat). It is fixed, unlike the
// numbered checks, so a caller can tell "out of memory" from a wrong
// argument without parsing the message.
const CodeAllocFailed = 2004

// AllocFailStatic is f_error's message for CodeAllocFailed when another
// failure happened since.
const AllocFailStatic = "cannot allocate a temporary (out of memory, or its size overflows)"

// AllocFailFormat and AllocOverflowFormat are the printf formats of an
// allocation failure: the temporary's name (its value name, then where
// the program defines it, as AllocName makes it) and its byte count, or
// the name alone when the count does not fit in 63 bits. 2^63 bytes is no
// bound a machine reaches; saying it rather than printing a wrapped
// count keeps the message true.
const (
	AllocFailFormat     = "cannot allocate temporary %s: %lld bytes"
	AllocOverflowFormat = "cannot allocate temporary %s: 2^63 bytes or more"
)

// AllocName names a temporary in AllocFailFormat: 'hint' and, when loc is
// known, the base name of its file, line and column (the lowering names
// most temporaries after their role, tmp or column, so the place says
// which one).
func AllocName(hint string, loc ir.Location) string {
	if hint == "" {
		hint = "tmp"
	}
	name := "'" + hint + "'"
	if loc.Known() {
		name += fmt.Sprintf(" (%s:%d:%d)", filepath.Base(loc.File), loc.Line, loc.Col)
	}
	return name
}

// ErrBufSize is the size of the buffer f_error's messages are formatted in.
const ErrBufSize = 256

// Arg describes one function argument.
type Arg struct {
	Index int
	Name  string
	Dims  []string // dimension names of a memref
	Type  ir.Type
	Mem   *ir.MemRefType // nil for scalars
	// Extents are the expected sizes of a memref's dimensions: the static
	// size, or tir.extents' expression over the symbols ir.MapSym(i),
	// never below 0 (an inverted interval is empty); Known
	// is false for a dynamic size without tir.extents (unchecked).
	Extents []sizeexpr.Expr
	Known   []bool
}

// Signature is the ABI view of a function.
type Signature struct {
	Name       string
	Args       []*Arg
	SymArgs    []int // the trailing index arguments: symbol i is Args[SymArgs[i]]
	NumResults int
}

// SymName is the printed name of symbol i (for messages).
func (s *Signature) SymName(i int) string { return s.Args[s.SymArgs[i]].Name }

// Results are the result memrefs, in order.
func (s *Signature) Results() []*Arg {
	var mems []*Arg
	for _, a := range s.Args {
		if a.Mem != nil {
			mems = append(mems, a)
		}
	}
	return mems[len(mems)-s.NumResults:]
}

// Read collects the argument types of a func.func and its tir.* attributes.
func Read(op *ir.Operation, name string, inputs []ir.Type) (*Signature, error) {
	sig := &Signature{Name: name}
	argNames, _ := op.Attr(AttrArgNames).(ir.ArrayAttr)
	dimNames, _ := op.Attr(AttrDimNames).(ir.ArrayAttr)
	var extents ir.ArrayAttr
	if a := op.Attr(AttrExtents); a != nil {
		var ok bool
		if extents, ok = a.(ir.ArrayAttr); !ok || len(extents) != len(inputs) {
			return nil, ir.Errorf(op.Loc, "%s must be an array with one entry per argument", AttrExtents)
		}
	}
	for i := len(inputs) - 1; i >= 0; i-- {
		if _, ok := inputs[i].(ir.IndexType); !ok {
			break
		}
		sig.SymArgs = append([]int{i}, sig.SymArgs...)
	}
	for i, t := range inputs {
		a := &Arg{Index: i, Name: fmt.Sprintf("arg%d", i), Type: t}
		if i < len(argNames) {
			if s, ok := argNames[i].(ir.StringAttr); ok && s != "" {
				a.Name = string(s)
			}
		}
		sig.Args = append(sig.Args, a)
		mt, isMem := t.(ir.MemRefType)
		if !isMem {
			continue
		}
		a.Mem = &mt
		var dn ir.ArrayAttr
		if i < len(dimNames) {
			dn, _ = dimNames[i].(ir.ArrayAttr)
		}
		var em *ir.AffineMap
		if extents != nil {
			entry := extents[i]
			if texts, ok := entry.(ir.ArrayAttr); ok && len(texts) > 0 {
				m, err := extentsFromText(texts)
				if err != nil {
					return nil, ir.Errorf(op.Loc, "%s entry of argument '%s': %v", AttrExtents, a.Name, err)
				}
				entry = ir.AffineMapAttr{Map: m}
			}
			if m, ok := entry.(ir.AffineMapAttr); ok {
				em = &m.Map
				if em.NumDims != 0 || len(em.Results) != len(mt.Shape) || em.NumSyms > len(sig.SymArgs) {
					return nil, ir.Errorf(op.Loc, "%s entry %s of argument '%s' must have no dims, at most %d symbols and %d results", AttrExtents, m, a.Name, len(sig.SymArgs), len(mt.Shape))
				}
			}
		}
		for d, s := range mt.Shape {
			dname := fmt.Sprintf("d%d", d)
			if d < len(dn) {
				if s, ok := dn[d].(ir.StringAttr); ok && s != "" {
					dname = string(s)
				}
			}
			a.Dims = append(a.Dims, dname)
			switch {
			case s != ir.Dynamic:
				a.Extents = append(a.Extents, sizeexpr.Const(s))
				a.Known = append(a.Known, true)
			case em != nil:
				// An interval whose upper bound is below its lower bound is
				// empty (I[1:N-1] with N = 1): its extent is never negative.
				a.Extents = append(a.Extents, sizeexpr.Max(em.Results[d], sizeexpr.Const(0)))
				a.Known = append(a.Known, true)
			default:
				a.Extents = append(a.Extents, sizeexpr.Expr{})
				a.Known = append(a.Known, false)
			}
		}
	}
	if a, ok := op.Attr(AttrNumResults).(ir.IntegerAttr); ok {
		sig.NumResults = int(a.Value)
	}
	nmem := 0
	for _, a := range sig.Args {
		if a.Mem != nil {
			nmem++
		}
	}
	if sig.NumResults < 0 || sig.NumResults > nmem {
		return nil, ir.Errorf(op.Loc, "%s = %d but the function has %d memref arguments", AttrNumResults, sig.NumResults, nmem)
	}
	return sig, nil
}

// ExtentsAttr is the tir.extents entry of a memref argument whose
// dimensions have the extents of m (over symbols only): the map itself, or,
// when a result has a min or max, which MLIR's affine maps cannot express
// (mlir-opt would reject the attribute), one string per dimension.
func ExtentsAttr(m ir.AffineMap) ir.Attribute {
	affine := true
	for _, r := range m.Results {
		affine = affine && r.IsAffine()
	}
	if affine {
		return ir.AffineMapAttr{Map: m}
	}
	texts := ir.ArrayAttr{}
	for _, r := range m.Results {
		texts = append(texts, ir.StringAttr(r.String()))
	}
	return texts
}

// extentsFromText reads ExtentsAttr's string form back as a map over the
// symbols s0, s1, ...
func extentsFromText(texts ir.ArrayAttr) (ir.AffineMap, error) {
	m := ir.AffineMap{}
	for _, t := range texts {
		s, ok := t.(ir.StringAttr)
		if !ok {
			return ir.AffineMap{}, fmt.Errorf("expected strings, found %s", t)
		}
		e, err := sizeexpr.Parse(string(s), func(name string) (sizeexpr.Expr, bool) {
			if !strings.HasPrefix(name, "s") {
				return sizeexpr.Expr{}, false
			}
			i, err := strconv.Atoi(name[1:])
			if err != nil || i < 0 {
				return sizeexpr.Expr{}, false
			}
			m.NumSyms = max(m.NumSyms, i+1)
			return ir.MapSym(i), true
		})
		if err != nil {
			return ir.AffineMap{}, err
		}
		m.Results = append(m.Results, e)
	}
	return m, nil
}

// ExprText prints an extent expression with the symbols named after their
// arguments (N + 2).
func (s *Signature) ExprText(e sizeexpr.Expr) string {
	named := e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
		if i := v.Order - 1000; v.Kind == sizeexpr.SymbolVar && i >= 0 && i < len(s.SymArgs) {
			return sizeexpr.Sym(s.SymName(i), v.Order), true
		}
		return sizeexpr.Expr{}, false
	})
	return named.String()
}

// CheckKind says what an entry check compares.
type CheckKind int

const (
	// CheckExtent: sizes[Dim] of the descriptor equals Arg.Extents[Dim].
	CheckExtent CheckKind = iota
	// CheckUnitStride: strides[Dim] (the innermost) is 1.
	CheckUnitStride
	// CheckNonNull: the aligned pointer of a tensor with an element is not
	// NULL (for a 0-d tensor, the pointer itself). Empty tensors may have
	// any pointer: nothing is read or written through it.
	CheckNonNull
)

// EntryCheck is one check a compiled function makes on a descriptor before
// it does anything else; a failure returns Code, and f_error(Code) returns
// the message: Format filled with the run-time values (printf, each %lld an
// int64), or Static when asked about a code that is not the last failure.
type EntryCheck struct {
	Code int
	Kind CheckKind
	Arg  *Arg
	Dim  int
	// Static is the message without run-time values.
	Static string
	// Format is a printf format with %% escaped; its %lld take, in order:
	// for CheckExtent with a static extent, the actual size; with a
	// symbolic extent, the expected value then the actual size; for
	// CheckUnitStride, the actual stride; CheckNonNull takes none.
	Format string
	// Symbolic is true for an extent that depends on symbols (its value is
	// printed as well).
	Symbolic bool
}

// EntryChecks lists the checks in the order a compiled function runs them,
// numbered from 1: for each memref argument of rank > 0, each dimension
// with a known extent, then its innermost stride; then, for each memref
// argument, its pointer (CheckNonNull). The pointer checks come last so
// that the codes of the others stay what they were before there were
// pointer checks, and so that the sizes they read have been checked.
func (s *Signature) EntryChecks() []EntryCheck {
	var checks []EntryCheck
	for _, a := range s.Args {
		if a.Mem == nil || len(a.Mem.Shape) == 0 {
			continue
		}
		for d := range a.Mem.Shape {
			if !a.Known[d] {
				continue
			}
			what := fmt.Sprintf("argument '%s' dimension %s: expected extent ", a.Name, a.Dims[d])
			c := EntryCheck{Code: len(checks) + 1, Kind: CheckExtent, Arg: a, Dim: d}
			if _, static := a.Extents[d].Const(); static {
				c.Static = what + a.Extents[d].String()
				c.Format = EscapePercent(c.Static) + ", got %lld"
			} else {
				c.Static = what + s.ExprText(a.Extents[d])
				c.Format = EscapePercent(c.Static) + " = %lld, got %lld"
				c.Symbolic = true
			}
			checks = append(checks, c)
		}
		last := len(a.Mem.Shape) - 1
		c := EntryCheck{Code: len(checks) + 1, Kind: CheckUnitStride, Arg: a, Dim: last,
			Static: fmt.Sprintf("argument '%s' dimension %s: innermost stride must be 1", a.Name, a.Dims[last])}
		c.Format = EscapePercent(c.Static) + ", got %lld"
		checks = append(checks, c)
	}
	for _, a := range s.Args {
		if a.Mem == nil {
			continue
		}
		c := EntryCheck{Code: len(checks) + 1, Kind: CheckNonNull, Arg: a,
			Static: fmt.Sprintf("argument '%s': aligned pointer is NULL and the tensor is not empty", a.Name)}
		if len(a.Mem.Shape) == 0 {
			c.Static = fmt.Sprintf("argument '%s': NULL pointer", a.Name)
		}
		c.Format = EscapePercent(c.Static)
		checks = append(checks, c)
	}
	return checks
}

// EscapePercent escapes s for use as a printf format.
func EscapePercent(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// BodyParam is one scalar a memref or scalar argument passes to the code
// that computes with it (the CPU function body, a GPU kernel).
type BodyParam struct {
	Kind BodyParamKind
	Dim  int
}

// BodyParamKind names the pieces of a descriptor that are passed.
type BodyParamKind int

const (
	ParamScalar BodyParamKind = iota // a scalar argument, as is
	ParamPtr                         // the aligned pointer
	ParamOffset                      // the offset, in elements
	ParamSize                        // the size of a dynamic dimension
	ParamStride                      // the stride of a dimension other than the innermost
)

// BodyParams lists the parameters derived from an argument of type t: a
// scalar as is; a memref as its aligned pointer, its offset, the sizes of
// its dynamic dimensions and the strides of all but the innermost
// dimension (which the entry checks fix to 1). Static sizes and the unit
// stride are constants in the body, which lets the code generator fold
// address arithmetic.
func BodyParams(t ir.Type) []BodyParam {
	mt, ok := t.(ir.MemRefType)
	if !ok {
		return []BodyParam{{Kind: ParamScalar}}
	}
	n := len(mt.Shape)
	if n == 0 {
		return []BodyParam{{Kind: ParamPtr}}
	}
	ps := []BodyParam{{Kind: ParamPtr}, {Kind: ParamOffset}}
	for d, s := range mt.Shape {
		if s == ir.Dynamic {
			ps = append(ps, BodyParam{Kind: ParamSize, Dim: d})
		}
	}
	for d := 0; d < n-1; d++ {
		ps = append(ps, BodyParam{Kind: ParamStride, Dim: d})
	}
	return ps
}
