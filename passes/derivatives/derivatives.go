// Package derivatives is the tir-derivatives pass: for each selected
// tir.func @f it adds @f_jvp (forward mode: the tangent of the results
// from tangents of the arguments) and @f_vjp (reverse mode: the cotangents
// of the arguments from cotangents of the results), written in the tir
// dialect so that they get the same inference, lowering, interpreter and
// tools as any function (docs/derivatives.md).
//
// The pass owns what is common to every op: copying @f's computation into
// the new function (calls inlined first), the order of the sweeps, which
// values carry derivatives, the sum of the contributions of several uses
// of a value and the domains of the derivatives. What each op contributes
// is the op's derivative facet (tir.Op.Derivative, in
// dialects/tir/derivative_rules.go).
package derivatives

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/passes"
)

// Modes of the pass's mode option.
var Modes = []string{"both", "jvp", "vjp"}

func init() {
	passes.Register(&passes.Def{
		Name:    "tir-derivatives",
		Title:   "TIRDerivatives",
		Summary: "Add @f_jvp (tangent-linear) and @f_vjp (adjoint) next to each selected tir.func @f",
		Anchor:  passes.AnchorModule,
		Options: []passes.OptionSpec{
			{Name: "mode", Type: passes.OptString, Default: "both", Choices: Modes,
				Help: "which functions to add: both, jvp (@f_jvp only) or vjp (@f_vjp only)"},
			{Name: "functions", Type: passes.OptString, Default: "",
				Help: "the functions to differentiate, comma-separated (empty: every function with a differentiable argument and result)"},
		},
		New: func(o passes.Options) passes.Pass {
			opts := Options{JVP: o.String("mode") != "vjp", VJP: o.String("mode") != "jvp"}
			for _, f := range strings.Split(o.String("functions"), ",") {
				if f = strings.TrimPrefix(strings.TrimSpace(f), "@"); f != "" {
					opts.Functions = append(opts.Functions, f)
				}
			}
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return Run(ctx.Module, opts)
			})
		},
	})
}

// Options select what the pass adds.
type Options struct {
	JVP, VJP bool
	// Functions names the functions to differentiate; empty means every
	// function that has a differentiable argument and result.
	Functions []string
}

// Run adds the derivative functions to the module.
func Run(m *ir.Module, opts Options) error {
	var fns []*ir.Operation
	explicit := len(opts.Functions) > 0
	if explicit {
		for _, name := range opts.Functions {
			fn := m.Lookup(name)
			if fn == nil || !fn.Is(tir.Func) {
				return ir.Errorf(m.Op.Loc, "tir-derivatives: no tir.func @%s in the module", name)
			}
			fns = append(fns, fn)
		}
	} else {
		for _, op := range m.Body().Ops {
			if op.Is(tir.Func) {
				fns = append(fns, op)
			}
		}
	}
	for _, fn := range fns {
		name := ir.SymbolName(fn)
		args, results := differentiable(fn)
		if args == 0 || results == 0 {
			if !explicit {
				continue
			}
			what := "argument"
			if args > 0 {
				what = "result"
			}
			return ir.Errorf(fn.Loc, "tir-derivatives: @%s has no differentiable %s (only float values and tuples of them carry derivatives)", name, what)
		}
		var kinds []string
		if opts.JVP {
			kinds = append(kinds, "jvp")
		}
		if opts.VJP {
			kinds = append(kinds, "vjp")
		}
		for _, k := range kinds {
			if other := m.Lookup(name + "_" + k); other != nil {
				return ir.Errorf(other.Loc, "tir-derivatives: @%s_%s already exists: the %s of @%s would take its name (rename it)", name, k, describe(k), name).
					AddNote(fn.Loc, "@%s is defined here", name)
			}
		}
		at := m.Body().IndexOf(fn) + 1
		for _, k := range kinds {
			var d *ir.Operation
			var err error
			if k == "jvp" {
				d, err = jvp(m, fn)
			} else {
				d, err = vjp(m, fn)
			}
			if err != nil {
				return err
			}
			m.Body().InsertAt(at, d)
			at++
		}
	}
	return nil
}

func describe(kind string) string {
	if kind == "jvp" {
		return "tangent-linear function"
	}
	return "adjoint function"
}

// differentiable counts a function's differentiable arguments and results.
func differentiable(fn *ir.Operation) (args, results int) {
	ft, _ := tir.FuncType(fn)
	for _, t := range ft.Inputs {
		if isDiff(t) {
			args++
		}
	}
	for _, t := range ft.Results {
		if isDiff(t) {
			results++
		}
	}
	return args, results
}

func isDiff(t ir.Type) bool {
	tt, ok := tir.AsTensor(t)
	return ok && tir.Differentiable(tt.Elem)
}

// copyFunc clones fn under a new name with its calls inlined, its chained
// scans merged and its return removed; it returns the copy and the return's operands (in the
// copy).
func copyFunc(m *ir.Module, fn *ir.Operation, name string) (*ir.Operation, []*ir.Value, error) {
	c := fn.Clone(map[*ir.Value]*ir.Value{})
	c.SetAttr(ir.AttrSymName, ir.StringAttr(name))
	// Calls give the same derivatives inlined as through the callee's
	// derivative functions.
	if err := tir.InlineCalls(m, c); err != nil {
		return nil, nil, err
	}
	entry := c.Regions[0].Entry()
	ret := entry.Terminator()
	if ret == nil || !ret.Is(tir.Return) {
		return nil, nil, ir.Errorf(fn.Loc, "tir-derivatives: @%s does not end with tir.return", ir.SymbolName(fn))
	}
	hoistInvariants(entry)
	if err := initsAlongReduced(entry); err != nil {
		return nil, nil, err
	}
	if err := foldsAsScans(entry); err != nil {
		return nil, nil, err
	}
	if err := capturedAsInputs(entry); err != nil {
		return nil, nil, err
	}
	// A scan that reads another's previous level gives the derivatives
	// of the two as one tuple scan (mergescans.go).
	mergeScans(entry)
	outs := ret.Operands
	entry.Remove(ret)
	return c, outs, nil
}

// setSignature gives fn its new argument and result types.
func setSignature(fn *ir.Operation, inputs, results []ir.Type) {
	fn.SetAttr(tir.AttrFunctionType, ir.TypeAttr{Type: ir.FunctionType{Inputs: inputs, Results: results}})
}

// ruleOf returns the derivative rule of an op, or the located error that
// says it has none yet.
func ruleOf(op *ir.Operation) (tir.DerivativeRule, error) {
	k := tir.OpOf(op)
	if k == nil {
		return tir.DerivativeRule{}, ir.Errorf(op.Loc, "tir-derivatives cannot differentiate '%s': not a tir op", op.Name)
	}
	r, ok := k.Derivative()
	if !ok {
		return r, tir.NotDifferentiableYet(op, k.DerivativeNotYet())
	}
	if r.Structural {
		return r, ir.Errorf(op.Loc, "tir-derivatives: unexpected '%s' in a function body", op.Name)
	}
	return r, nil
}

// argName is the name hint of a derivative argument or result.
func argName(v *ir.Value, fallback string) string {
	if v != nil && v.NameHint != "" {
		return "d" + v.NameHint
	}
	return fallback
}

// removeDead erases the pure ops of a function's body whose results are
// unused (the primal ops an adjoint does not need), last first.
func removeDead(fn *ir.Operation) {
	body := fn.Regions[0].Entry()
	used := map[*ir.Value]bool{}
	var keep []*ir.Operation
	for i := len(body.Ops) - 1; i >= 0; i-- {
		op := body.Ops[i]
		live := !op.HasTrait(ir.TraitPure) || len(op.Results) == 0
		for _, r := range op.Results {
			live = live || used[r]
		}
		if !live {
			continue
		}
		op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				used[v] = true
			}
			return true
		})
		keep = append(keep, op)
	}
	for _, op := range append([]*ir.Operation(nil), body.Ops...) {
		body.Remove(op)
	}
	for i := len(keep) - 1; i >= 0; i-- {
		body.Append(keep[i])
	}
}
