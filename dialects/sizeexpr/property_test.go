package sizeexpr

import (
	"fmt"
	"math/rand"
	"testing"
)

// tnode is a construction tree, evaluated directly (with the reference
// integer semantics written out here) and built through the constructors,
// so the property tests compare the canonical form against the input.
type tnode struct {
	op   string // "c" "v" "+" "-" "neg" "*" "floordiv" "ceildiv" "mod" "min" "max"
	c    int64  // constant, multiplier or divisor
	v    Expr   // variable
	kids []*tnode
}

var propVars = []Expr{N, M, K, I, J}

func genTree(r *rand.Rand, depth int) *tnode {
	if depth == 0 || r.Intn(4) == 0 {
		if r.Intn(3) == 0 {
			return &tnode{op: "c", c: int64(r.Intn(11) - 5)}
		}
		return &tnode{op: "v", v: propVars[r.Intn(len(propVars))]}
	}
	kid := func() *tnode { return genTree(r, depth-1) }
	switch r.Intn(10) {
	case 0, 1:
		return &tnode{op: "+", kids: []*tnode{kid(), kid()}}
	case 2:
		return &tnode{op: "-", kids: []*tnode{kid(), kid()}}
	case 3:
		return &tnode{op: "neg", kids: []*tnode{kid()}}
	case 4:
		return &tnode{op: "*", c: int64(r.Intn(7) - 3), kids: []*tnode{kid()}}
	case 5:
		return &tnode{op: "floordiv", c: int64(1 + r.Intn(4)), kids: []*tnode{kid()}}
	case 6:
		return &tnode{op: "ceildiv", c: int64(1 + r.Intn(4)), kids: []*tnode{kid()}}
	case 7:
		return &tnode{op: "mod", c: int64(1 + r.Intn(4)), kids: []*tnode{kid()}}
	case 8:
		return &tnode{op: "min", kids: []*tnode{kid(), kid()}}
	default:
		return &tnode{op: "max", kids: []*tnode{kid(), kid()}}
	}
}

func (n *tnode) String() string {
	switch n.op {
	case "c":
		return fmt.Sprint(n.c)
	case "v":
		return n.v.String()
	case "neg":
		return fmt.Sprintf("-(%v)", n.kids[0])
	case "*":
		return fmt.Sprintf("%d*(%v)", n.c, n.kids[0])
	case "floordiv", "ceildiv", "mod":
		return fmt.Sprintf("(%v) %s %d", n.kids[0], n.op, n.c)
	case "min", "max":
		return fmt.Sprintf("%s(%v, %v)", n.op, n.kids[0], n.kids[1])
	}
	return fmt.Sprintf("(%v %s %v)", n.kids[0], n.op, n.kids[1])
}

// eval is the reference semantics, independent of the package's helpers.
func (n *tnode) eval(env map[string]int64) int64 {
	switch n.op {
	case "c":
		return n.c
	case "v":
		v, _ := n.v.AsVar()
		return env[v.Name]
	}
	a := n.kids[0].eval(env)
	switch n.op {
	case "neg":
		return -a
	case "*":
		return n.c * a
	case "floordiv":
		q := a / n.c
		if q*n.c > a {
			q--
		}
		return q
	case "ceildiv":
		q := a / n.c
		if q*n.c < a {
			q++
		}
		return q
	case "mod":
		return a - n.c*(&tnode{op: "floordiv", c: n.c, kids: []*tnode{{op: "c", c: a}}}).eval(env)
	}
	b := n.kids[1].eval(env)
	switch n.op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "min":
		return min(a, b)
	default:
		return max(a, b)
	}
}

func (n *tnode) build(t *testing.T) Expr {
	var e Expr
	var err error
	switch n.op {
	case "c":
		return Const(n.c)
	case "v":
		return n.v
	case "neg":
		return Neg(n.kids[0].build(t))
	case "*":
		return Mul(n.kids[0].build(t), n.c)
	case "floordiv":
		e, err = FloorDiv(n.kids[0].build(t), n.c)
	case "ceildiv":
		e, err = CeilDiv(n.kids[0].build(t), n.c)
	case "mod":
		e, err = Mod(n.kids[0].build(t), n.c)
	case "+":
		return Add(n.kids[0].build(t), n.kids[1].build(t))
	case "-":
		return Sub(n.kids[0].build(t), n.kids[1].build(t))
	case "min":
		return Min(n.kids[0].build(t), n.kids[1].build(t))
	case "max":
		return Max(n.kids[0].build(t), n.kids[1].build(t))
	}
	if err != nil {
		t.Fatalf("building %v: %v", n, err)
	}
	return e
}

// randEnv gives symbols values >= 0 (the assumption of spec 2.5) and dims
// values of either sign.
func randEnv(r *rand.Rand) map[string]int64 {
	env := map[string]int64{}
	for _, x := range propVars {
		v, _ := x.AsVar()
		if v.Kind == SymbolVar {
			env[v.Name] = int64(r.Intn(12))
		} else {
			env[v.Name] = int64(r.Intn(25) - 12)
		}
	}
	return env
}

// TestPropertyCanonicalEval: the canonical form evaluates like the
// construction tree, prints to text that parses back to the same canonical
// form, and is idempotent under re-canonicalisation (Subst with nothing).
func TestPropertyCanonicalEval(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 5000; n++ {
		tree := genTree(r, 4)
		e := tree.build(t)
		for k := 0; k < 8; k++ {
			env := randEnv(r)
			got, err := e.Eval(envOf(env))
			if err != nil {
				t.Fatalf("%v -> %v: Eval: %v", tree, e, err)
			}
			if want := tree.eval(env); got != want {
				t.Fatalf("%v -> %v: with %v got %d, want %d", tree, e, env, got, want)
			}
		}
		back, err := Parse(e.String(), lookupTest)
		if err != nil {
			t.Fatalf("%v -> %v: does not parse back: %v", tree, e, err)
		}
		if !back.Equal(e) {
			t.Fatalf("%v -> %v: parses back as %v", tree, e, back)
		}
		if again := e.Subst(func(Var) (Expr, bool) { return Expr{}, false }); !again.Equal(e) {
			t.Fatalf("%v -> %v: re-canonicalises to %v", tree, e, again)
		}
	}
}

// TestPropertySubst: substituting then evaluating equals evaluating with
// the substituted values.
func TestPropertySubst(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := 0; n < 2000; n++ {
		e := genTree(r, 3).build(t)
		repl := genTree(r, 2).build(t) // replaces i
		s := e.Subst(func(v Var) (Expr, bool) { return repl, v.Name == "i" })
		for k := 0; k < 5; k++ {
			env := randEnv(r)
			iv, err := repl.Eval(envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			env2 := map[string]int64{}
			for k, v := range env {
				env2[k] = v
			}
			env2["i"] = iv
			want, err1 := e.Eval(envOf(env2))
			got, err2 := s.Eval(envOf(env))
			if err1 != nil || err2 != nil || got != want {
				t.Fatalf("(%v)[i := %v] = %v: got %d, want %d (%v, %v)", e, repl, s, got, want, err1, err2)
			}
		}
	}
}

// TestPropertyProverSound: whatever ProveLE, ProveLT and Compare claim
// holds at random points (symbols >= 0).
func TestPropertyProverSound(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	proved := 0
	for n := 0; n < 5000; n++ {
		a := genTree(r, 3).build(t)
		var b Expr
		if r.Intn(2) == 0 {
			b = genTree(r, 3).build(t)
		} else {
			// Related expressions make proofs likely.
			b = Add(a, genTree(r, 2).build(t))
		}
		le, lt := ProveLE(a, b), ProveLT(a, b)
		cmp, ok := Compare(a, b)
		if le || lt || ok {
			proved++
		}
		for k := 0; k < 10; k++ {
			env := randEnv(r)
			x, _ := a.Eval(envOf(env))
			y, _ := b.Eval(envOf(env))
			if le && x > y || lt && x >= y {
				t.Fatalf("%v vs %v: ProveLE %v ProveLT %v, but %d vs %d at %v", a, b, le, lt, x, y, env)
			}
			if ok && cmpInt(x, y) != cmp {
				t.Fatalf("Compare(%v, %v) = %d, but %d vs %d at %v", a, b, cmp, x, y, env)
			}
		}
	}
	if proved < 500 {
		t.Errorf("only %d of 5000 comparisons decided: the test exercises too little", proved)
	}
}
