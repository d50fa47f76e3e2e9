package randprog

import (
	"fmt"
	"math/rand"
	"strings"

	"tir/dialects/printer"
	"tir/dialects/sizeexpr"
	"tir/dialects/tc"
)

// Tensor Comprehensions programs whose reads go through data-dependent
// indices (E(tok(t), d): tir.gather after the import) over index tables
// that hold out-of-range values, negative and past the extent, so that
// masked points reach the results in every way TC can write: read as is,
// through arithmetic, reduced over, accumulated into (a masked init),
// guarded by a condition, gathered again from a temporary, through an
// index read through another table. The import is printed as tir and runs
// through the same harness as the tir programs; the TC source goes along
// as a comment.

// tcSizes are the program's size symbols: E is V x D, B is V, tok is T,
// tok2 is S (indices into T), nb is T x J, X is T x D, Y is T x D x K.
var tcSizes = []string{"V", "D", "T", "S", "J", "K"}

// tcGen builds the statements of one TC function.
type tcGen struct {
	r       *rand.Rand
	isFloat bool
	lines   []string
	outs    []string
	ops     []string
	n       int
}

// GenerateTC makes the TC program of a seed, named c<seed>.
func GenerateTC(seed int64) *Program {
	r := rand.New(rand.NewSource(seed))
	name := fmt.Sprintf("c%d", seed)
	p := &Program{Seed: seed, Name: name, Syms: map[string]int64{}, specials: true}
	for _, s := range tcSizes {
		p.Syms[s] = int64(1 + r.Intn(5))
	}
	// Sometimes nothing to gather from (every index is masked), or an
	// empty reduction (an accumulation keeps its init).
	if r.Intn(8) == 0 {
		p.Syms["V"] = 0
	}
	if r.Intn(6) == 0 {
		p.Syms["K"] = 0
	}
	elem := []string{"float", "double", "int32", "int64"}[r.Intn(4)]
	index := []string{"int32", "int64"}[r.Intn(2)]
	g := &tcGen{r: r, isFloat: elem == "float" || elem == "double"}
	for k := 1 + r.Intn(3); k > 0; k-- {
		g.statement()
	}
	sig := fmt.Sprintf("def %s(%s(V, D) E, %s(V) B, %s(T) tok, %s(S) tok2, %s(T, J) nb, %s(T, D) X, %s(T, D, K) Y) -> (%s)",
		name, elem, elem, index, index, index, elem, elem, strings.Join(g.outs, ", "))
	src := sig + " {\n" + strings.Join(g.lines, "") + "}\n"
	p.tc = src
	p.Ops = g.ops
	v, t := sizeexpr.Sym("V", 0), sizeexpr.Sym("T", 0)
	zero := sizeexpr.Const(0)
	p.args = []argSpec{
		{name: "E"}, {name: "B"},
		{name: "tok", table: true, far: true, lo: zero, hi: v},
		{name: "tok2", table: true, far: true, lo: zero, hi: t},
		{name: "nb", table: true, far: true, lo: zero, hi: v},
		{name: "X"}, {name: "Y"},
	}
	m, diags := tc.Import(name+".tc", src)
	if m == nil || diags.HasErrors() {
		// NewCase reports it: the generator must only write valid TC.
		p.Text = fmt.Sprintf("// the TC program does not import: %v\n%s", diags, commentTC(src))
		return p
	}
	p.Text = commentTC(src) + printer.Module(m, printer.Options{NoAliases: true}) + "\n"
	return p
}

// commentTC is TC source as tir comments.
func commentTC(src string) string {
	return "// " + strings.ReplaceAll(strings.TrimRight(src, "\n"), "\n", "\n// ") + "\n"
}

func (g *tcGen) fresh(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

// index is a row of E (or B) read through tok at t, or through tok2 then
// tok at s: the gathered index, sometimes moved or clamped.
func (g *tcGen) index(v string) string {
	if v == "s" {
		return "tok(tok2(s))"
	}
	switch g.r.Intn(8) {
	case 0:
		return "tok(t) + 1"
	case 1:
		return "tok(t) - 2"
	case 2:
		return "2 * tok(t) - 1"
	case 3:
		// Inside whenever E has a row; with V = 0 still masked.
		return "max(min(tok(t), V - 1), 0)"
	}
	return "tok(t)"
}

// row is E at the gathered row, column d, sometimes combined with data
// that is never masked (on t only: X has no s).
func (g *tcGen) row(v string) string {
	a := fmt.Sprintf("E(%s, d)", g.index(v))
	switch g.r.Intn(6) {
	case 0:
		return a + " * 2"
	case 1:
		return "-" + a
	case 2:
		if v == "t" {
			return a + " + X(t, d)"
		}
	case 3:
		if v == "t" {
			return fmt.Sprintf("max(%s, X(t, d))", a)
		}
	}
	return a
}

func (g *tcGen) reduction() string {
	return []string{"+", "*", "min", "max"}[g.r.Intn(4)]
}

// statement adds one output (and the temporaries it reads).
func (g *tcGen) statement() {
	o := g.fresh("O")
	g.outs = append(g.outs, o)
	add := func(kind, format string, args ...any) {
		g.lines = append(g.lines, "  "+fmt.Sprintf(format, args...)+"\n")
		g.ops = append(g.ops, "tc-"+kind)
	}
	switch g.r.Intn(9) {
	case 0:
		add("gather", "%s(t, d) = %s", o, g.row("t"))
	case 1:
		// A reduction over the neighbours skips the masked ones.
		add("reduce", "%s(t, d) %s=! E(nb(t, j), d)", o, g.reduction())
	case 2:
		// Accumulating into a gathered value: a reduction whose init is
		// masked (or, with K = 0, that only has its init).
		add("gather", "%s(t, d) = %s", o, g.row("t"))
		add("accumulate", "%s(t, d) %s= Y(t, d, k)", o, g.reduction())
	case 3:
		// In place, without a reduction variable: elementwise.
		add("gather", "%s(t, d) = %s", o, g.row("t"))
		add("in-place", "%s(t, d) %s= X(t, d)", o, g.reduction())
	case 4:
		// Guarded: the masked branch is never chosen.
		add("guard", "%s(t, d) = tok(t) >= 0 && tok(t) < V ? E(tok(t), d) : 3", o)
	case 5:
		// Gathered again from a temporary that holds masked points, by
		// a second table whose entries may be out of range too.
		tmp := g.fresh("G")
		add("gather", "%s(t, d) = %s", tmp, g.row("t"))
		add("chain", "%s(s, d) = %s(tok2(s), d)", o, tmp)
	case 6:
		// A temporary with masked points reduced over d.
		tmp := g.fresh("G")
		add("gather", "%s(t, d) = %s", tmp, g.row("t"))
		add("reduce-temp", "%s(t) %s=! %s(t, d)", o, g.reduction(), tmp)
	case 7:
		v := []string{"t", "s"}[g.r.Intn(2)]
		add("gather-1d", "%s(%s) = B(%s)", o, v, g.index(v))
	default:
		add("two-level", "%s(s, d) = %s", o, g.row("s"))
	}
}

// isTC reports whether the program came from GenerateTC: its text is the
// import's, which the minimizer cannot take apart.
func (p *Program) isTC() bool { return p.tc != "" }
