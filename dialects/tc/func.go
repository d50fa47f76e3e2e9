package tc

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// body is one function body being imported: a def as its own tir.func, or
// a callee inlined into its caller's block (call.go).
type body struct {
	im    *importer
	fn    *Func
	blk   *ir.Block
	names *names
	// sizes maps each size variable to its expression: a size symbol in
	// the function's own tir.func, the caller's extent when inlined.
	sizes map[string]sizeexpr.Expr
	// vals is the current value of every tensor: inputs, and outputs and
	// temporaries once a statement defined them.
	vals    map[string]*tensor
	outputs map[string]*Param
	// incoming gives the contents of an output on entry, for a statement
	// that accumulates into it (`+=` without `!`) before any defines it:
	// the tensor's value as the statement at loc needs it (want are its
	// intervals, elem its element type), or an error.
	incoming func(name string, want []sizeexpr.Interval, elem ir.Type, loc ir.Location) (*ir.Value, error)
	// isIndex tells the index variables of the statement being imported.
	isIndex func(string) bool
	// types remembers typeOf until a tensor is defined.
	types map[Expr]etype
}

// tensor is the current value of a TC name.
type tensor struct {
	v      *ir.Value
	scalar bool // an argument `float c`: read as `c`, not `c()`
	input  bool // an argument: never assigned
}

func (t *tensor) typ() tir.TensorType {
	tt, _ := tir.AsTensor(t.v.Type)
	return tt
}

// names hands out SSA name hints unique in one tir.func.
type names struct{ used map[string]bool }

func (n *names) fresh(base string) string {
	name := base
	for i := 1; n.used[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	n.used[name] = true
	return name
}

// function imports a def as its own tir.func; nil on error (reported).
func (im *importer) function(f *Func) *ir.Operation {
	op := ir.NewOp("tir.func", f.Name.Loc, nil, nil, nil)
	b := &body{im: im, fn: f, blk: op.AddRegion().AddBlock(), names: &names{used: map[string]bool{}},
		sizes: map[string]sizeexpr.Expr{}, vals: map[string]*tensor{}, outputs: map[string]*Param{}}
	if err := b.signature(); err != nil {
		im.fail(err, f.Name.Loc)
		return nil
	}
	for _, p := range f.Params {
		t, scalar := b.paramType(p)
		v := b.blk.AddArg(t, b.names.fresh(p.Name.Name))
		v.Loc = p.Name.Loc
		b.vals[p.Name.Name] = &tensor{v: v, scalar: scalar, input: true}
	}
	b.incoming = b.incomingArg
	im.stack = append(im.stack, f.Name.Name)
	defer func() { im.stack = im.stack[:len(im.stack)-1] }()
	for _, s := range f.Stmts {
		if err := b.stmt(s); err != nil {
			im.fail(err, s.Pos())
			return nil
		}
	}
	results, err := b.results()
	if err != nil {
		im.fail(err, f.Name.Loc)
		return nil
	}
	var ins, outs []ir.Type
	for _, a := range b.blk.Args {
		ins = append(ins, a.Type)
	}
	var vals []*ir.Value
	for _, r := range results {
		vals = append(vals, r.v)
		outs = append(outs, r.t)
	}
	b.blk.Append(ir.NewOp("tir.return", f.Name.Loc, vals, nil, nil))
	op.Attrs = op.Attrs.With("sym_name", ir.StringAttr(f.Name.Name)).
		With("function_type", ir.TypeAttr{Type: ir.FunctionType{Inputs: ins, Results: outs}})
	return op
}

// signature checks the names of a def: distinct arguments and outputs,
// known scalar types, sizes that are not also tensors, and output sizes
// bound by the arguments. It binds the size variables to size symbols.
func (b *body) signature() error {
	f := b.fn
	seen := map[string]ir.Location{}
	for _, p := range append(append([]*Param(nil), f.Params...), f.Returns...) {
		if prev, dup := seen[p.Name.Name]; dup {
			return errorf(p.Name.Loc, "'%s' is declared twice in the signature of '%s'", p.Name.Name, f.Name.Name).
				AddNote(prev, "the first declaration is here")
		}
		seen[p.Name.Name] = p.Name.Loc
		if err := tirName(p.Name, "a tensor", false); err != nil {
			return err
		}
		if p.Type != nil {
			if _, ok := scalarTypes[p.Type.Scalar.Name]; !ok {
				return errorf(p.Type.Scalar.Loc, "unknown type '%s' (expected one of %s)", p.Type.Scalar.Name, scalarTypeNames())
			}
		}
	}
	for _, p := range f.Params {
		if p.Type == nil {
			continue
		}
		for _, s := range p.Type.Sizes {
			if _, ok := b.sizes[s.Name]; !ok && !s.Const {
				b.sizes[s.Name] = b.im.sym(s.Name)
			}
		}
	}
	for _, p := range append(append([]*Param(nil), f.Params...), f.Returns...) {
		if p.Type == nil {
			continue
		}
		for _, s := range p.Type.Sizes {
			if s.Const {
				continue
			}
			if err := tirName(s.Ident, "a size", true); err != nil {
				return err
			}
			if _, tensorToo := seen[s.Name]; tensorToo {
				return errorf(s.Loc, "'%s' is used both as a size and as a tensor name", s.Name)
			}
			if _, ok := b.sizes[s.Name]; !ok {
				return errorf(s.Loc, "size '%s' of output '%s' is not a size of any argument", s.Name, p.Name.Name)
			}
		}
	}
	for _, r := range f.Returns {
		b.outputs[r.Name.Name] = r
		if r.Type != nil && !r.Type.Tensor {
			return errorf(r.Name.Loc, "output '%s' must be a tensor: write %s() for a 0-d output", r.Name.Name, r.Type.Scalar.Name)
		}
	}
	return nil
}

// paramType is the tir type of an argument or typed output:
// float(M, K) A is !tir.tensor<f32, A_0[0:M], A_1[0:K]>.
func (b *body) paramType(p *Param) (t tir.TensorType, scalar bool) {
	t.Elem = scalarTypes[p.Type.Scalar.Name]
	for k, s := range p.Type.Sizes {
		t.Dims = append(t.Dims, tir.Dim{Name: fmt.Sprintf("%s_%d", p.Name.Name, k), Interval: sizeexpr.Span(sizeexpr.Const(0), b.sizeOf(s))})
	}
	return t, !p.Type.Tensor
}

// incomingArg is how a def's own tir.func gets the incoming contents of an
// output: an extra argument named after the output, appended after the
// declared ones, with the intervals the first accumulating statement
// needs (or the declared sizes of a typed output).
func (b *body) incomingArg(name string, want []sizeexpr.Interval, elem ir.Type, loc ir.Location) (*ir.Value, error) {
	out, ok := b.outputs[name]
	if !ok {
		return nil, errorf(loc, "'%s' is accumulated into (an operator without '!') before any statement defines it; use %s to start from the identity", name, "'+=!'")
	}
	t := tir.TensorType{Elem: elem}
	for k, iv := range want {
		t.Dims = append(t.Dims, tir.Dim{Name: fmt.Sprintf("%s_%d", name, k), Interval: iv})
	}
	if out.Type != nil {
		dt, _ := b.paramType(out)
		if len(dt.Dims) != len(want) {
			return nil, errorf(loc, "output '%s' is declared with %d dimensions but written with %d", name, len(dt.Dims), len(want))
		}
		t = dt
	}
	v := b.blk.AddArg(t, b.names.fresh(name))
	v.Loc = out.Name.Loc
	return v, nil
}

// sizeOf is the extent a size of a type stands for: a constant, or the
// size variable's expression.
func (b *body) sizeOf(s Size) sizeexpr.Expr {
	if s.Const {
		return sizeexpr.Const(s.Value)
	}
	return b.sizes[s.Name]
}

type result struct {
	v *ir.Value
	t ir.Type
}

// results are the final values of the outputs; a typed output's declared
// sizes become the function's output domain ([0:size], named after the
// value's dimensions).
func (b *body) results() ([]result, error) {
	var out []result
	for _, r := range b.fn.Returns {
		cur, ok := b.vals[r.Name.Name]
		if !ok {
			return nil, errorf(r.Name.Loc, "output '%s' is never defined", r.Name.Name)
		}
		t := cur.typ()
		if r.Type != nil {
			dt, _ := b.paramType(r)
			if len(dt.Dims) != len(t.Dims) {
				return nil, errorf(r.Name.Loc, "output '%s' is declared with %d dimensions but defined with %d", r.Name.Name, len(dt.Dims), len(t.Dims))
			}
			for k := range dt.Dims {
				dt.Dims[k].Name = t.Dims[k].Name
				// A declared domain that provably exceeds the computed one
				// (constant sizes make it decidable) is an error here; an
				// undecided one is checked at run time.
				if in, decided := t.Dims[k].Contains(dt.Dims[k].Interval); !in && decided {
					return nil, errorf(r.Type.Sizes[k].Loc, "output '%s' is declared with %s in dimension %d, but its statements compute it only on %s", r.Name.Name, dt.Dims[k].Interval, k, t.Dims[k].Interval)
				}
			}
			v, err := b.cast(cur.v, dt.Elem, r.Name.Loc)
			if err != nil {
				return nil, err
			}
			out = append(out, result{v, dt})
			continue
		}
		out = append(out, result{cur.v, t})
	}
	return out, nil
}
