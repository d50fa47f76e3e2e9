package grammar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/antlr4-go/antlr/v4"

	"tir/grammar/tcparser"
)

// Tests of the TC grammar (TC.g4): every input is parsed twice, once
// normally and once in exact ambiguity detection mode, which must report
// no ambiguity and build the same tree.

type tcResult struct {
	tree   tcparser.IModule_Context
	parser *tcparser.TCParser
	rec    *recorder
}

func parseTC(input string, exactAmbig bool) tcResult {
	rec := &recorder{DefaultErrorListener: antlr.NewDefaultErrorListener()}
	lexer := tcparser.NewTCLexer(antlr.NewInputStream(input))
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(rec)
	p := tcparser.NewTCParser(antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel))
	p.RemoveErrorListeners()
	p.AddErrorListener(rec)
	if exactAmbig {
		p.GetInterpreter().SetPredictionMode(antlr.PredictionModeLLExactAmbigDetection)
	}
	return tcResult{tree: p.Module_(), parser: p, rec: rec}
}

func mustParseTC(t *testing.T, input string) *tcparser.Module_Context {
	t.Helper()
	r := parseTC(input, false)
	if len(r.rec.errs) > 0 {
		t.Fatalf("syntax errors:\n  %s\ninput:\n%s", strings.Join(r.rec.errs, "\n  "), input)
	}
	x := parseTC(input, true)
	if len(x.rec.errs) > 0 {
		t.Fatalf("syntax errors in exact-ambiguity mode:\n  %s", strings.Join(x.rec.errs, "\n  "))
	}
	if len(x.rec.ambigs) > 0 {
		t.Errorf("ambiguous decisions:\n  %s", strings.Join(x.rec.ambigs, "\n  "))
	}
	a := r.tree.ToStringTree(nil, r.parser)
	if b := x.tree.ToStringTree(nil, x.parser); a != b {
		t.Errorf("SLL/LL and exact-ambiguity modes built different trees:\n%s\n%s", a, b)
	}
	return r.tree.(*tcparser.Module_Context)
}

func TestTCSharedExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tc"))
	if len(files) == 0 {
		t.Skip("../../shared/examples not found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if m := mustParseTC(t, string(src)); len(m.AllFunc_()) != 1 {
				t.Errorf("%d functions, want 1", len(m.AllFunc_()))
			}
		})
	}
}

func TestTCForms(t *testing.T) {
	src := `# every form of the language
def f(float(M, K) A, float(K) B, float c, double() D, int32(N) C) -> (O, float(M) P, Q) {
  O(m, n) +=! A(m, r_k) * B(r_k) where n in 0:N
  P(m) = c * A(m, 0) + D() ? 1.5e-3f : -.5 # trailing comment
  Q(i) max=! A(i, k) where exists B(k), k in 0:A.1
  S +=! A(i, j)
  O2, O3 = g(A, B)
  O4 = g2(A)
  T(i) min= !(A(i, 0) < 1 && A(i, 1) >= 0x1f || i % 2 == 0)
}
def g(float(M, K) X, float(K) Y) -> (U, V) {
  U(i) *= X(i, 0)
  V(i) *=! Y(i)
}`
	m := mustParseTC(t, src)
	fns := m.AllFunc_()
	if len(fns) != 2 || fns[0].GetName().GetText() != "f" || fns[1].GetName().GetText() != "g" {
		t.Fatalf("functions: %d", len(fns))
	}
	var kinds []string
	for _, s := range fns[0].AllStmt() {
		kinds = append(kinds, strings.TrimSuffix(fmt.Sprintf("%T", s), "Context")[len("*tcparser."):])
	}
	if got := strings.Join(kinds, " "); got != "AssignStmt AssignStmt AssignStmt AssignStmt CallStmt AssignStmt AssignStmt" {
		t.Errorf("statement kinds: %s", got)
	}
}

// TestTCPrecedence checks C's precedence and associativity by
// parenthesising the parse tree.
func TestTCPrecedence(t *testing.T) {
	cases := map[string]string{
		"a + b * c":              "(a+(b*c))",
		"a - b - c":              "((a-b)-c)",
		"-a * b":                 "((-a)*b)",
		"a < b == c < d":         "((a<b)==(c<d))",
		"a || b && c":            "(a||(b&&c))",
		"a ? b : c ? d : e":      "(a?b:(c?d:e))",
		"a + b < c ? d : e":      "(((a+b)<c)?d:e)",
		"!a && b":                "((!a)&&b)",
		"a / b % c * d":          "(((a/b)%c)*d)",
		"A(i + 1, j) * T.1":      "(A((i+1),j)*T.1)",
		"fmax(O(b, n), 0) + .5":  "(fmax(O(b,n),0)+.5)",
		"a >= b != (c <= d)":     "((a>=b)!=(c<=d))",
		"x == 1e5 ? 0x1F : 10ul": "((x==1e5)?0x1F:10ul)",
	}
	for in, want := range cases {
		m := mustParseTC(t, "def f() -> (O) {\n  O(i) = "+in+"\n}\n")
		st := m.AllFunc_()[0].AllStmt()[0].(*tcparser.AssignStmtContext)
		if got := paren(st.GetRhs()); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

// paren writes an expression with a pair of parentheses per operator.
func paren(e tcparser.IExpContext) string {
	switch e := e.(type) {
	case *tcparser.ParenExpContext:
		return paren(e.Exp())
	case *tcparser.UnaryExpContext:
		return "(" + e.GetOp().GetText() + paren(e.Exp()) + ")"
	case *tcparser.CondExpContext:
		return "(" + paren(e.Exp(0)) + "?" + paren(e.Exp(1)) + ":" + paren(e.Exp(2)) + ")"
	case *tcparser.CallExpContext:
		var args []string
		for _, a := range e.AllExp() {
			args = append(args, paren(a))
		}
		return e.GetName().GetText() + "(" + strings.Join(args, ",") + ")"
	}
	type binary interface {
		Exp(int) tcparser.IExpContext
		GetOp() antlr.Token
	}
	if b, ok := e.(binary); ok {
		return "(" + paren(b.Exp(0)) + b.GetOp().GetText() + paren(b.Exp(1)) + ")"
	}
	return e.GetText()
}

func TestTCLexing(t *testing.T) {
	lex := func(s string) string {
		l := tcparser.NewTCLexer(antlr.NewInputStream(s))
		l.RemoveErrorListeners()
		var out []string
		for tok := l.NextToken(); tok.GetTokenType() != antlr.TokenEOF; tok = l.NextToken() {
			name := l.SymbolicNames[tok.GetTokenType()]
			if name == "" {
				name = l.LiteralNames[tok.GetTokenType()]
			}
			out = append(out, name+":"+tok.GetText())
		}
		return strings.Join(out, " ")
	}
	cases := map[string]string{
		"T.1 .5 1. 1.5e-3f 1e5 0x1F 10ul 2i r_k _x": "ID:T DOT_INT:.1 DOT_INT:.5 FLOAT:1. FLOAT:1.5e-3f FLOAT:1e5 INT:0x1F INT:10ul ID:2i ID:r_k ID:_x",
		"+=! += *=! min=! max= min (":               "PLUS_EQ_BANG:+=! PLUS_EQ:+= TIMES_EQ_BANG:*=! MIN_EQ_BANG:min=! MAX_EQ:max= ID:min '(':(",
		"def where in exists inx -> # comment":      "DEF:def WHERE:where IN:in EXISTS:exists ID:inx ARROW:->",
	}
	for in, want := range cases {
		if got := lex(in); got != want {
			t.Errorf("lex %q:\n got  %s\n want %s", in, got, want)
		}
	}
}

func TestTCMalformed(t *testing.T) {
	cases := map[string]string{
		"missing arrow":     "def f(float(N) A) (B) { B(i) = A(i) }",
		"unbalanced":        "def f(float(N) A) -> (B) { B(i) = A(i)",
		"bad operator":      "def f(float(N) A) -> (B) { B(i) += = A(i) }",
		"bad char":          "def f(float(N) A) -> (B) { B(i) = A(i) $ 2 }",
		"empty where":       "def f(float(N) A) -> (B) { B(i) = A(i) where }",
		"expression on lhs": "def f(float(N) A) -> (B) { B(i + 1) = A(i) }",
		"call with exprs":   "def f(float(N) A) -> (B, C) { B, C = g(A + 1) }",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			for _, exact := range []bool{false, true} {
				r := parseTC(src, exact)
				if len(r.rec.errs) == 0 {
					t.Fatalf("no syntax error recorded for %q", src)
				}
				for _, e := range r.rec.errs {
					var line, col int
					if n, _ := fmt.Sscanf(e, "%d:%d:", &line, &col); n != 2 || line < 1 || col < 0 {
						t.Errorf("error without position: %s", e)
					}
				}
			}
		})
	}
}
