// Package randprog generates random, well-typed tir programs for
// differential testing: every program is run by the reference interpreter
// and compiled at -O0..-O3 (and as GPU kernels run by the CUDA driver
// emulator), and the results must agree (randprog_test.go).
//
// The generator tracks the type of every value it creates (element type,
// named dimensions, symbolic intervals) with the dialect's own types and
// size expressions, so that it only emits ops whose preconditions hold:
// broadcast intersections that are not provably empty, subsets inside their
// operand, contiguous concat pieces, views whose image lies inside their
// operand. Result types are left to inference except where the syntax
// requires them (view, cast), where the tracked type is written out.
package randprog

import (
	"fmt"
	"math"
	"math/rand"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// Options select what the generator may use.
type Options struct {
	MaxOps   int  // ops per function body, before the return (default 16)
	Symbolic bool // size symbols in the argument domains
	// Specials puts special values among the inputs: NaN, infinities,
	// signed zeros and the integer limits.
	Specials bool
	// BodyOnlySymbols lets the body use size symbols that no argument
	// type has (a shift by N, a broadcast on K[0:N]); they are parameters
	// of the compiled function even where the op that uses them is dead
	// (regress_test.go, TestDeadSymbolKeepsABI).
	BodyOnlySymbols bool
}

// DefaultOptions are the settings of the tests.
var DefaultOptions = Options{MaxOps: 16, Symbolic: true, Specials: true, BodyOnlySymbols: true}

// Program is one generated function with the inputs it runs on.
type Program struct {
	Seed int64
	Name string
	Text string           // one tir.func, named Name
	Syms map[string]int64 // the size symbols' values for the run
	Ops  []string         // the kinds of op the body uses, in order
	// Values, when set, are the arguments' elements (row-major, one slice
	// per argument) instead of random ones: regression tests spell out
	// the inputs of a minimized finding.
	Values [][]float64
	args   []argSpec
	// units are the body's ops (a region op with its region), results the
	// returned values: Text is rendered from them, and the minimizer
	// removes some.
	units   []string
	results []string
	// helpers are functions the body calls (tir.call), printed first.
	helpers []string
	// specials: the inputs may hold NaN, infinities and integer limits.
	specials bool
	// tc is the source of a program made by GenerateTC; Text is then its
	// import, printed, and is not rendered from units.
	tc string
}

// argSpec says how to fill one argument.
type argSpec struct {
	name string
	typ  tir.TensorType
	// table: an integer neighbour table whose entries fall in
	// [lo - 2, hi + 2) (evaluated at Syms), -1 included.
	table  bool
	lo, hi sizeexpr.Expr
	// far: a table that also holds entries far outside (thousands past
	// either end, the integer limits).
	far bool
}

var (
	f32 = ir.FloatType{Name: "f32"}
	f64 = ir.FloatType{Name: "f64"}
	i1  = ir.IntegerType{Width: 1}
	i32 = ir.IntegerType{Width: 32}
	i64 = ir.IntegerType{Width: 64}

	numericTypes = []ir.Type{f32, f64, i32, i64}
)

func isFloat(t ir.Type) bool { _, ok := t.(ir.FloatType); return ok }
func isInt(t ir.Type) bool   { it, ok := t.(ir.IntegerType); return ok && it.Width > 1 }
func isBool(t ir.Type) bool  { it, ok := t.(ir.IntegerType); return ok && it.Width == 1 }
func isTuple(t ir.Type) bool { _, ok := t.(ir.TupleType); return ok }

// value is an SSA value of the function body and its tracked type.
type value struct {
	name   string
	typ    tir.TensorType
	masked bool // may hold masked points (read through a gather)
	cnst   bool // a 0-d tir.constant
	uses   int
}

type gen struct {
	r       *rand.Rand
	opts    Options
	fn      string // the function's name
	units   []string
	helpers []string
	vals    []*value
	args    []argSpec
	syms    []sizeexpr.Expr
	base    map[string]sizeexpr.Interval // a per-program interval per dimension name
	n       int
	ops     []string
}

// structured are the dimension names of fields; local ones index
// neighbours in tables.
var structured = []string{"I", "J", "K"}

// Generate makes the program of a seed.
func Generate(seed int64, opts Options) *Program {
	if opts.MaxOps == 0 {
		opts.MaxOps = DefaultOptions.MaxOps
	}
	p := &Program{Seed: seed, Name: fmt.Sprintf("p%d", seed), Syms: map[string]int64{}, specials: opts.Specials}
	g := &gen{r: rand.New(rand.NewSource(seed)), opts: opts, base: map[string]sizeexpr.Interval{}, fn: p.Name}
	if opts.Symbolic {
		for i, name := range []string{"N", "M"}[:g.r.Intn(3)] {
			g.syms = append(g.syms, sizeexpr.Sym(name, i))
			// Small sizes, 0 (empty domains) included.
			p.Syms[name] = int64(g.r.Intn(7))
		}
	}
	for _, d := range structured {
		g.base[d] = g.randInterval()
	}
	// Inputs: one to three fields.
	for k := 1 + g.r.Intn(3); k > 0; k-- {
		g.newField()
	}
	for len(g.ops) < opts.MaxOps {
		g.step()
	}
	for _, v := range g.pickResults() {
		p.results = append(p.results, v.name)
	}
	p.Ops = g.ops
	p.args = g.args
	p.units = g.units
	p.helpers = g.helpers
	p.render()
	return p
}

// render writes Text from the arguments, units and results.
func (p *Program) render() {
	if p.isTC() {
		return
	}
	var b strings.Builder
	for _, h := range p.helpers {
		b.WriteString(h)
	}
	fmt.Fprintf(&b, "tir.func @%s(", p.Name)
	for i, a := range p.args {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%%%s: %s", a.name, a.typ)
	}
	b.WriteString(") {\n")
	for _, u := range p.units {
		b.WriteString(u)
	}
	var names []string
	for _, v := range p.results {
		names = append(names, "%"+v)
	}
	fmt.Fprintf(&b, "  tir.return %s\n}\n", strings.Join(names, ", "))
	p.Text = b.String()
}

// randInterval is an interval of a few points: constant, or with an upper
// bound (and sometimes a lower one) that follows a size symbol.
func (g *gen) randInterval() sizeexpr.Interval {
	lo := int64(g.r.Intn(4) - 2)
	ext := int64(1 + g.r.Intn(6))
	if len(g.syms) > 0 && g.r.Intn(3) > 0 {
		s := g.syms[g.r.Intn(len(g.syms))]
		e := int64(g.r.Intn(4))
		if g.r.Intn(5) == 0 {
			// I[N + lo : N + lo + e + 1]
			l := sizeexpr.Add(s, sizeexpr.Const(lo))
			return sizeexpr.Span(l, sizeexpr.Add(l, sizeexpr.Const(e+1)))
		}
		return sizeexpr.Span(sizeexpr.Const(lo), sizeexpr.Add(s, sizeexpr.Const(lo+e)))
	}
	return sizeexpr.Span(sizeexpr.Const(lo), sizeexpr.Const(lo+ext))
}

// near is the program's interval of a dimension, each end moved by -1..1.
func (g *gen) near(name string) sizeexpr.Interval {
	iv, ok := g.base[name]
	if !ok {
		iv = g.randInterval()
		g.base[name] = iv
	}
	lo := sizeexpr.Add(iv.Lo, sizeexpr.Const(int64(g.r.Intn(3)-1)))
	hi := sizeexpr.Add(iv.Hi, sizeexpr.Const(int64(g.r.Intn(3)-1)))
	out := sizeexpr.Span(lo, hi)
	if out.ProvablyEmpty() {
		return iv
	}
	return out
}

func (g *gen) fresh(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

// newField adds an argument on a random subset of the structured
// dimensions (in a random storage order).
func (g *gen) newField() *value {
	var dims []tir.Dim
	for _, i := range g.r.Perm(len(structured)) {
		if g.r.Intn(3) > 0 {
			dims = append(dims, tir.Dim{Name: structured[i], Interval: g.near(structured[i])})
		}
	}
	if len(dims) == 0 {
		dims = append(dims, tir.Dim{Name: "I", Interval: g.near("I")})
	}
	elem := numericTypes[g.r.Intn(len(numericTypes))]
	if len(g.vals) > 0 && g.r.Intn(2) == 0 {
		elem = g.vals[g.r.Intn(len(g.vals))].typ.Elem
		if !isFloat(elem) && !isInt(elem) {
			elem = f64
		}
	}
	return g.addArg(argSpec{name: g.fresh("a"), typ: tir.TensorType{Elem: elem, Dims: dims}})
}

func (g *gen) addArg(a argSpec) *value {
	g.args = append(g.args, a)
	v := &value{name: a.name, typ: a.typ}
	g.vals = append(g.vals, v)
	return v
}

// emit writes one op defining a new value.
func (g *gen) emit(kind string, typ tir.TensorType, masked bool, format string, args ...any) *value {
	v := &value{name: g.fresh("v"), typ: typ, masked: masked}
	g.units = append(g.units, fmt.Sprintf("  %%%s = %s\n", v.name, fmt.Sprintf(format, args...)))
	g.vals = append(g.vals, v)
	g.ops = append(g.ops, kind)
	return v
}

func (g *gen) use(vs ...*value) {
	for _, v := range vs {
		v.uses++
	}
}

// pick chooses a value satisfying ok, preferring recent ones (so that ops
// chain); nil if there is none.
func (g *gen) pick(ok func(*value) bool) *value {
	var cands []*value
	for _, v := range g.vals {
		if ok(v) {
			cands = append(cands, v)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	if g.r.Intn(3) > 0 {
		k := min(len(cands), 4)
		return cands[len(cands)-1-g.r.Intn(k)]
	}
	return cands[g.r.Intn(len(cands))]
}

func numeric(v *value) bool { return isFloat(v.typ.Elem) || isInt(v.typ.Elem) }
func ranked(v *value) bool  { return len(v.typ.Dims) > 0 }

// broadcastDims is the domain of an elementwise op (spec 2.2): the first
// operand's dimensions, then each further operand's new ones, each
// interval the intersection. ok is false when one is provably empty.
func broadcastDims(vs ...*value) ([]tir.Dim, bool) {
	var out []tir.Dim
	for _, v := range vs {
		for _, d := range v.typ.Dims {
			found := false
			for i := range out {
				if out[i].Name == d.Name {
					out[i].Interval = out[i].Intersect(d.Interval)
					found = true
				}
			}
			if !found {
				out = append(out, d)
			}
		}
	}
	for _, d := range out {
		if d.ProvablyEmpty() {
			return nil, false
		}
	}
	return out, true
}

func anyMasked(vs ...*value) bool {
	for _, v := range vs {
		if v.masked {
			return true
		}
	}
	return false
}

func hasDim(v *value, name string) bool { return v.typ.Find(name) >= 0 }

// constant adds a 0-d constant of an element type.
func (g *gen) constant(elem ir.Type) *value {
	v := g.emit("constant", tir.Scalar(elem), false, "tir.constant %s : %s", g.literal(elem), elem)
	v.cnst = true
	return v
}

func (g *gen) literal(elem ir.Type) string {
	switch {
	case isFloat(elem):
		return []string{"0.0", "1.0", "-1.0", "0.5", "2.0", "-2.5", "3.0", "0.125", "-0.75", "10.0", "1.0e30"}[g.r.Intn(11)]
	case isBool(elem):
		return []string{"true", "false"}[g.r.Intn(2)]
	}
	lits := []string{"0", "1", "-1", "2", "3", "-3", "7", "-8", "5"}
	if g.r.Intn(8) == 0 {
		if elem.(ir.IntegerType).Width == 32 {
			lits = []string{"2147483647", "2147483648", "65536"}
		} else {
			lits = []string{"9223372036854775807", "9223372036854775808", "4294967296"}
		}
	}
	return lits[g.r.Intn(len(lits))]
}

// partner picks a second operand for an elementwise op with a: a value of
// element type elem whose domain meets a's, or a new constant.
func (g *gen) partner(a *value, elem ir.Type) *value {
	if g.r.Intn(4) > 0 {
		b := g.pick(func(v *value) bool {
			if !ir.TypeEqual(v.typ.Elem, elem) || v == a && g.r.Intn(2) == 0 {
				return false
			}
			_, ok := broadcastDims(a, v)
			return ok
		})
		if b != nil {
			return b
		}
	}
	return g.constant(elem)
}

// step adds one op (or a few: a gather with its table, a scan with its
// tuple_gets).
func (g *gen) step() {
	for tries := 0; tries < 20; tries++ {
		var ok bool
		switch k := g.r.Intn(100); {
		case k < 22:
			ok = g.binary()
		case k < 28:
			ok = g.unary()
		case k < 33:
			ok = g.cmpSelect()
		case k < 37:
			ok = g.cast()
		case k < 43:
			ok = g.shift()
		case k < 47:
			ok = g.subset()
		case k < 50:
			ok = g.broadcast()
		case k < 57:
			ok = g.view()
		case k < 61:
			ok = g.concat()
		case k < 69:
			ok = g.gather()
		case k < 71:
			ok = g.pos()
		case k < 80:
			ok = g.reduce()
		case k < 84:
			ok = g.reduceRegion()
		case k < 91:
			ok = g.scan()
		case k < 92:
			ok = g.tuple()
		case k < 94:
			ok = g.call()
		case k < 97:
			ok = g.newField() != nil
			g.ops = append(g.ops, "arg")
		default:
			ok = g.logic()
		}
		if ok {
			return
		}
	}
	// Nothing applied: a constant always does.
	g.constant(numericTypes[g.r.Intn(len(numericTypes))])
}

var (
	floatBinary = []string{"add", "sub", "mul", "div", "min", "max", "rem", "nextafter"}
	intBinary   = []string{"add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "pow"}
)

func (g *gen) binary() bool {
	a := g.pick(func(v *value) bool { return numeric(v) && !v.cnst })
	if a == nil {
		return false
	}
	ops := floatBinary
	if isInt(a.typ.Elem) {
		ops = intBinary
	}
	op := ops[g.r.Intn(len(ops))]
	b := g.partner(a, a.typ.Elem)
	x, y := a, b
	if g.r.Intn(3) == 0 {
		x, y = b, a
	}
	dims, ok := broadcastDims(x, y)
	if !ok {
		return false
	}
	g.use(x, y)
	g.emit(op, tir.TensorType{Elem: a.typ.Elem, Dims: dims}, anyMasked(x, y), "tir.%s %%%s, %%%s", op, x.name, y.name)
	return true
}

func (g *gen) unary() bool {
	a := g.pick(func(v *value) bool { return numeric(v) && !v.cnst })
	if a == nil {
		return false
	}
	ops := []string{"neg", "abs", "sqrt", "floor", "ceil", "round"}
	if isInt(a.typ.Elem) {
		ops = []string{"neg", "abs", "not"}
	}
	op := ops[g.r.Intn(len(ops))]
	g.use(a)
	g.emit(op, a.typ, a.masked, "tir.%s %%%s", op, a.name)
	return true
}

func (g *gen) logic() bool {
	a := g.pick(func(v *value) bool { return isBool(v.typ.Elem) && ranked(v) })
	if a == nil {
		return false
	}
	if g.r.Intn(3) == 0 {
		g.use(a)
		g.emit("not", a.typ, a.masked, "tir.not %%%s", a.name)
		return true
	}
	b := g.partner(a, i1)
	dims, ok := broadcastDims(a, b)
	if !ok {
		return false
	}
	op := []string{"and", "or", "xor"}[g.r.Intn(3)]
	g.use(a, b)
	g.emit(op, tir.TensorType{Elem: i1, Dims: dims}, anyMasked(a, b), "tir.%s %%%s, %%%s", op, a.name, b.name)
	return true
}

// cmpSelect compares two values and selects between two others with the
// result (or uses an i1 value that exists).
func (g *gen) cmpSelect() bool {
	a := g.pick(func(v *value) bool { return numeric(v) && !v.cnst })
	if a == nil {
		return false
	}
	var c *value
	if g.r.Intn(3) == 0 {
		c = g.pick(func(v *value) bool { return isBool(v.typ.Elem) && ranked(v) })
	}
	if c == nil {
		b := g.partner(a, a.typ.Elem)
		dims, ok := broadcastDims(a, b)
		if !ok {
			return false
		}
		pred := []string{"lt", "le", "gt", "ge", "eq", "ne"}[g.r.Intn(6)]
		g.use(a, b)
		c = g.emit("cmp", tir.TensorType{Elem: i1, Dims: dims}, anyMasked(a, b), "tir.cmp %s %%%s, %%%s", pred, a.name, b.name)
		if g.r.Intn(4) == 0 {
			return true // the i1 value itself
		}
	}
	x := g.pick(func(v *value) bool {
		if !numeric(v) {
			return false
		}
		_, ok := broadcastDims(c, v)
		return ok
	})
	if x == nil {
		return false
	}
	y := g.partner(x, x.typ.Elem)
	dims, ok := broadcastDims(c, x, y)
	if !ok {
		return false
	}
	g.use(c, x, y)
	g.emit("select", tir.TensorType{Elem: x.typ.Elem, Dims: dims}, anyMasked(c, x, y), "tir.select %%%s, %%%s, %%%s", c.name, x.name, y.name)
	return true
}

func (g *gen) cast() bool {
	a := g.pick(func(v *value) bool { return (numeric(v) || isBool(v.typ.Elem)) && ranked(v) })
	if a == nil {
		return false
	}
	to := append([]ir.Type{i1}, numericTypes...)[g.r.Intn(5)]
	if ir.TypeEqual(to, a.typ.Elem) {
		return false
	}
	t := tir.TensorType{Elem: to, Dims: a.typ.Dims}
	g.use(a)
	g.emit("cast", t, a.masked, "tir.cast %%%s : %s", a.name, t)
	return true
}

// bodySyms are the size symbols the body may use.
func (g *gen) bodySyms() []sizeexpr.Expr {
	if g.opts.BodyOnlySymbols {
		return g.syms
	}
	var out []sizeexpr.Expr
	for _, s := range g.syms {
		v, _ := s.AsVar()
		for _, a := range g.args {
			if mentions(a.typ, v.Name) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

func mentions(t tir.TensorType, sym string) bool {
	for _, d := range t.Dims {
		for _, e := range []sizeexpr.Expr{d.Lo, d.Hi} {
			for _, v := range e.Vars() {
				if v.Name == sym {
					return true
				}
			}
		}
	}
	return false
}

// nearBody is near for an interval the body writes (broadcast, a view's
// broadcast dimension, a scan's named interval): with symbols the body
// may use only.
func (g *gen) nearBody(name string) sizeexpr.Interval {
	iv := g.near(name)
	allowed := map[string]bool{}
	for _, s := range g.bodySyms() {
		v, _ := s.AsVar()
		allowed[v.Name] = true
	}
	for _, e := range []sizeexpr.Expr{iv.Lo, iv.Hi} {
		for _, v := range e.Vars() {
			if !allowed[v.Name] {
				return sizeexpr.Span(sizeexpr.Const(0), sizeexpr.Const(int64(1+g.r.Intn(4))))
			}
		}
	}
	return iv
}

// offset is a shift offset: a small constant, sometimes a size symbol.
func (g *gen) offset() sizeexpr.Expr {
	if syms := g.bodySyms(); len(syms) > 0 && g.r.Intn(8) == 0 {
		s := syms[g.r.Intn(len(syms))]
		if g.r.Intn(2) == 0 {
			return sizeexpr.Neg(s)
		}
		return s
	}
	return sizeexpr.Const([]int64{-2, -1, 1, 2, 3}[g.r.Intn(5)])
}

func signed(e sizeexpr.Expr) string {
	s := e.String()
	if strings.HasPrefix(s, "-") {
		return "- " + strings.TrimPrefix(s, "-")
	}
	return "+ " + s
}

func (g *gen) shift() bool {
	a := g.pick(ranked)
	if a == nil {
		return false
	}
	t := tir.TensorType{Elem: a.typ.Elem, Dims: append([]tir.Dim(nil), a.typ.Dims...)}
	var parts []string
	for _, i := range g.r.Perm(len(t.Dims)) {
		if len(parts) > 0 && g.r.Intn(2) == 0 {
			continue
		}
		off := g.offset()
		t.Dims[i].Interval = t.Dims[i].Shift(off)
		parts = append(parts, t.Dims[i].Name+" "+signed(off))
	}
	g.use(a)
	g.emit("shift", t, a.masked, "tir.shift %%%s [%s]", a.name, strings.Join(parts, ", "))
	return true
}

func (g *gen) subset() bool {
	a := g.pick(ranked)
	if a == nil {
		return false
	}
	t := tir.TensorType{Elem: a.typ.Elem, Dims: append([]tir.Dim(nil), a.typ.Dims...)}
	i := g.r.Intn(len(t.Dims))
	d := t.Dims[i]
	lo := sizeexpr.Add(d.Lo, sizeexpr.Const(int64(g.r.Intn(3))))
	hi := sizeexpr.Sub(d.Hi, sizeexpr.Const(int64(g.r.Intn(3))))
	iv := sizeexpr.Span(lo, hi)
	if iv.ProvablyEmpty() {
		return false
	}
	t.Dims[i].Interval = iv
	g.use(a)
	g.emit("subset", t, a.masked, "tir.subset %%%s [%s]", a.name, t.Dims[i])
	return true
}

func (g *gen) broadcast() bool {
	a := g.pick(func(v *value) bool { return len(v.typ.Dims) < 3 && !v.cnst })
	if a == nil {
		return false
	}
	var free []string
	for _, n := range structured {
		if !hasDim(a, n) {
			free = append(free, n)
		}
	}
	if len(free) == 0 {
		return false
	}
	n := free[g.r.Intn(len(free))]
	d := tir.Dim{Name: n, Interval: g.nearBody(n)}
	t := tir.TensorType{Elem: a.typ.Elem, Dims: append(append([]tir.Dim(nil), a.typ.Dims...), d)}
	g.use(a)
	g.emit("broadcast", t, a.masked, "tir.broadcast %%%s [%s]", a.name, d)
	return true
}

// view re-indexes a value: a transposition of two dimensions, a renaming,
// a fixed index, a reversal or a stride, sometimes with a broadcast
// dimension; the result type lists the dimensions in a random storage order.
func (g *gen) view() bool {
	a := g.pick(ranked)
	if a == nil {
		return false
	}
	dims := append([]tir.Dim(nil), a.typ.Dims...)
	i := g.r.Intn(len(dims))
	d := dims[i]
	var expr string
	kind := "view"
	switch g.r.Intn(5) {
	case 0: // transpose two dimensions
		if len(dims) < 2 {
			return false
		}
		j := (i + 1 + g.r.Intn(len(dims)-1)) % len(dims)
		e := dims[j]
		expr = fmt.Sprintf("%s = %s, %s = %s", d.Name, e.Name, e.Name, d.Name)
		dims[i].Name, dims[j].Name = e.Name, d.Name
		kind = "view-transpose"
	case 1: // rename to a dimension the value lacks
		var free []string
		for _, n := range structured {
			if !hasDim(a, n) {
				free = append(free, n)
			}
		}
		if len(free) == 0 {
			return false
		}
		n := free[g.r.Intn(len(free))]
		expr = fmt.Sprintf("%s = %s", d.Name, n)
		dims[i].Name = n
		kind = "view-rename"
	case 2: // fix an index
		var c sizeexpr.Expr
		found := false
		for _, k := range g.r.Perm(3) {
			x := sizeexpr.Add(d.Lo, sizeexpr.Const(int64(k)))
			if sizeexpr.ProveLT(x, d.Hi) {
				c, found = x, true
				break
			}
		}
		if !found {
			return false
		}
		expr = fmt.Sprintf("%s = %s", d.Name, c)
		dims = append(dims[:i], dims[i+1:]...)
		kind = "view-fix"
	case 3: // reverse: x(c - i)
		c := int64(g.r.Intn(5) - 2)
		expr = fmt.Sprintf("%s = %d - %s", d.Name, c, d.Name)
		dims[i].Interval = sizeexpr.Span(
			sizeexpr.Add(sizeexpr.Neg(d.Hi), sizeexpr.Const(c+1)),
			sizeexpr.Add(sizeexpr.Neg(d.Lo), sizeexpr.Const(c+1)))
		kind = "view-reverse"
	default: // stride: x(2*i + s)
		s := int64(g.r.Intn(3) - 1)
		lo, err1 := sizeexpr.CeilDiv(sizeexpr.Sub(d.Lo, sizeexpr.Const(s)), 2)
		hi, err2 := sizeexpr.FloorDiv(sizeexpr.Sub(d.Hi, sizeexpr.Const(s+1)), 2)
		if err1 != nil || err2 != nil {
			return false
		}
		iv := sizeexpr.Span(lo, sizeexpr.Add(hi, sizeexpr.Const(1)))
		if iv.ProvablyEmpty() {
			return false
		}
		expr = fmt.Sprintf("%s = 2*%s %s", d.Name, d.Name, signed(sizeexpr.Const(s)))
		dims[i].Interval = iv
		kind = "view-stride"
	}
	if len(dims) < 3 && g.r.Intn(5) == 0 {
		for _, n := range structured {
			if (tir.TensorType{Dims: dims}).Find(n) < 0 && !hasDim(a, n) {
				dims = append(dims, tir.Dim{Name: n, Interval: g.nearBody(n)})
				kind += "+bcast"
				break
			}
		}
	}
	perm := g.r.Perm(len(dims))
	t := tir.TensorType{Elem: a.typ.Elem}
	for _, k := range perm {
		t.Dims = append(t.Dims, dims[k])
	}
	g.use(a)
	g.emit(kind, t, a.masked, "tir.view %%%s [%s] : %s", a.name, expr, t)
	return true
}

// concat joins two pieces along a dimension: the first part of a and the
// rest of b, split at a's lower bound plus one or two.
func (g *gen) concat() bool {
	if g.r.Intn(2) == 0 {
		return g.piecewise()
	}
	a := g.pick(func(v *value) bool { return ranked(v) && !v.cnst })
	if a == nil {
		return false
	}
	d := a.typ.Dims[g.r.Intn(len(a.typ.Dims))]
	m := sizeexpr.Add(d.Lo, sizeexpr.Const(int64(1+g.r.Intn(2))))
	if !sizeexpr.ProveLE(m, d.Hi) {
		return false
	}
	b := g.pick(func(v *value) bool {
		i := v.typ.Find(d.Name)
		if i < 0 || !ir.TypeEqual(v.typ.Elem, a.typ.Elem) {
			return false
		}
		e := v.typ.Dims[i]
		return sizeexpr.ProveLE(e.Lo, m) && sizeexpr.ProveLE(m, e.Hi)
	})
	if b == nil {
		return false
	}
	bd := b.typ.Dims[b.typ.Find(d.Name)]
	pa := tir.Dim{Name: d.Name, Interval: sizeexpr.Span(d.Lo, m)}
	pb := tir.Dim{Name: d.Name, Interval: sizeexpr.Span(m, bd.Hi)}
	if pa.ProvablyEmpty() || pb.ProvablyEmpty() {
		return false
	}
	g.use(a, b)
	va := g.emit("subset", replaceDim(a.typ, pa), a.masked, "tir.subset %%%s [%s]", a.name, pa)
	vb := g.emit("subset", replaceDim(b.typ, pb), b.masked, "tir.subset %%%s [%s]", b.name, pb)
	// The other dimensions broadcast; the concatenated one spans both.
	dims, ok := broadcastDims(withoutDim(va, d.Name), withoutDim(vb, d.Name))
	if !ok {
		return false
	}
	var out []tir.Dim
	// The result keeps a's storage order: d where a has it.
	for _, x := range a.typ.Dims {
		if x.Name == d.Name {
			out = append(out, tir.Dim{Name: d.Name, Interval: sizeexpr.Span(d.Lo, bd.Hi)})
			continue
		}
		for _, y := range dims {
			if y.Name == x.Name {
				out = append(out, y)
			}
		}
	}
	for _, y := range dims {
		if a.typ.Find(y.Name) < 0 {
			out = append(out, y)
		}
	}
	g.use(va, vb)
	g.emit("concat", tir.TensorType{Elem: a.typ.Elem, Dims: out}, anyMasked(a, b), "tir.concat %%%s, %%%s along %s", va.name, vb.name, d.Name)
	return true
}

// piecewise chooses per level along a dimension of a (the else value): the
// first level, and sometimes the last, from values defined there (or
// without the dimension, constants included).
func (g *gen) piecewise() bool {
	a := g.pick(func(v *value) bool { return ranked(v) && !v.cnst })
	if a == nil {
		return false
	}
	d := a.typ.Dims[g.r.Intn(len(a.typ.Dims))]
	top := sizeexpr.Span(d.Lo, sizeexpr.Add(d.Lo, sizeexpr.Const(1)))
	bot := sizeexpr.Span(sizeexpr.Sub(d.Hi, sizeexpr.Const(1)), d.Hi)
	pieces := []sizeexpr.Interval{top}
	if g.r.Intn(2) == 0 && sizeexpr.ProveLE(top.Hi, bot.Lo) {
		pieces = append(pieces, bot)
	}
	var vals []*value
	for _, p := range pieces {
		b := g.pick(func(v *value) bool {
			if !ir.TypeEqual(v.typ.Elem, a.typ.Elem) {
				return false
			}
			i := v.typ.Find(d.Name)
			if i < 0 {
				return true
			}
			in, _ := v.typ.Dims[i].Contains(p)
			return in
		})
		if b == nil {
			return false
		}
		vals = append(vals, b)
	}
	// The type rule: the operands' broadcast, the dimension on its whole
	// interval.
	var out []tir.Dim
	found := false
	for _, v := range append(append([]*value(nil), vals...), a) {
		for _, x := range v.typ.Dims {
			i := (tir.TensorType{Dims: out}).Find(x.Name)
			switch {
			case i >= 0 && x.Name != d.Name:
				out[i].Interval = out[i].Intersect(x.Interval)
			case i < 0:
				out = append(out, x)
			}
		}
	}
	for i := range out {
		if out[i].Name == d.Name {
			out[i], found = d, true
		} else if out[i].ProvablyEmpty() {
			return false
		}
	}
	if !found {
		out = append(out, d)
	}
	text := "tir.piecewise along " + d.Name + d.Interval.String()
	for i, p := range pieces {
		text += " " + p.String() + " %" + vals[i].name + ","
	}
	text += " else %" + a.name
	g.use(append(vals, a)...)
	g.emit("piecewise", tir.TensorType{Elem: a.typ.Elem, Dims: out}, anyMasked(append(vals, a)...), "%s", text)
	return true
}

func replaceDim(t tir.TensorType, d tir.Dim) tir.TensorType {
	out := tir.TensorType{Elem: t.Elem, Dims: append([]tir.Dim(nil), t.Dims...)}
	out.Dims[out.Find(d.Name)] = d
	return out
}

func withoutDim(v *value, name string) *value {
	w := *v
	w.typ.Dims = nil
	for _, d := range v.typ.Dims {
		if d.Name != name {
			w.typ.Dims = append(w.typ.Dims, d)
		}
	}
	return &w
}

// gather reads a value through a neighbour table: a new i32 or i64
// argument (entries around the gathered interval, -1 and out-of-range ones
// included) or, sometimes, an integer value computed by the program.
func (g *gen) gather() bool {
	x := g.pick(func(v *value) bool { return ranked(v) && !isTuple(v.typ.Elem) })
	if x == nil {
		return false
	}
	d := x.typ.Dims[g.r.Intn(len(x.typ.Dims))]
	var tab *value
	if g.r.Intn(4) == 0 {
		tab = g.pick(func(v *value) bool { return isInt(v.typ.Elem) && ranked(v) && v != x })
	}
	if tab == nil {
		// Destination: the gathered dimension itself (same-kind neighbours)
		// or another one; local neighbour dimension T or U.
		dst := structured[g.r.Intn(len(structured))]
		local := "T"
		if hasDim(x, "T") {
			local = "U"
		}
		if hasDim(x, local) {
			return false
		}
		dims := []tir.Dim{{Name: dst, Interval: g.near(dst)}}
		if g.r.Intn(4) > 0 {
			dims = append(dims, tir.Dim{Name: local, Interval: sizeexpr.Span(sizeexpr.Const(0), sizeexpr.Const(int64(1+g.r.Intn(3))))})
		}
		if g.r.Intn(2) == 0 {
			dims[0], dims[len(dims)-1] = dims[len(dims)-1], dims[0]
		}
		elem := []ir.Type{i32, i64}[g.r.Intn(2)]
		tab = g.addArg(argSpec{name: g.fresh("nb"), typ: tir.TensorType{Elem: elem, Dims: dims}, table: true, lo: d.Lo, hi: d.Hi})
	}
	// Result: the table's dimensions, then x's others; a dimension both
	// have (other than the gathered one) is one, on the intersection.
	var dims []tir.Dim
	for _, td := range tab.typ.Dims {
		if i := x.typ.Find(td.Name); i >= 0 && td.Name != d.Name {
			td.Interval = td.Intersect(x.typ.Dims[i].Interval)
			if td.ProvablyEmpty() {
				return false
			}
		}
		dims = append(dims, td)
	}
	for _, xd := range x.typ.Dims {
		if xd.Name != d.Name && tab.typ.Find(xd.Name) < 0 {
			dims = append(dims, xd)
		}
	}
	g.use(x, tab)
	v := g.emit("gather", tir.TensorType{Elem: x.typ.Elem, Dims: dims}, true, "tir.gather %%%s [%s = %%%s]", x.name, d.Name, tab.name)
	// Most gathers are consumed the way mesh codes do: a reduction over the
	// neighbours, or can_deref + select.
	switch g.r.Intn(3) {
	case 0:
		g.guard(v)
	case 1:
		g.reduceOf(v)
	}
	return true
}

// guard replaces masked points of v by a constant: can_deref + select.
func (g *gen) guard(v *value) bool {
	if isTuple(v.typ.Elem) || isBool(v.typ.Elem) {
		return false
	}
	g.use(v)
	m := g.emit("can_deref", tir.TensorType{Elem: i1, Dims: v.typ.Dims}, false, "tir.can_deref %%%s", v.name)
	c := g.constant(v.typ.Elem)
	g.use(m, c)
	g.emit("select", v.typ, false, "tir.select %%%s, %%%s, %%%s", m.name, v.name, c.name)
	return true
}

func (g *gen) pos() bool {
	a := g.pick(ranked)
	if a == nil {
		return false
	}
	d := a.typ.Dims[g.r.Intn(len(a.typ.Dims))]
	g.use(a)
	g.emit("pos", tir.TensorType{Elem: i64, Dims: []tir.Dim{d}}, false, "tir.pos %s of %%%s", d.Name, a.name)
	return true
}

func reduceKinds(elem ir.Type) []string {
	switch {
	case isFloat(elem):
		return []string{"add", "mul", "min", "max"}
	case isBool(elem):
		return []string{"and", "or"}
	}
	return []string{"add", "mul", "min", "max", "and", "or"}
}

func (g *gen) reduce() bool {
	a := g.pick(func(v *value) bool { return ranked(v) && !isTuple(v.typ.Elem) && !v.cnst })
	if a == nil {
		return false
	}
	g.reduceOf(a)
	return true
}

// reduceOf reduces a over one or two of its dimensions, with an init
// value sometimes.
func (g *gen) reduceOf(a *value) {
	perm := g.r.Perm(len(a.typ.Dims))
	n := 1
	if len(perm) > 1 && g.r.Intn(3) == 0 {
		n = 2
	}
	var over []string
	red := map[string]bool{}
	for _, k := range perm[:n] {
		over = append(over, a.typ.Dims[k].Name)
		red[a.typ.Dims[k].Name] = true
	}
	var dims []tir.Dim
	for _, d := range a.typ.Dims {
		if !red[d.Name] {
			dims = append(dims, d)
		}
	}
	kinds := reduceKinds(a.typ.Elem)
	kind := kinds[g.r.Intn(len(kinds))]
	init := ""
	if g.r.Intn(3) == 0 {
		c := g.constant(a.typ.Elem)
		g.use(c)
		init = " init %" + c.name
	}
	g.use(a)
	g.emit("reduce-"+kind, tir.TensorType{Elem: a.typ.Elem, Dims: dims}, false, "tir.reduce %s %%%s over [%s]%s", kind, a.name, strings.Join(over, ", "), init)
}

// reduceRegion is the region form: acc + a*b (or a max, or a min) over a
// dimension of the operands.
func (g *gen) reduceRegion() bool {
	a := g.pick(func(v *value) bool { return ranked(v) && numeric(v) && !v.cnst })
	if a == nil {
		return false
	}
	b := g.pick(func(v *value) bool {
		if !ir.TypeEqual(v.typ.Elem, a.typ.Elem) {
			return false
		}
		_, ok := broadcastDims(a, v)
		return ok
	})
	if b == nil {
		b = a
	}
	dims, ok := broadcastDims(a, b)
	if !ok {
		return false
	}
	d := a.typ.Dims[g.r.Intn(len(a.typ.Dims))].Name
	var out []tir.Dim
	for _, x := range dims {
		if x.Name != d {
			out = append(out, x)
		}
	}
	c := g.constant(a.typ.Elem)
	combine := []string{"add", "max", "min"}[g.r.Intn(3)]
	inner := []string{"mul", "add", "sub"}[g.r.Intn(3)]
	if isInt(a.typ.Elem) && g.r.Intn(3) == 0 {
		inner = "xor"
	}
	acc, av, bv, m, s := g.fresh("acc"), g.fresh("x"), g.fresh("y"), g.fresh("m"), g.fresh("s")
	g.use(a, b, c)
	g.emit("reduce-region", tir.TensorType{Elem: a.typ.Elem, Dims: out}, false,
		"tir.reduce over [%s] init %%%s ins(%%%s, %%%s) {\n  ^bb0(%%%s, %%%s, %%%s):\n    %%%s = tir.%s %%%s, %%%s\n    %%%s = tir.%s %%%s, %%%s\n    tir.yield %%%s\n  }",
		d, c.name, a.name, b.name, acc, av, bv, m, inner, av, bv, s, combine, acc, m, s)
	return true
}

// scan runs a recurrence along a dimension: forward or backward, with a
// scalar or a tuple state; without an operand that has the dimension, the
// scan names its interval.
func (g *gen) scan() bool {
	a := g.pick(func(v *value) bool { return ranked(v) && numeric(v) && !v.masked && !v.cnst })
	if a == nil {
		return false
	}
	dir := []string{"forward", "backward"}[g.r.Intn(2)]
	var along string
	dims := append([]tir.Dim(nil), a.typ.Dims...)
	var k string
	if g.r.Intn(4) == 0 {
		for _, n := range g.r.Perm(len(structured)) {
			if !hasDim(a, structured[n]) {
				k = structured[n]
			}
		}
	}
	if k != "" {
		d := tir.Dim{Name: k, Interval: g.nearBody(k)}
		along = d.String()
		dims = append(dims, d)
	} else {
		k = a.typ.Dims[g.r.Intn(len(a.typ.Dims))].Name
		along = k
	}
	elem := a.typ.Elem
	st, x := g.fresh("st"), g.fresh("x")
	if g.r.Intn(3) == 0 {
		// Tuple state (s0, s1): s0' = s0 OP x, s1' = s1 + s0' (a running
		// sum of the prefix results), as the tridiagonal sweep carries two.
		init := g.emit("constant", tir.Scalar(ir.TupleType{Elems: []ir.Type{elem, elem}}), false,
			"tir.constant (%s, %s) : tuple<%s, %s>", g.literal(elem), g.literal(elem), elem, elem)
		init.cnst = true
		op := []string{"add", "mul", "max", "sub"}[g.r.Intn(4)]
		s0, s1, n0, n1, nt := g.fresh("s"), g.fresh("s"), g.fresh("n"), g.fresh("n"), g.fresh("t")
		g.use(a, init)
		tt := tir.TensorType{Elem: ir.TupleType{Elems: []ir.Type{elem, elem}}, Dims: dims}
		v := g.emit("scan-tuple-"+dir, tt, false,
			"tir.scan %s along %s init %%%s ins(%%%s) {\n  ^bb0(%%%s, %%%s):\n    %%%s = tir.tuple_get %%%s[0]\n    %%%s = tir.tuple_get %%%s[1]\n    %%%s = tir.%s %%%s, %%%s\n    %%%s = tir.add %%%s, %%%s\n    %%%s = tir.make_tuple %%%s, %%%s\n    tir.yield %%%s\n  }",
			dir, along, init.name, a.name, st, x, s0, st, s1, st, n0, op, s0, x, n1, s1, n0, nt, n0, n1, nt)
		for i := 0; i < 2; i++ {
			if i == 0 || g.r.Intn(2) == 0 {
				g.use(v)
				g.emit("tuple_get", tir.TensorType{Elem: elem, Dims: dims}, false, "tir.tuple_get %%%s[%d]", v.name, i)
			}
		}
		return true
	}
	init := g.constant(elem)
	op := []string{"add", "mul", "max", "min", "sub"}[g.r.Intn(5)]
	n := g.fresh("n")
	g.use(a, init)
	g.emit("scan-"+dir, tir.TensorType{Elem: elem, Dims: dims}, false,
		"tir.scan %s along %s init %%%s ins(%%%s) {\n  ^bb0(%%%s, %%%s):\n    %%%s = tir.%s %%%s, %%%s\n    tir.yield %%%s\n  }",
		dir, along, init.name, a.name, st, x, n, op, st, x, n)
	return true
}

// tuple packs two values and reads one back (through a domain op
// sometimes, which must carry both components).
func (g *gen) tuple() bool {
	a := g.pick(func(v *value) bool { return ranked(v) && numeric(v) })
	if a == nil {
		return false
	}
	b := g.pick(func(v *value) bool {
		if !numeric(v) {
			return false
		}
		_, ok := broadcastDims(a, v)
		return ok
	})
	if b == nil {
		return false
	}
	dims, _ := broadcastDims(a, b)
	g.use(a, b)
	t := g.emit("make_tuple", tir.TensorType{Elem: ir.TupleType{Elems: []ir.Type{a.typ.Elem, b.typ.Elem}}, Dims: dims}, anyMasked(a, b), "tir.make_tuple %%%s, %%%s", a.name, b.name)
	if g.r.Intn(2) == 0 {
		g.shift() // may pick the tuple
	}
	last := g.vals[len(g.vals)-1]
	if !isTuple(last.typ.Elem) {
		last = t
	}
	i := g.r.Intn(2)
	g.use(last)
	elem := last.typ.Elem.(ir.TupleType).Elems[i]
	g.emit("tuple_get", tir.TensorType{Elem: elem, Dims: last.typ.Dims}, last.masked, "tir.tuple_get %%%s[%d]", last.name, i)
	return true
}

// call defines a helper function of one argument on a's dimensions, each
// on [0:Hk] (its own size symbols), whose body is a few shifts and
// arithmetic, and calls it on a: the call binds Hk to a's extents and
// moves the helper's origin to where a starts (docs/tir.md).
func (g *gen) call() bool {
	a := g.pick(func(v *value) bool {
		if !ranked(v) || !numeric(v) || v.cnst {
			return false
		}
		// Not on an interval that may be inverted ([1:N] with N = 0):
		// the interpreter then binds the helper's symbol to a negative
		// extent and stops, compiled code runs on the empty domain
		// (regress_test.go, TestCallOnInvertedInterval).
		for _, d := range v.typ.Dims {
			if !sizeexpr.ProveLE(d.Lo, d.Hi) {
				return false
			}
		}
		return true
	})
	if a == nil {
		return false
	}
	name := fmt.Sprintf("%s_h%d", g.fn, len(g.helpers))
	var hdims []tir.Dim
	syms := map[string]sizeexpr.Expr{}
	for i, d := range a.typ.Dims {
		h := sizeexpr.Sym(fmt.Sprintf("H%d", i), 100+i)
		syms[fmt.Sprintf("H%d", i)] = sizeexpr.Sub(d.Hi, d.Lo)
		hdims = append(hdims, tir.Dim{Name: d.Name, Interval: sizeexpr.Span(sizeexpr.Const(0), h)})
	}
	u := &value{name: "u", typ: tir.TensorType{Elem: a.typ.Elem, Dims: hdims}}
	cur := u
	var body strings.Builder
	for k := 0; k < 1+g.r.Intn(3); k++ {
		w := &value{name: fmt.Sprintf("w%d", k), typ: cur.typ}
		switch g.r.Intn(3) {
		case 0:
			d := g.r.Intn(len(cur.typ.Dims))
			off := int64([]int{-1, 1, 2}[g.r.Intn(3)])
			w.typ = replaceDim(cur.typ, tir.Dim{Name: cur.typ.Dims[d].Name, Interval: cur.typ.Dims[d].Shift(sizeexpr.Const(off))})
			fmt.Fprintf(&body, "  %%%s = tir.shift %%%s [%s %s]\n", w.name, cur.name, cur.typ.Dims[d].Name, signed(sizeexpr.Const(off)))
		case 1:
			dims, _ := broadcastDims(cur, u)
			w.typ.Dims = dims
			op := []string{"add", "sub", "mul", "max"}[g.r.Intn(4)]
			fmt.Fprintf(&body, "  %%%s = tir.%s %%%s, %%u\n", w.name, op, cur.name)
		default:
			fmt.Fprintf(&body, "  %%c%d = tir.constant %s : %s\n", k, g.literal(a.typ.Elem), a.typ.Elem)
			op := []string{"add", "mul", "min"}[g.r.Intn(3)]
			fmt.Fprintf(&body, "  %%%s = tir.%s %%%s, %%c%d\n", w.name, op, cur.name, k)
		}
		cur = w
	}
	// The caller's domain: the helper's, with Hk bound and moved to a's
	// lower bounds.
	t := tir.TensorType{Elem: a.typ.Elem}
	for _, d := range cur.typ.Dims {
		bind := func(v sizeexpr.Var) (sizeexpr.Expr, bool) { e, ok := syms[v.Name]; return e, ok }
		lo := a.typ.Dims[a.typ.Find(d.Name)].Lo
		iv := sizeexpr.Span(sizeexpr.Add(d.Lo.Subst(bind), lo), sizeexpr.Add(d.Hi.Subst(bind), lo))
		if iv.ProvablyEmpty() {
			return false
		}
		t.Dims = append(t.Dims, tir.Dim{Name: d.Name, Interval: iv})
	}
	g.helpers = append(g.helpers, fmt.Sprintf("tir.func @%s(%%u: %s) {\n%s  tir.return %%%s\n}\n", name, u.typ, body.String(), cur.name))
	g.use(a)
	g.emit("call", t, a.masked, "tir.call @%s(%%%s)", name, a.name)
	return true
}

// pickResults returns one to three values the ABI can carry, preferring
// those nothing reads.
func (g *gen) pickResults() []*value {
	var unused, other []*value
	for _, v := range g.vals {
		if isTuple(v.typ.Elem) || v.cnst {
			continue
		}
		if v.uses == 0 {
			unused = append(unused, v)
		} else {
			other = append(other, v)
		}
	}
	g.r.Shuffle(len(other), func(i, j int) { other[i], other[j] = other[j], other[i] })
	n := 1 + g.r.Intn(3)
	var out []*value
	// The last values first: they end the longest chains.
	for i := len(unused) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, unused[i])
	}
	for _, v := range other {
		if len(out) >= n {
			break
		}
		out = append(out, v)
	}
	return out
}

// Args fills the arguments of the program's function (parsed from Text)
// for the run: floats in [-1, 1), integers in [-8, 8), tables around the
// gathered interval; with Specials, a few NaN, infinities, signed zeros and
// integer limits.
func (p *Program) Args(fn *ir.Operation) ([]*interp.Tensor, error) {
	ft, ok := tir.FuncType(fn)
	if !ok || p.Values == nil && len(ft.Inputs) != len(p.args) {
		return nil, fmt.Errorf("@%s: %d arguments, generated %d", p.Name, len(ft.Inputs), len(p.args))
	}
	env := func(v sizeexpr.Var) (int64, bool) { x, ok := p.Syms[v.Name]; return x, ok }
	var out []*interp.Tensor
	for i, in := range ft.Inputs {
		tt, _ := tir.AsTensor(in)
		dims, err := interp.EvalDims(tt, p.Syms)
		if err != nil {
			return nil, err
		}
		t, err := interp.NewTensor(tt.Elem, dims)
		if err != nil {
			return nil, err
		}
		if p.Values != nil {
			if i >= len(p.Values) || len(p.Values[i]) != t.Len() {
				return nil, fmt.Errorf("@%s: argument %d has %d elements, Values gives %d", p.Name, i, t.Len(), len(p.Values[i]))
			}
			for k, x := range p.Values[i] {
				if t.F64 != nil {
					t.F64[k] = interp.RoundTo(tt.Elem, x)
				} else {
					t.I64[k] = int64(x)
				}
			}
			out = append(out, t)
			continue
		}
		spec := p.args[i]
		// Each argument's values depend on the seed and its name only, so
		// that the minimizer can drop other arguments.
		r := rand.New(rand.NewSource(p.Seed*7919 + int64(len(spec.name))*131 + nameHash(spec.name)))
		var lo, hi int64
		if spec.table {
			if lo, err = spec.lo.Eval(env); err != nil {
				return nil, err
			}
			if hi, err = spec.hi.Eval(env); err != nil {
				return nil, err
			}
		}
		for k := 0; k < t.Len(); k++ {
			switch {
			case t.F64 != nil:
				x := r.Float64()*2 - 1
				if p.specials && r.Intn(40) == 0 {
					x = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1e30, -3.5e38}[r.Intn(7)]
				}
				t.F64[k] = interp.RoundTo(tt.Elem, x)
			case spec.table:
				if r.Intn(6) == 0 {
					t.I64[k] = -1
				} else {
					t.I64[k] = lo - 2 + r.Int63n(max(hi-lo, 0)+4)
				}
				if spec.far && r.Intn(8) == 0 {
					w := tt.Elem.(ir.IntegerType).Width
					t.I64[k] = []int64{lo - 1000, hi + 1000, -1 << (w - 1), 1<<(w-1) - 1}[r.Intn(4)]
				}
			default:
				x := int64(r.Intn(16) - 8)
				if p.specials && r.Intn(30) == 0 {
					w := tt.Elem.(ir.IntegerType).Width
					x = []int64{-1 << (w - 1), 1<<(w-1) - 1, -1, 0}[r.Intn(4)]
				}
				t.I64[k] = x
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func nameHash(s string) int64 {
	h := int64(17)
	for _, c := range s {
		h = h*31 + int64(c)
	}
	return h
}

// Fixed is a program given as text (one tir.func named name), run on the
// given argument values with the given symbols: a regression test's
// minimized finding.
func Fixed(name, text string, syms map[string]int64, values ...[]float64) *Program {
	if syms == nil {
		syms = map[string]int64{}
	}
	if values == nil {
		values = [][]float64{}
	}
	return &Program{Name: name, Text: text, Syms: syms, Values: values}
}
