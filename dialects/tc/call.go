package tc

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// A TC function call `O1, O2 = f(A, B)` is inlined: f's statements are
// imported again into the caller's block, with f's arguments bound to the
// caller's values and f's size variables to the caller's extents, so
// range inference runs on the caller's sizes. An argument whose domain
// does not start at 0 (an output that kept its origin) is rebased by a
// view, since f indexes its arguments from 0; a size variable repeated in
// f's signature takes the extent of its first argument, and the others are
// asserted equal to it with tir.assume_shape (checked at run time unless
// provable).
// Warnings inside the callee were given for f's own tir.func and are not
// repeated; an error is reported in f with a note at the call.

func (b *body) call(c *Call) error {
	im := b.im
	callee, ok := im.funcs[c.Callee.Name]
	if !ok {
		if _, isTensor := b.vals[c.Callee.Name]; isTensor {
			return errorf(c.Callee.Loc, "'%s' is a tensor, not a TC function", c.Callee.Name)
		}
		return errorf(c.Callee.Loc, "unknown TC function '%s'", c.Callee.Name)
	}
	for _, f := range im.stack {
		if f == callee.Name.Name {
			return errorf(c.Callee.Loc, "recursive call of '%s' (TC functions cannot call themselves)", f)
		}
	}
	if im.ensure(callee) == nil {
		return errorf(c.Callee.Loc, "cannot inline '%s': it has errors", c.Callee.Name)
	}
	if len(c.Args) != len(callee.Params) {
		return errorf(c.Callee.Loc, "'%s' takes %d arguments, got %d", c.Callee.Name, len(callee.Params), len(c.Args))
	}
	if len(c.Outs) != len(callee.Returns) {
		return errorf(c.Outs[0].Loc, "'%s' has %d outputs, but the call assigns %d", c.Callee.Name, len(callee.Returns), len(c.Outs))
	}
	seen := map[string]bool{}
	for _, o := range c.Outs {
		if seen[o.Name] {
			return errorf(o.Loc, "'%s' is assigned twice by the call", o.Name)
		}
		seen[o.Name] = true
		if t, ok := b.vals[o.Name]; ok && t.input {
			return errorf(o.Loc, "cannot assign to argument '%s' (arguments are inputs)", o.Name)
		}
		if _, ok := b.sizes[o.Name]; ok {
			return errorf(o.Loc, "'%s' is a size, not a tensor", o.Name)
		}
	}
	cb := &body{im: im, fn: callee, blk: b.blk, names: b.names, sizes: map[string]sizeexpr.Expr{}, vals: map[string]*tensor{}, outputs: map[string]*Param{}}
	for _, r := range callee.Returns {
		cb.outputs[r.Name.Name] = r
	}
	for i, p := range callee.Params {
		if err := b.bindArg(cb, p, c.Args[i]); err != nil {
			return err
		}
	}
	cb.incoming = func(name string, want []sizeexpr.Interval, elem ir.Type, loc ir.Location) (*ir.Value, error) {
		for i, r := range callee.Returns {
			if r.Name.Name != name {
				continue
			}
			if cur, ok := b.vals[c.Outs[i].Name]; ok {
				return cur.v, nil
			}
			return b.incoming(c.Outs[i].Name, want, elem, loc)
		}
		return nil, errorf(loc, "'%s' is accumulated into before any statement defines it", name)
	}
	start := len(b.blk.Ops)
	im.stack = append(im.stack, callee.Name.Name)
	im.quiet++
	defer func() {
		im.quiet--
		im.stack = im.stack[:len(im.stack)-1]
	}()
	inlined := func(err error) error {
		d := ir.AsDiagnostic(err, c.Callee.Loc)
		return d.AddNote(c.Callee.Loc, "in the call of '%s' inlined here", c.Callee.Name)
	}
	for _, s := range callee.Stmts {
		if err := cb.stmt(s); err != nil {
			return inlined(err)
		}
	}
	results, err := cb.results()
	if err != nil {
		return inlined(err)
	}
	for i, r := range results {
		v, err := cb.restrict(r, c.Callee.Loc)
		if err != nil {
			return inlined(err)
		}
		// A value the callee computed is named after the caller's tensor.
		if d := v.DefiningOp(); d != nil && b.blk.IndexOf(d) >= start {
			v.NameHint = ""
		}
		b.define(c.Outs[i].Name, v)
	}
	return nil
}

// bindArg binds parameter p of the callee to the caller's tensor arg.
func (b *body) bindArg(cb *body, p *Param, arg Ident) error {
	cur, ok := b.vals[arg.Name]
	if !ok {
		return errorf(arg.Loc, "'%s' is not a tensor defined here", arg.Name)
	}
	t := cur.typ()
	want := scalarTypes[p.Type.Scalar.Name]
	if !ir.TypeEqual(t.Elem, want) {
		return errorf(arg.Loc, "'%s' has element type %s but parameter '%s' of '%s' is %s", arg.Name, t.Elem, p.Name.Name, cb.fn.Name.Name, p.Type.Scalar.Name)
	}
	if len(t.Dims) != len(p.Type.Sizes) {
		return errorf(arg.Loc, "'%s' has %d dimensions but parameter '%s' of '%s' has %d", arg.Name, len(t.Dims), p.Name.Name, cb.fn.Name.Name, len(p.Type.Sizes))
	}
	v := cur.v
	var fixed tir.DomainAttr
	rebase := false
	var names []string
	var exprs []sizeexpr.Expr
	var out []tir.Dim
	for k, d := range t.Dims {
		sz := p.Type.Sizes[k]
		ext := d.Extent()
		// A constant size, or a size variable bound by an earlier
		// argument (a repeated size variable means equal sizes), must
		// equal the extent.
		size, bound := cb.sizes[sz.Name]
		what := fmt.Sprintf("size %s of '%s' is %s from an earlier argument", sz.Name, cb.fn.Name.Name, size)
		switch {
		case sz.Const:
			size = sizeexpr.Const(sz.Value)
			what = fmt.Sprintf("parameter '%s' of '%s' has the constant size %d in dimension %d", p.Name.Name, cb.fn.Name.Name, sz.Value, k)
		case !bound:
			cb.sizes[sz.Name], size = ext, ext
		}
		if !size.Equal(ext) {
			if c, ok := sizeexpr.Compare(size, ext); ok && c != 0 {
				return errorf(arg.Loc, "%s, but '%s' has %s in dimension %d", what, arg.Name, ext, k)
			}
			b.im.warn(ir.Warningf(arg.Loc, "%s, but '%s' has %s in dimension %d: they must be equal (checked at run time)", what, arg.Name, ext, k))
			fixed = append(fixed, tir.Dim{Name: d.Name, Interval: sizeexpr.Span(d.Lo, sizeexpr.Add(d.Lo, size))})
		}
		if !d.Lo.Equal(sizeexpr.Const(0)) {
			rebase = true
		}
		x := fmt.Sprintf("%s_%d", p.Name.Name, k)
		names = append(names, d.Name)
		exprs = append(exprs, sizeexpr.Add(tir.DimVar(x), d.Lo))
		out = append(out, tir.Dim{Name: x, Interval: sizeexpr.Span(sizeexpr.Const(0), size)})
	}
	if len(fixed) > 0 {
		want := t
		want.Dims = append([]tir.Dim(nil), t.Dims...)
		for _, f := range fixed {
			want.Dims[want.Find(f.Name)] = f
		}
		var err error
		if v, err = b.build("tir.assume_shape", arg.Loc, []*ir.Value{v}, nil, want); err != nil {
			return err
		}
	}
	if rebase {
		var err error
		if v, err = b.view(v, names, exprs, out, arg.Loc); err != nil {
			return err
		}
	}
	cb.vals[p.Name.Name] = &tensor{v: v, scalar: !p.Type.Tensor, input: true}
	return nil
}

// restrict gives an inlined typed output its declared domain, as the
// callee's tir.func result type does.
func (b *body) restrict(r result, loc ir.Location) (*ir.Value, error) {
	t, _ := tir.AsTensor(r.v.Type)
	want, _ := tir.AsTensor(r.t)
	var bounds tir.DomainAttr
	for k, d := range want.Dims {
		if !t.Dims[k].Interval.Equal(d.Interval) {
			bounds = append(bounds, d)
		}
	}
	if len(bounds) == 0 {
		return r.v, nil
	}
	return b.build("tir.subset", loc, []*ir.Value{r.v}, ir.DictAttr{}.With("bounds", bounds), nil)
}
