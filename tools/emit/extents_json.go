package emit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// ExtentsJSONVersion is the "version" of the --emit=extents-json format
// (docs/tools.md); it changes when a field changes meaning or goes away.
const ExtentsJSONVersion = 1

// Quantity is one bound or width of the JSON form: the expression as the
// text form prints it and, when it has no unbound symbol, its value.
type Quantity struct {
	Expr  string `json:"expr"`
	Value *int64 `json:"value,omitempty"`
}

// JSONInterval is a half-open interval [lo:hi].
type JSONInterval struct {
	Lo Quantity `json:"lo"`
	Hi Quantity `json:"hi"`
}

// JSONOutputDim is one dimension of a function's output domain.
type JSONOutputDim struct {
	Dim string `json:"dim"`
	JSONInterval
}

// JSONDim is how one dimension of an argument is read.
type JSONDim struct {
	Dim string `json:"dim"`
	// Kind is "halo" (the points read move with the output dimension
	// Along: Below ghost points before the output's first point, Above
	// after its last), "fixed" (a reduced or local dimension, or one read
	// at a scaled index: Reads is read whatever part of the output is
	// computed) or "unbounded" (Reason "gather", "compress" or "call").
	Kind   string    `json:"kind"`
	Along  string    `json:"along,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Below  *Quantity `json:"below,omitempty"`
	Above  *Quantity `json:"above,omitempty"`
	// Reads is every point read for the whole output domain.
	Reads JSONInterval `json:"reads"`
	// Declared is the interval of the argument's type: what the
	// descriptor must hold (the ABI checks the extent).
	Declared JSONInterval `json:"declared"`
}

// JSONArg is one argument of a function.
type JSONArg struct {
	Name     string `json:"name"`
	Position int    `json:"position"`
	Element  string `json:"element"`
	// Status is "read", "not read" (no element is read) or "scalar" (a
	// 0-d argument that is read).
	Status string    `json:"status"`
	Dims   []JSONDim `json:"dims"`
}

// JSONFunc is the extent analysis of one tir.func.
type JSONFunc struct {
	Name string `json:"name"`
	// Symbols are the size symbols in the order of the compiled
	// function's trailing int64_t parameters (docs/abi.md).
	Symbols []string        `json:"symbols"`
	Output  []JSONOutputDim `json:"output"`
	Args    []JSONArg       `json:"args"`
}

// JSONExtents is the document --emit=extents-json prints.
type JSONExtents struct {
	Version int `json:"version"`
	// Sizes are the symbol values given with --size, which the values
	// of the quantities use.
	Sizes     map[string]int64 `json:"sizes"`
	Functions []JSONFunc       `json:"functions"`
}

// ExtentsJSON prints the extent analysis of every tir.func of the module
// as JSON (docs/tools.md, "--emit=extents-json"). sizes binds size symbols
// to values: every quantity whose symbols are all bound (or that has none)
// gets its value. A name in sizes that is a size symbol of no function is
// an error.
func ExtentsJSON(m *ir.Module, sizes map[string]int64) (string, error) {
	fns, err := tirFuncs(inlinedCopy(m))
	if err != nil {
		return "", err
	}
	doc := JSONExtents{Version: ExtentsJSONVersion, Sizes: map[string]int64{}, Functions: []JSONFunc{}}
	for k, v := range sizes {
		doc.Sizes[k] = v
	}
	known := map[string]bool{}
	for _, fn := range fns {
		fe, err := Analyze(fn)
		if err != nil {
			return "", err
		}
		jf := fe.toJSON(sizes)
		for _, v := range tir.Symbols(fn) {
			jf.Symbols = append(jf.Symbols, v.Name)
			known[v.Name] = true
		}
		doc.Functions = append(doc.Functions, jf)
	}
	var unknown []string
	for k := range sizes {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "", &SizeError{Names: unknown}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	return indentJSON(b, jsonWidth)
}

// SizeError reports --size names that are no size symbol of the module.
type SizeError struct{ Names []string }

func (e *SizeError) Error() string {
	if len(e.Names) == 1 {
		return fmt.Sprintf("--size: %s is not a size symbol of the module", e.Names[0])
	}
	return fmt.Sprintf("--size: %s are not size symbols of the module", strings.Join(e.Names, ", "))
}

func (fe *FuncExtents) toJSON(sizes map[string]int64) JSONFunc {
	q := func(e sizeexpr.Expr) Quantity {
		e = sizeexpr.Simplify(e)
		out := Quantity{Expr: e.String()}
		v, err := e.Eval(func(v sizeexpr.Var) (int64, bool) {
			if v.Kind != sizeexpr.SymbolVar {
				return 0, false
			}
			x, ok := sizes[v.Name]
			return x, ok
		})
		if err == nil {
			out.Value = &v
		}
		return out
	}
	iv := func(i sizeexpr.Interval) JSONInterval { return JSONInterval{Lo: q(i.Lo), Hi: q(i.Hi)} }
	jf := JSONFunc{Name: fe.Name, Symbols: []string{}, Output: []JSONOutputDim{}, Args: []JSONArg{}}
	for _, d := range fe.Output {
		jf.Output = append(jf.Output, JSONOutputDim{Dim: d.Name, JSONInterval: iv(d.Interval)})
	}
	for i, ae := range fe.Args {
		ja := JSONArg{Name: ae.Name, Position: i, Element: ae.Type.Elem.String(), Dims: []JSONDim{}}
		switch {
		case !ae.IsRead:
			ja.Status = "not read"
		case len(ae.Dims) == 0:
			ja.Status = "scalar"
		default:
			ja.Status = "read"
		}
		for k, d := range ae.Dims {
			jd := JSONDim{Dim: d.Name, Declared: iv(ae.Type.Dims[k].Interval), Reads: iv(d.Interval)}
			switch {
			case d.Unbounded != "":
				jd.Kind, jd.Reason = "unbounded", d.Unbounded
			case !d.InOutput:
				jd.Kind = "fixed"
			default:
				// Ghost points: the text form's -LO and HI.
				below, above := q(sizeexpr.Neg(d.Below)), q(d.Above)
				jd.Kind, jd.Along, jd.Below, jd.Above = "halo", d.Along, &below, &above
			}
			ja.Dims = append(ja.Dims, jd)
		}
		jf.Args = append(jf.Args, ja)
	}
	return jf
}
