package grammar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/antlr4-go/antlr/v4"

	"tir/grammar/tirparser"
)

// recorder collects syntax errors (lexer and parser) and, in exact ambiguity
// detection mode, the ambiguities the prediction had to resolve by rule order.
type recorder struct {
	*antlr.DefaultErrorListener
	errs   []string
	ambigs []string
}

func (r *recorder) SyntaxError(_ antlr.Recognizer, _ interface{}, line, column int, msg string, _ antlr.RecognitionException) {
	r.errs = append(r.errs, fmt.Sprintf("%d:%d: %s", line, column, msg))
}

func (r *recorder) ReportAmbiguity(p antlr.Parser, _ *antlr.DFA, start, stop int, exact bool, alts *antlr.BitSet, _ *antlr.ATNConfigSet) {
	rule := p.GetRuleNames()[p.GetParserRuleContext().GetRuleIndex()]
	text := p.GetTokenStream().GetTextFromInterval(antlr.NewInterval(start, stop))
	r.ambigs = append(r.ambigs, fmt.Sprintf("rule %s, alts %v, exact %v: %q", rule, alts, exact, text))
}

type parseResult struct {
	tree   tirparser.IModule_Context
	parser *tirparser.TIRParser
	rec    *recorder
}

func parse(input string, exactAmbig bool) parseResult {
	rec := &recorder{DefaultErrorListener: antlr.NewDefaultErrorListener()}
	lexer := tirparser.NewTIRLexer(antlr.NewInputStream(input))
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(rec)
	p := tirparser.NewTIRParser(antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel))
	p.RemoveErrorListeners()
	p.AddErrorListener(rec)
	if exactAmbig {
		p.GetInterpreter().SetPredictionMode(antlr.PredictionModeLLExactAmbigDetection)
	}
	return parseResult{tree: p.Module_(), parser: p, rec: rec}
}

// mustParse parses input, fails on any syntax error, and checks in exact
// ambiguity detection mode that no decision was ambiguous (so the parse does
// not depend on alternative order) and that both modes build the same tree.
func mustParse(t *testing.T, input string) *tirparser.Module_Context {
	t.Helper()
	r := parse(input, false)
	if len(r.rec.errs) > 0 {
		t.Fatalf("syntax errors:\n  %s\ninput:\n%s", strings.Join(r.rec.errs, "\n  "), input)
	}
	x := parse(input, true)
	if len(x.rec.errs) > 0 {
		t.Fatalf("syntax errors in exact-ambiguity mode:\n  %s", strings.Join(x.rec.errs, "\n  "))
	}
	if len(x.rec.ambigs) > 0 {
		t.Errorf("ambiguous decisions:\n  %s", strings.Join(x.rec.ambigs, "\n  "))
	}
	a := r.tree.ToStringTree(nil, r.parser)
	b := x.tree.ToStringTree(nil, x.parser)
	if a != b {
		t.Errorf("SLL/LL and exact-ambiguity modes built different trees:\n%s\n%s", a, b)
	}
	return r.tree.(*tirparser.Module_Context)
}

// ---------------------------------------------------------------- helpers

func topOps(m *tirparser.Module_Context) []*tirparser.OperationContext {
	var ops []*tirparser.OperationContext
	for _, tl := range m.AllTopLevel() {
		if op := tl.Operation(); op != nil {
			ops = append(ops, op.(*tirparser.OperationContext))
		}
	}
	return ops
}

func countTopLevel(m *tirparser.Module_Context) (typeAliases, attrAliases, ops int) {
	for _, tl := range m.AllTopLevel() {
		switch {
		case tl.TypeAliasDef() != nil:
			typeAliases++
		case tl.AttrAliasDef() != nil:
			attrAliases++
		default:
			ops++
		}
	}
	return
}

// collect returns all nodes of type T in the tree, in pre-order.
func collect[T antlr.Tree](n antlr.Tree) []T {
	var out []T
	var walk func(antlr.Tree)
	walk = func(n antlr.Tree) {
		if v, ok := n.(T); ok {
			out = append(out, v)
		}
		for _, c := range n.GetChildren() {
			walk(c)
		}
	}
	walk(n)
	return out
}

func opName(op *tirparser.OperationContext) string {
	if c := op.CustomOp(); c != nil {
		return c.OpName().GetText()
	}
	return op.GenericOp().STRING().GetText()
}

// kinds names the labelled alternatives of a list of contexts, without the
// "Context" suffix (e.g. "ValueItem").
func kinds[T any](items []T) []string {
	var out []string
	for _, it := range items {
		out = append(out, strings.TrimSuffix(reflect.TypeOf(it).Elem().Name(), "Context"))
	}
	return out
}

func items(op *tirparser.OperationContext) []tirparser.ICustomItemContext {
	return op.CustomOp().AllCustomItem()
}

// flat lists the items of a custom op the way a cursor-style walker sees
// them: the binding items (`%v = X`, `(..) = X`, `: X`, `, X`) are
// flattened into their punctuation and the bound item, and the "Item"
// suffix is dropped (ValueItem -> Value).
func flat(its []tirparser.ICustomItemContext) []string {
	var out []string
	var add func(it tirparser.ICustomItemContext)
	add = func(it tirparser.ICustomItemContext) {
		switch x := it.(type) {
		case *tirparser.ValueBindItemContext:
			out = append(out, "Value", "=")
			add(x.CustomItem())
		case *tirparser.GroupBindItemContext:
			out = append(out, "Paren", "=")
			add(x.CustomItem())
		case *tirparser.ColonItemContext:
			out = append(out, ":")
			add(x.CustomItem())
		case *tirparser.CommaItemContext:
			out = append(out, ",")
			switch e := x.GroupElem().(type) {
			case *tirparser.GroupCustomElemContext:
				add(e.CustomItem())
			default:
				out = append(out, "String")
			}
		case *tirparser.PunctItemContext:
			out = append(out, x.GetPunct().GetText())
		default:
			out = append(out, strings.TrimSuffix(kinds([]tirparser.ICustomItemContext{it})[0], "Item"))
		}
	}
	for _, it := range its {
		add(it)
	}
	return out
}

func expectFlat(t *testing.T, what string, op *tirparser.OperationContext, want string) {
	t.Helper()
	if got := strings.Join(flat(items(op)), " "); got != want {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func expectKinds[T any](t *testing.T, what string, got []T, want ...string) {
	t.Helper()
	if k := kinds(got); strings.Join(k, " ") != strings.Join(want, " ") {
		t.Errorf("%s: got %v, want %v", what, k, want)
	}
}

func expectOpNames(t *testing.T, m antlr.Tree, want ...string) {
	t.Helper()
	var got []string
	for _, op := range collect[*tirparser.OperationContext](m) {
		got = append(got, opName(op))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("operations: got %v, want %v", got, want)
	}
}

// ---------------------------------------------------------------- examples

var opLine = regexp.MustCompile(`^\s*(%[\w.$-]+(:\d+)?\s*(,\s*%[\w.$-]+(:\d+)?\s*)*=\s*)?[a-z_]+\.[a-z_]+`)

func TestExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "examples")
	files, err := filepath.Glob(filepath.Join(dir, "*.tir"))
	if err != nil || len(files) == 0 {
		t.Skipf("no examples in %s (shared examples directory missing)", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m := mustParse(t, string(src))
			// One operation per source line that starts with an op (after
			// optional results), one type alias per line starting with '!'.
			wantOps, wantAliases, wantLabels := 0, 0, 0
			for _, line := range strings.Split(string(src), "\n") {
				if i := strings.Index(line, "//"); i >= 0 {
					line = line[:i]
				}
				s := strings.TrimSpace(line)
				switch {
				case strings.HasPrefix(s, "!"):
					wantAliases++
				case strings.HasPrefix(s, "^"):
					wantLabels++
				case opLine.MatchString(line):
					wantOps++
				}
			}
			if n := len(collect[*tirparser.OperationContext](m)); n != wantOps {
				t.Errorf("operations: got %d, want %d", n, wantOps)
			}
			if n := len(collect[*tirparser.BlockLabelContext](m)); n != wantLabels {
				t.Errorf("block labels: got %d, want %d", n, wantLabels)
			}
			ta, aa, ops := countTopLevel(m)
			if ta != wantAliases || aa != 0 || ops != 1 {
				t.Errorf("top level: %d type aliases, %d attr aliases, %d ops; want %d, 0, 1", ta, aa, ops, wantAliases)
			}
			if name := opName(topOps(m)[0]); name != "tir.func" {
				t.Errorf("top-level op is %s, want tir.func", name)
			}
			// Each custom op ends with a return whose result type is given
			// and every tir.func body is a single region item at the end.
			fn := items(topOps(m)[0])
			if _, ok := fn[len(fn)-1].(*tirparser.RegionItemContext); !ok {
				t.Errorf("tir.func does not end with a region: %v", kinds(fn))
			}
		})
	}
}

// ---------------------------------------------------------------- inline

func TestGenericOpWithAttributes(t *testing.T) {
	src := `%0 = "tir.shift"(%arg0) {offsets = #tir.offsets<[I + 1, J - 2]>, n = 3 : i64, f = 1.0 : f32, s = "x", arr = [1, 2], u} : (!tir.tensor<f32, I[-1:6]>) -> !tir.tensor<f32, I[-2:5]>`
	m := mustParse(t, src)
	ops := topOps(m)
	if len(ops) != 1 {
		t.Fatalf("got %d ops", len(ops))
	}
	g := ops[0].GenericOp().(*tirparser.GenericOpContext)
	if g.STRING().GetText() != `"tir.shift"` {
		t.Errorf("op name %s", g.STRING().GetText())
	}
	if g.ValueUseList().GetText() != "%arg0" {
		t.Errorf("operands %s", g.ValueUseList().GetText())
	}
	entries := g.DictAttr().AllDictEntry()
	var got []string
	for _, e := range entries {
		k := e.DictKey().GetText()
		if e.Attribute() == nil {
			got = append(got, k+"=unit")
			continue
		}
		got = append(got, k+"="+kinds([]tirparser.IAttributeContext{e.Attribute()})[0])
	}
	want := "offsets=DialectAttribute n=NumberAttr f=NumberAttr s=StringAttr arr=ArrayAttr u=unit"
	if strings.Join(got, " ") != want {
		t.Errorf("attributes: got %v, want %s", got, want)
	}
	n := entries[1].Attribute().(*tirparser.NumberAttrContext)
	if n.GetValue().GetText() != "3" || n.Type_().GetText() != "i64" {
		t.Errorf("n = %s", n.GetText())
	}
	da := entries[0].Attribute().(*tirparser.DialectAttributeContext).DialectAttr()
	bl := collect[*tirparser.BracketListContext](da)
	if len(bl) != 1 {
		t.Fatalf("offsets: %d bracket lists", len(bl))
	}
	expectKinds(t, "offsets entries", bl[0].AllBracketEntry(), "ExprEntry", "ExprEntry")
	ft := g.FunctionType().(*tirparser.FunctionTypeContext)
	if ft.GetIns() == nil || len(ft.GetIns().AllType_()) != 1 || ft.GetOut() == nil {
		t.Errorf("function type %s", ft.GetText())
	}
	dims := collect[*tirparser.DimParamContext](ft)
	if len(dims) != 2 || dims[0].GetLo().GetText() != "-1" || dims[1].GetHi().GetText() != "5" {
		t.Errorf("dims %v", kinds(dims))
	}
	if _, ok := dims[0].GetLo().(*tirparser.NegExprContext); !ok {
		t.Errorf("I[-1:6]: lower bound is %T, want NegExpr", dims[0].GetLo())
	}
}

func TestGenericOpWithRegion(t *testing.T) {
	src := `"tir.func"() ({ ^bb0(%a: f32): "tir.return"(%a) : (f32) -> () }) {sym_name = "f", function_type = (f32) -> f32} : () -> ()`
	m := mustParse(t, src)
	expectOpNames(t, m, `"tir.func"`, `"tir.return"`)
	g := topOps(m)[0].GenericOp()
	if len(g.AllRegion()) != 1 {
		t.Fatalf("regions: %d", len(g.AllRegion()))
	}
	blocks := g.Region(0).AllBlock()
	if len(blocks) != 1 || len(blocks[0].AllOperation()) != 1 {
		t.Fatalf("blocks %d", len(blocks))
	}
	args := blocks[0].BlockLabel().AllBlockArg()
	if len(args) != 1 || args[0].Type_().GetText() != "f32" {
		t.Errorf("block args %v", args)
	}
	ft := g.DictAttr().DictEntry(1).Attribute().(*tirparser.TypeAttrContext).Type_()
	if _, ok := ft.(*tirparser.FuncTypeContext); !ok {
		t.Errorf("function_type is %T", ft)
	}
	ret := collect[*tirparser.FunctionTypeContext](blocks[0])[0]
	if ret.GetOuts() != nil || ret.GetOut() != nil || ret.RPAREN(1) == nil {
		t.Errorf("() result list: %s", ret.GetText())
	}
}

const affineFunc = `#map = affine_map<(d0)[s0] -> (d0 + s0 - 1)>
module {
  func.func @laplacian(%arg0: memref<7x9x9xf32>, %arg1: memref<5x7x9xf32>, %N: index) {
    %cst = arith.constant 4.000000e+00 : f32
    affine.for %i = 0 to 5 {
      affine.for %j = 0 to %N {
        affine.parallel (%k) = (0) to (9) {
          %0 = affine.load %arg0[%i + 1, %j + 1, %k] : memref<7x9x9xf32>
          %1 = arith.mulf %cst, %0 : f32
          %2 = affine.load %arg0[%i + 2, symbol(%N) - 1, %k] : memref<7x9x9xf32>
          %3 = affine.apply #map(%i)[%N]
          %4 = memref.alloc(%N) : memref<?xf32>
          %5 = affine.for %r = 0 to 7 iter_args(%acc = %1) -> (f32) {
            %6 = arith.addf %acc, %0 : f32
            affine.yield %6 : f32
          }
          affine.store %5, %arg1[%i, %j, %k] : memref<5x7x9xf32>
        }
      }
    }
    func.return
  }
}
`

func TestAffineFunction(t *testing.T) {
	m := mustParse(t, affineFunc)
	ta, aa, n := countTopLevel(m)
	if ta != 0 || aa != 1 || n != 1 {
		t.Fatalf("top level: %d %d %d", ta, aa, n)
	}
	expectOpNames(t, m, "module", "func.func", "arith.constant", "affine.for", "affine.for",
		"affine.parallel", "affine.load", "arith.mulf", "affine.load", "affine.apply",
		"memref.alloc", "affine.for", "arith.addf", "affine.yield", "affine.store", "func.return")
	amap := m.TopLevel(0).AttrAliasDef().Attribute().(*tirparser.AffineMapAttributeContext).AffineMapAttr()
	if amap.DimSymLists().GetDims().GetText() != "d0" || amap.DimSymLists().GetSyms().GetText() != "s0" || len(amap.AllExpr()) != 1 {
		t.Errorf("affine map %s", amap.GetText())
	}
	ops := collect[*tirparser.OperationContext](m)
	byName := func(name string, nth int) *tirparser.OperationContext {
		for _, op := range ops {
			if opName(op) == name {
				if nth == 0 {
					return op
				}
				nth--
			}
		}
		t.Fatalf("no %s", name)
		return nil
	}
	expectKinds(t, "func.func", items(byName("func.func", 0)), "SymbolItem", "ParenItem", "RegionItem")
	expectKinds(t, "affine.for", items(byName("affine.for", 0)), "ValueBindItem", "WordItem", "IntItem", "RegionItem")
	expectFlat(t, "affine.for", byName("affine.for", 0), "Value = Int Word Int Region")
	expectKinds(t, "affine.parallel", items(byName("affine.parallel", 0)),
		"GroupBindItem", "WordItem", "ParenItem", "RegionItem")
	expectFlat(t, "affine.load", byName("affine.load", 1), "Value Bracket : Type")
	expectFlat(t, "affine.apply", byName("affine.apply", 0), "AttrAlias Paren Bracket")
	expectFlat(t, "memref.alloc", byName("memref.alloc", 0), "Paren : Type")
	expectFlat(t, "iter_args for", byName("affine.for", 2), "Value = Int Word Int Word Paren -> Paren Region")
	iter := items(byName("affine.for", 2))[4].(*tirparser.ParenItemContext).ParenGroup()
	if b, ok := iter.GroupElem(0).(*tirparser.GroupCustomElemContext).CustomItem().(*tirparser.ValueBindItemContext); !ok ||
		b.VALUE_ID().GetText() != "%acc" || b.CustomItem().GetText() != "%1" {
		t.Errorf("iter_args: %s", iter.GetText())
	}
	expectFlat(t, "affine.store", byName("affine.store", 0), "Value , Value Bracket : Type")
	if r := byName("affine.for", 2).OpResult(0).GetText(); r != "%5" {
		t.Errorf("result %s", r)
	}
	// symbol(%N) - 1 is a subtraction whose left side is a call.
	load2 := byName("affine.load", 1)
	e := collect[*tirparser.BracketListContext](load2)[0].BracketEntry(1).(*tirparser.ExprEntryContext).Expr()
	sub, ok := e.(*tirparser.AddExprContext)
	if !ok || sub.GetOp().GetText() != "-" {
		t.Fatalf("symbol(%%N) - 1 parsed as %T", e)
	}
	if _, ok := sub.Expr(0).(*tirparser.AtomExprContext).Atom().(*tirparser.CallAtomContext); !ok {
		t.Errorf("symbol(%%N) is not a call")
	}
	// memref<?xf32>: one '?' dimension then the element type.
	mt := collect[*tirparser.ParametricTypeContext](byName("memref.alloc", 0))[0]
	sp := mt.TypeParam(0).(*tirparser.ShapeParamContext)
	if len(sp.AllSHAPE_DIM()) != 1 || sp.SHAPE_DIM(0).GetText() != "?x" || sp.Type_().GetText() != "f32" {
		t.Errorf("memref<?xf32>: %s", sp.GetText())
	}
}

func TestStridedMemref(t *testing.T) {
	m := mustParse(t, `%v = memref.cast %m : memref<4x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>`)
	its := items(topOps(m)[0])
	expectKinds(t, "memref.cast", its, "ValueItem", "ColonItem", "WordItem", "TypeItem")
	mt := its[3].(*tirparser.TypeItemContext).CompositeType().(*tirparser.ParametricTypeContext)
	expectKinds(t, "memref params", mt.AllTypeParam(), "ShapeParam", "ShapeParam")
	st := mt.TypeParam(1).(*tirparser.ShapeParamContext).Type_().(*tirparser.CompositeTypeAltContext).CompositeType().(*tirparser.ParametricTypeContext)
	if st.Identifier().GetText() != "strided" {
		t.Errorf("layout %s", st.GetText())
	}
	expectKinds(t, "strided params", st.AllTypeParam(), "ListParam", "KeyParam")
	if kp := st.TypeParam(1).(*tirparser.KeyParamContext); kp.Identifier().GetText() != "offset" || kp.Expr().GetText() != "?" {
		t.Errorf("offset %s", kp.GetText())
	}
	// memref layout as an affine map and an alias, plus a memory space.
	mustParse(t, `%v = memref.alloc() : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>
%w = memref.alloc() : memref<4x4xf32, #layout>
%x = arith.constant 0x7FC00000 : f32`)
}

func TestTirOps(t *testing.T) {
	cases := []struct{ src, flat string }{
		{`%y = tir.view %x [d0 = i + k, d1 = 2*j] : !tir.tensor<f32, i[0:5], k[0:3], j[0:4]>`, "Value Bracket : Type"},
		{`%y = tir.subset %x [I[1:4], K[0:N-1]]`, "Value Bracket"},
		{`%r = tir.reduce add %x over [E2V] init %c : !t`, "Word Value Word Bracket Word Value : Type"},
		{`%s = tir.scan forward along K[0:9] init %c ins(%a) { ^bb0(%s, %a1): tir.yield %s }`,
			"Word Word Word Bracket Word Value Word Paren Region"},
		{`%c = tir.constant (0.0, 0.0) : tuple<f32, f32>`, "Paren : Type"},
		{`%c = tir.constant -1.5e-3 : f32`, "- Float : Word"},
		{`%c = tir.constant 0x7FC00000 : f32`, "Hex : Word"},
		{`%c = tir.constant true : i1`, "Bool : Word"},
		{`%g = tir.gather %pp [Vertex = %e2v]`, "Value Bracket"},
		{`%p = tir.pos I of %x`, "Word Word Value"},
		{`%r = tir.cmp lt %a, %b`, "Word Value , Value"},
		{`%x = tir.tuple_get %t[1]`, "Value Bracket"},
		{`%r:2 = tir.call @g(%a, %b) : !t, !t`, "Symbol Paren : Type , Type"},
		{`%y = tir.broadcast %x [K[0:9]]`, "Value Bracket"},
		{`%y = tir.concat %a, %b along I`, "Value , Value Word Word"},
		{`tir.return %x, %y : !r1, tuple<f32, !tir.tensor<f32>>`, "Value , Value : Type , Type"},
		{`%y = tir.shift %x [I + 1, J - 2] : !tir.tensor<f32, I[?], J[0:?]>`, "Value Bracket : Type"},
		{`%y = tir.offset %x #tir.offsets<[I + 1], "s", 3>`, "Value DialectAttr"},
		{`%y = tir.assume_shape %x : !tir.tensor<f64, I[0:N]> attributes {a = 1 : i32}`, "Value : Type Attributes"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			m := mustParse(t, c.src)
			ops := topOps(m)
			if len(ops) != 1 {
				t.Fatalf("got %d top-level ops", len(ops))
			}
			expectFlat(t, "items", ops[0], c.flat)
		})
	}

	// Details of a few of them.
	m := mustParse(t, `%y = tir.view %x [d0 = i + k, d1 = 2*j] : !tir.tensor<f32, i[0:5], k[0:3], j[0:4]>`)
	bl := items(topOps(m)[0])[1].(*tirparser.BracketItemContext).BracketList()
	expectKinds(t, "view entries", bl.AllBracketEntry(), "NamedEntry", "NamedEntry")
	if e := bl.BracketEntry(1).(*tirparser.NamedEntryContext).Expr(); e.(*tirparser.MulExprContext).GetOp().GetText() != "*" {
		t.Errorf("2*j: %T", e)
	}
	ty := items(topOps(m)[0])[2].(*tirparser.ColonItemContext).CustomItem().(*tirparser.TypeItemContext)
	dt := ty.CompositeType().(*tirparser.DialectTypeContext)
	if dt.BANG_ID().GetText() != "!tir.tensor" {
		t.Errorf("type %s", dt.BANG_ID().GetText())
	}
	expectKinds(t, "tensor params", dt.AllTypeParam(), "ShapeParam", "DimParam", "DimParam", "DimParam")

	m = mustParse(t, `%y = tir.subset %x [I[1:4], K[0:N-1]]`)
	bl = items(topOps(m)[0])[1].(*tirparser.BracketItemContext).BracketList()
	expectKinds(t, "subset entries", bl.AllBracketEntry(), "DimEntry", "DimEntry")

	m = mustParse(t, `%s = tir.scan forward along K[0:9] init %c ins(%a) { ^bb0(%s, %a1): tir.yield %s }`)
	bl = items(topOps(m)[0])[3].(*tirparser.BracketItemContext).BracketList()
	expectKinds(t, "along entries", bl.AllBracketEntry(), "RangeEntry")
	args := collect[*tirparser.BlockArgContext](m)
	if len(args) != 2 || args[0].Type_() != nil {
		t.Errorf("untyped block args: %d", len(args))
	}

	m = mustParse(t, `%g = tir.gather %pp [Vertex = %e2v]`)
	bl = items(topOps(m)[0])[1].(*tirparser.BracketItemContext).BracketList()
	ne := bl.BracketEntry(0).(*tirparser.NamedEntryContext)
	if ne.Identifier().GetText() != "Vertex" {
		t.Errorf("gather %s", ne.GetText())
	}
	if _, ok := ne.Expr().(*tirparser.AtomExprContext).Atom().(*tirparser.ValueAtomContext); !ok {
		t.Errorf("gather index is not a value")
	}

	m = mustParse(t, `%r:2 = tir.call @g(%a, %b) : !t, !t`)
	res := topOps(m)[0].OpResult(0)
	if res.VALUE_ID().GetText() != "%r" || res.INT().GetText() != "2" {
		t.Errorf("result pack %s", res.GetText())
	}
}

func TestReduceAndScanRegions(t *testing.T) {
	src := `!t = !tir.tensor<f32, V[0:N]>
tir.func @f(%zero: !t, %a: !tir.tensor<f32, V[0:N], V2E[0:7]>, %b: !tir.tensor<f32, V2E[0:7]>) -> !t {
  %r = tir.reduce over [V2E] init %zero ins(%a, %b) {
  ^bb0(%acc: !tir.tensor<f32>, %av: !tir.tensor<f32>, %bv: !tir.tensor<f32>):
    %m = tir.mul %av, %bv
    %s = tir.add %acc, %m
    tir.yield %s
  } : !t
  %q = tir.scan forward along V init %zero ins(%r) {
  ^bb0(%state, %rv):
    %n = tir.add %state, %rv
    tir.yield %n
  } : !t
  %k = tir.scan backward along K init %zero ins(%a, %b) {
  ^bb0(%st: !tir.tensor<f32>, %x, %y):
    tir.yield %st : !tir.tensor<f32>
  }
  tir.return %q : !t
}
`
	m := mustParse(t, src)
	expectOpNames(t, m, "tir.func", "tir.reduce", "tir.mul", "tir.add", "tir.yield",
		"tir.scan", "tir.add", "tir.yield", "tir.scan", "tir.yield", "tir.return")
	ops := collect[*tirparser.OperationContext](m)
	expectFlat(t, "tir.reduce", ops[1], "Word Bracket Word Value Word Paren Region : Type")
	labels := collect[*tirparser.BlockLabelContext](m)
	if len(labels) != 3 || len(labels[0].AllBlockArg()) != 3 || labels[1].BlockArg(0).Type_() != nil ||
		labels[2].BlockArg(0).Type_() == nil || labels[2].BlockArg(1).Type_() != nil {
		t.Errorf("block labels %d", len(labels))
	}
}

func TestSizeExpressions(t *testing.T) {
	src := `!a = !tir.tensor<f32, I[0:(N+1) floordiv 2]>
!b = !tir.tensor<f32, I[0:min(N, M)], J[?]>
!c = !tir.tensor<f32, K[0:2*N + M - 1], L[0:N ceildiv 4], P[1:N mod 3], Q[0:max(N, M, 2) - -1]>
!d = !tir.tensor<tuple<f32, tuple<i32, f64>>, x[-3:5]>
`
	m := mustParse(t, src)
	if ta, _, _ := countTopLevel(m); ta != 4 {
		t.Fatalf("aliases %d", ta)
	}
	dims := collect[*tirparser.DimParamContext](m)
	var his []string
	for _, d := range dims {
		if d.GetHi() == nil {
			his = append(his, "nil:"+d.GetLo().GetText())
			continue
		}
		his = append(his, kinds([]tirparser.IExprContext{d.GetHi()})[0])
	}
	want := "MulExpr AtomExpr nil:? AddExpr MulExpr MulExpr AddExpr AtomExpr"
	if strings.Join(his, " ") != want {
		t.Errorf("upper bounds: %v, want %s", his, want)
	}
	// (N+1) floordiv 2 is floordiv(paren(N+1), 2).
	fd := dims[0].GetHi().(*tirparser.MulExprContext)
	if fd.GetOp().GetText() != "floordiv" {
		t.Errorf("op %s", fd.GetOp().GetText())
	}
	if _, ok := fd.Expr(0).(*tirparser.AtomExprContext).Atom().(*tirparser.ParenAtomContext); !ok {
		t.Errorf("(N+1) not a paren atom")
	}
	// 2*N + M - 1 is ((2*N) + M) - 1.
	e := dims[3].GetHi().(*tirparser.AddExprContext)
	if e.GetOp().GetText() != "-" || e.Expr(0).(*tirparser.AddExprContext).GetOp().GetText() != "+" {
		t.Errorf("2*N + M - 1 grouped wrongly")
	}
	if _, ok := dims[1].GetHi().(*tirparser.AtomExprContext).Atom().(*tirparser.CallAtomContext); !ok {
		t.Errorf("min(N, M) not a call")
	}
}

func TestAffineSetAlias(t *testing.T) {
	src := `#set = affine_set<(d0)[s0] : (d0 - 1 >= 0, s0 - d0 - 1 >= 0)>
#set2 = affine_set<(d0, d1) : (d0 == 0, d1 <= 5)>
#id = affine_map<(d0, d1) -> (d0, d1 floordiv 2, d0 mod 4, -d1)>
#e = affine_map<() -> ()>
func.func @f(%i: index, %n: index) {
  affine.if #set(%i)[%n] {
    affine.yield
  } else {
    affine.yield
  }
  func.return
}
`
	m := mustParse(t, src)
	ta, aa, n := countTopLevel(m)
	if ta != 0 || aa != 4 || n != 1 {
		t.Fatalf("top level %d %d %d", ta, aa, n)
	}
	set := m.TopLevel(0).AttrAliasDef().Attribute().(*tirparser.AffineSetAttributeContext).AffineSetAttr()
	cs := set.AllConstraint()
	if len(cs) != 2 || cs[0].GetOp().GetText() != ">=" || cs[1].GetRhs().GetText() != "0" {
		t.Errorf("constraints %s", set.GetText())
	}
	expectOpNames(t, m, "func.func", "affine.if", "affine.yield", "affine.yield", "func.return")
	aif := collect[*tirparser.OperationContext](m)[1]
	expectKinds(t, "affine.if", items(aif), "AttrAliasItem", "ParenItem", "BracketItem", "RegionItem", "WordItem", "RegionItem")
}

// An op's item loop must stop exactly where the next operation starts.
func TestOpBoundaries(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		ops     []string
		aliases int
	}{
		{"results", "%x = tir.add %a, %b : !t\n%y = tir.mul %x, %x : !t", []string{"tir.add", "tir.mul"}, 0},
		{"same line", "%x = tir.add %a, %b : !t %y = tir.mul %x, %x", []string{"tir.add", "tir.mul"}, 0},
		{"multi results", "tir.foo %a\n%x, %y:2 = tir.bar %a", []string{"tir.foo", "tir.bar"}, 0},
		{"no results", "tir.foo %a, %b\ntir.bar %c", []string{"tir.foo", "tir.bar"}, 0},
		{"generic after custom", "tir.foo %a : f32\n\"tir.bar\"(%a) : (f32) -> ()\n%z = \"tir.baz\"() : () -> f32",
			[]string{"tir.foo", `"tir.bar"`, `"tir.baz"`}, 0},
		{"type alias after op", "tir.return %t3 : !out\n!foo = !tir.tensor<f32>\ntir.bar", []string{"tir.return", "tir.bar"}, 1},
		{"type alias after region", "tir.func @f() {\n  tir.return\n}\n!foo = i32\n#m = affine_map<(d0) -> (d0)>\ntir.func @g() {\n}",
			[]string{"tir.func", "tir.return", "tir.func"}, 2},
		{"attr alias after op", "tir.return %t3 : !out\n#foo = 1 : i64", []string{"tir.return"}, 1},
		{"block label after op", "tir.foo {\n^bb0(%a: f32):\n  cf.br ^bb1(%a : f32)\n^bb1(%b: f32):\n  %c = tir.neg %b\n  tir.yield %c\n^bb2:\n  tir.yield\n^bb3: %d = tir.x\n}",
			[]string{"tir.foo", "cf.br", "tir.neg", "tir.yield", "tir.yield", "tir.x"}, 0},
		{"module", "module {\n  tir.func @f() {\n    tir.return\n  }\n}\nmodule attributes {x.y = 1} {\n}",
			[]string{"module", "tir.func", "tir.return", "module"}, 0},
		{"for bind then op", "affine.for %i = 0 to 10 {\n}\n%x = arith.constant 0 : index", []string{"affine.for", "arith.constant"}, 0},
		{"bare return", "func.func @f() {\n  gpu.launch_func @m::@k blocks in (%c, %c, %c) threads in (%c, %c, %c) args(%a : f32)\n  return\n}",
			[]string{"func.func", "gpu.launch_func", "return"}, 0},
		{"return with operands", "%x = arith.negf %a : f32\nreturn %x : f32\n%y = tir.x", []string{"arith.negf", "return", "tir.x"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.src)
			expectOpNames(t, m, c.ops...)
			ta, aa, _ := countTopLevel(m)
			if ta+aa != c.aliases {
				t.Errorf("aliases: got %d, want %d", ta+aa, c.aliases)
			}
		})
	}
	m := mustParse(t, "%x = tir.add %a, %b : !t\n%y = tir.mul %x, %x : !t")
	expectKinds(t, "tir.add", items(topOps(m)[0]), "ValueItem", "CommaItem", "ColonItem")
	expectFlat(t, "tir.add", topOps(m)[0], "Value , Value : Type")
}

func TestFunctionSignatures(t *testing.T) {
	src := `func.func @f(%a: memref<?xf32>, %n: index) -> (f32, i1) attributes {llvm.emit_c_interface, sym_visibility = "private"} {
  %r = func.call @g(%a) : (memref<?xf32>) -> f32
  %s = "tir.strange"(%a) {list = [@f, #map, "s", true, -3, 0x10, [], {}, affine_map<(d0) -> (d0)>, tuple<f32>, !t, (i32) -> (i32, f32)]} : (memref<?xf32>) -> i1
  func.return %r, %s : f32, i1
}
tir.func @t(%x: !tir.tensor<f64, I[0:N]>)
    -> !tir.tensor<f64, I[1:N-1]> {
  tir.return %x : !tir.tensor<f64, I[1:N-1]>
}
`
	m := mustParse(t, src)
	expectOpNames(t, m, "func.func", "func.call", `"tir.strange"`, "func.return", "tir.func", "tir.return")
	expectFlat(t, "func.func", topOps(m)[0], "Symbol Paren -> Paren Attributes Region")
	expectFlat(t, "tir.func", topOps(m)[1], "Symbol Paren -> Type Region")
	expectFlat(t, "func.call", collect[*tirparser.OperationContext](m)[1], "Symbol Paren : Paren -> Word")
	list := collect[*tirparser.ArrayAttrContext](m)[0]
	expectKinds(t, "array", list.AllAttribute(), "SymbolRefAttr", "AttrAliasRef", "StringAttr", "BoolAttr",
		"NumberAttr", "NumberAttr", "ArrayAttr", "DictAttribute", "AffineMapAttribute", "TypeAttr", "TypeAttr", "TypeAttr")
	// Group contents: %a: memref<?xf32> is a value then a colon item holding a type.
	grp := items(topOps(m)[0])[1].(*tirparser.ParenItemContext).ParenGroup()
	expectKinds(t, "signature", grp.AllGroupElem(), "GroupCustomElem", "GroupCustomElem", "GroupCustomElem", "GroupCustomElem")
	var sig []tirparser.ICustomItemContext
	for _, e := range grp.AllGroupElem() {
		sig = append(sig, e.(*tirparser.GroupCustomElemContext).CustomItem())
	}
	if got := strings.Join(flat(sig), " "); got != "Value : Type , Value : Word" {
		t.Errorf("signature: %q", got)
	}
}

// Nested symbol references are one token, in custom items and attributes.
func TestNestedSymbolRefs(t *testing.T) {
	src := `gpu.launch_func @m::@k blocks in (%c, %c, %c) threads in (%c, %c, %c) args(%a : f32)
"gpu.launch_func"(%c) {kernel = @"m x"::@k, list = [@a::@b::@c, @d]} : (index) -> ()
`
	m := mustParse(t, src)
	expectFlat(t, "gpu.launch_func", topOps(m)[0], "Symbol Word Word Paren Word Word Paren Word Paren")
	if s := items(topOps(m)[0])[0].GetText(); s != "@m::@k" {
		t.Errorf("symbol item %q", s)
	}
	var refs []string
	for _, r := range collect[*tirparser.SymbolRefAttrContext](m) {
		refs = append(refs, r.GetText())
	}
	if got := strings.Join(refs, " "); got != `@"m x"::@k @a::@b::@c @d` {
		t.Errorf("symbol attributes: %s", got)
	}
}

func TestLexing(t *testing.T) {
	lex := func(s string) []string {
		l := tirparser.NewTIRLexer(antlr.NewInputStream(s))
		l.RemoveErrorListeners()
		var out []string
		for tok := l.NextToken(); tok.GetTokenType() != antlr.TokenEOF; tok = l.NextToken() {
			out = append(out, l.SymbolicNames[tok.GetTokenType()]+":"+tok.GetText())
		}
		return out
	}
	cases := map[string]string{
		`memref<4x?x8xf32>`:                           "ID:memref LANGLE:< SHAPE_DIM:4x SHAPE_DIM:?x SHAPE_DIM:8x ID:f32 RANGLE:>",
		`vector<8xf32>`:                               "ID:vector LANGLE:< SHAPE_DIM:8x ID:f32 RANGLE:>",
		`strided<[?, 1], offset: ?>>`:                 "ID:strided LANGLE:< LBRACKET:[ QUESTION:? COMMA:, INT:1 RBRACKET:] COMMA:, ID:offset COLON:: QUESTION:? RANGLE:> RANGLE:>",
		`%x %0 %arg0 %0#1 ^bb0 @f @"q n"`:             `VALUE_ID:%x VALUE_ID:%0 VALUE_ID:%arg0 VALUE_ID:%0#1 CARET_ID:^bb0 SYMBOL_REF:@f SYMBOL_REF:@"q n"`,
		`!in !tir.tensor #map #tir.offsets`:           "BANG_ID:!in BANG_ID:!tir.tensor HASH_ID:#map HASH_ID:#tir.offsets",
		`tir.add llvm.emit_c_interface x`:             "OP_NAME:tir.add OP_NAME:llvm.emit_c_interface ID:x",
		`0x7FC00000 12 1.0 1e-3 4.000000e+00 -1.5e-3`: "HEX:0x7FC00000 INT:12 FLOAT:1.0 FLOAT:1e-3 FLOAT:4.000000e+00 MINUS:- FLOAT:1.5e-3",
		`affine_map affine_set true false attributes floordiv ceildiv mod module modx`: "AFFINE_MAP:affine_map AFFINE_SET:affine_set TRUE:true FALSE:false ATTRIBUTES:attributes FLOORDIV:floordiv CEILDIV:ceildiv MOD:mod MODULE:module ID:modx",
		`-> >= == <= - > = "a\"b\n" // comment`:                                        `ARROW:-> GE:>= EQEQ:== LE:<= MINUS:- RANGLE:> EQUAL:= STRING:"a\"b\n"`,
		"N-1 x[-3:5]":                                                                  "ID:N MINUS:- INT:1 ID:x LBRACKET:[ MINUS:- INT:3 COLON:: INT:5 RBRACKET:]",
		`@m::@k @"a b"::@c::@"d::e" @m :: @k @m::x return returns`:                     `SYMBOL_REF:@m::@k SYMBOL_REF:@"a b"::@c::@"d::e" SYMBOL_REF:@m COLON:: COLON:: SYMBOL_REF:@k SYMBOL_REF:@m COLON:: COLON:: ID:x RETURN:return ID:returns`,
	}
	for in, want := range cases {
		if got := strings.Join(lex(in), " "); got != want {
			t.Errorf("lex %q:\n got  %s\n want %s", in, got, want)
		}
	}
}

// ---------------------------------------------------------------- errors

func TestMalformed(t *testing.T) {
	cases := map[string]string{
		"unterminated string":  "%x = \"tir.add(%a) : (f32) -> f32\n",
		"dangling comma":       "%x = tir.add %a,",
		"unbalanced open":      "tir.func @f() {\n  tir.return\n",
		"unbalanced close":     "tir.func @f() {\n}\n}\n",
		"bad type":             "%x = tir.add %a : memref<4xf32\n",
		"result without op":    "%x =\n",
		"bad bracket":          "%y = tir.shift %x [I + ]",
		"bad affine map":       "#m = affine_map<(d0) -> d0>",
		"bad char":             "%x = tir.add %a ; %b",
		"generic missing type": `%0 = "tir.foo"(%a)`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			for _, exact := range []bool{false, true} {
				r := parse(src, exact)
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
