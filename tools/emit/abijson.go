package emit

import (
	"encoding/json"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// ABIJSONVersion is the "abi_version" of the --emit=abi-json format
// (docs/abi.md); it changes when a field changes meaning or goes away, so
// that a reader (the Python package) can refuse a document it does not
// know rather than misread it.
const ABIJSONVersion = 1

// ABIDim is one dimension of a tensor parameter: its name and interval
// [Lo:Hi], and Size, the extent sizes[d] must hold (Hi - Lo, or max(Hi -
// Lo, 0) when the interval may be inverted). The expressions are written
// as sizeexpr prints them, with the tir names of the size symbols (N, not
// a C parameter name) and ?_ARG_DIM for an unknown extent.
type ABIDim struct {
	Name string `json:"name"`
	Lo   string `json:"lo"`
	Hi   string `json:"hi"`
	Size string `json:"size"`
}

// ABIParam is one tensor argument or result, in ABI order.
type ABIParam struct {
	// Name is the tir name of an argument (%int is "int") or the
	// lowering's name of a result ("result", "result0", ...); CName is
	// the parameter's name in the C header ("int_").
	Name  string `json:"name"`
	CName string `json:"c_name"`
	// Role is "input" (a const descriptor the function never writes) or
	// "result".
	Role string `json:"role"`
	// Elem is the tir element type (f32, i1, bf16), CType the C type of
	// one element in the buffer (abi.CTypeOf: uint8_t for i1, the bits in
	// uint16_t for f16 and bf16). A tensor with dimensions is passed as a
	// pointer to a descriptor (tir_desc_<elem>_<rank>), a 0-d tensor as a
	// pointer to its element.
	Elem  string   `json:"elem"`
	CType string   `json:"c_type"`
	Dims  []ABIDim `json:"dims"`
}

// ABISymbol is one int64_t size parameter, in ABI order (after the
// tensors).
type ABISymbol struct {
	Name  string `json:"name"`
	CName string `json:"c_name"`
}

// ABIUnknown is an extent written `?` in the source: not a parameter, the
// compiled code reads it from the input Arg's descriptor (dimension Dim,
// at Index) as its lower bound plus sizes[Index].
type ABIUnknown struct {
	Name  string `json:"name"`
	Arg   string `json:"arg"`
	Dim   string `json:"dim"`
	Index int    `json:"index"`
}

// ABIFunc is the C ABI of one tir.func.
type ABIFunc struct {
	Name string `json:"name"`
	// Symbol is the object file's symbol of f (the header declares abs as
	// tir_abs with an asm label naming the symbol abs).
	Symbol string `json:"symbol"`
	// Args, then Results, then SizeSymbols are f's parameters.
	Args        []ABIParam  `json:"args"`
	Results     []ABIParam  `json:"results"`
	SizeSymbols []ABISymbol `json:"size_symbols"`
	// ErrorFunction is f_error(code); ResultShapeFunction f_result_shape
	// (size symbols, then int64_t *sizes); ResultShapeDataFunction
	// f_result_shape_data (inputs, size symbols, sizes), only for a
	// function with a result extent computed from data (tir.compress,
	// tir.iota), else null.
	ErrorFunction           string       `json:"error_function"`
	ResultShapeFunction     string       `json:"result_shape_function"`
	ResultShapeDataFunction *string      `json:"result_shape_data_function"`
	UnknownExtents          []ABIUnknown `json:"unknown_extents"`
}

// ABIDoc is the document --emit=abi-json prints.
type ABIDoc struct {
	Version   int       `json:"abi_version"`
	Functions []ABIFunc `json:"functions"`
}

// ABIJSON prints the C ABI of every tir.func of the module (what CHeader
// declares) as JSON, for programs that call the compiled functions
// without parsing C: docs/abi.md, "--emit=abi-json".
func ABIJSON(m *ir.Module) (string, error) {
	fns, err := tirFuncs(m)
	if err != nil {
		return "", err
	}
	doc := ABIDoc{Version: ABIJSONVersion, Functions: []ABIFunc{}}
	for _, fn := range fns {
		s, err := newCSig(fn)
		if err != nil {
			return "", err
		}
		doc.Functions = append(doc.Functions, s.abiJSON())
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	return indentJSON(b, jsonWidth)
}

func (s *cSig) abiJSON() ABIFunc {
	f := ABIFunc{Name: s.name, Symbol: s.name,
		Args: []ABIParam{}, Results: []ABIParam{}, SizeSymbols: []ABISymbol{},
		ErrorFunction: s.name + "_error", ResultShapeFunction: s.name + "_result_shape",
		UnknownExtents: []ABIUnknown{}}
	if s.shapeData {
		name := s.name + "_result_shape_data"
		f.ResultShapeDataFunction = &name
	}
	expr := func(e sizeexpr.Expr) string { return e.String() }
	unknown := map[string]bool{}
	nin, nout := 0, 0
	for _, p := range s.params {
		if p.symbol {
			f.SizeSymbols = append(f.SizeSymbols, ABISymbol{Name: p.sym, CName: p.name})
			continue
		}
		jp := ABIParam{CName: p.name, Elem: p.t.Elem.String(), CType: p.elem.Name, Dims: []ABIDim{}}
		for _, d := range p.t.Dims {
			jp.Dims = append(jp.Dims, ABIDim{Name: d.Name, Lo: expr(d.Lo), Hi: expr(d.Hi), Size: expr(d.Size())})
			for _, v := range append(d.Lo.Vars(), d.Hi.Vars()...) {
				if tir.IsUnknownExtent(v) {
					unknown[v.Name] = true
				}
			}
		}
		if p.input {
			jp.Name, jp.Role = s.argNames[nin], "input"
			f.Args = append(f.Args, jp)
			nin++
		} else {
			jp.Name, jp.Role = resultName(nout, len(s.outs)), "result"
			f.Results = append(f.Results, jp)
			nout++
		}
	}
	for _, v := range sortedKeys(unknown) {
		if s.data[v] != nil {
			continue // computed from data: f_result_shape_data gives it
		}
		cname, dim := s.splitUnknown(v)
		for i, p := range s.params[:len(s.ins)] {
			if p.name != cname {
				continue
			}
			if k := s.ins[i].Find(dim); k >= 0 {
				f.UnknownExtents = append(f.UnknownExtents, ABIUnknown{Name: v, Arg: s.argNames[i], Dim: dim, Index: k})
			}
		}
	}
	return f
}
