package ir_test

import (
	"strings"
	"testing"

	_ "tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
)

// A toy dialect's directive: `first`/`last`, attribute which (a string).
var toyDirectives = ir.Directives{
	"end": {
		Attrs: func(arg string) []string { return []string{arg} },
		Parse: func(c *ir.FormatParser, arg string) error {
			w, loc, err := c.Keyword("first or last")
			if err != nil {
				return err
			}
			if w != "first" && w != "last" {
				return ir.Errorf(loc, "expected first or last, got '%s'", w)
			}
			c.St.Attrs = c.St.Attrs.With(arg, ir.StringAttr(w))
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			c.Write(string(c.Op.Attr(arg).(ir.StringAttr)))
		},
		Printable: func(c *ir.FormatPrinter, arg string) bool {
			_, ok := c.Op.Attr(arg).(ir.StringAttr)
			return ok
		},
	},
	"at": {
		Operands: func(arg string) (string, bool) { return arg, false },
		List:     true,
		Parse: func(c *ir.FormatParser, arg string) error {
			g, err := c.Group()
			if err != nil {
				return err
			}
			v, err := g.Operand()
			c.SetOperands(arg, []*ir.Value{v})
			if err == nil {
				err = g.ExpectEnd()
			}
			return err
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			c.Write("(")
			c.Values(c.Operands(arg))
			c.Write(")")
		},
	},
}

var (
	toyPick = &ir.OpDef{Name: "fmttest.pick", NumOperands: -1, NumResults: 1,
		Format: ir.NewFormat("end(which) $xs+ attr-dict-with-keyword type(res)?", toyDirectives, false),
		Infer: func(op *ir.Operation) ([]ir.Type, error) {
			return []ir.Type{op.Operands[0].Type}, nil
		}}
	toySink = &ir.OpDef{Name: "fmttest.sink", NumOperands: -1, NumResults: 0,
		Format: ir.NewFormat("$a at(i) , $rest* attr-dict : type($a)", toyDirectives, false)}
	toySame = &ir.OpDef{Name: "fmttest.same", NumOperands: 2, NumResults: 1,
		Format: ir.NewFormat("$x , $y attr-dict : type(all)", nil, false)}
	toyCast = &ir.OpDef{Name: "fmttest.cast", NumOperands: 1, NumResults: 1,
		Format: ir.NewFormat("$x : use-type($x) to type(res)", nil, false)}
	toyCond = &ir.OpDef{Name: "fmttest.cond", NumOperands: 3, NumResults: 1,
		Format: ir.NewFormat("($c) check($c:i1) $a , $b : types($a,$b) res-type($a)", nil, false)}
	toyNamed = &ir.OpDef{Name: "fmttest.named", NumOperands: 1, NumResults: -1,
		Format: ir.NewFormat("sym-name $x attr-dict-with-keyword results?", nil, false)}
	toyIndex = &ir.OpDef{Name: "fmttest.index", NumOperands: 1, NumResults: 1,
		Format: ir.NewFormat("$x res-type(index)", nil, false)}
	// A List directive first in a format keeps its blank after the name
	// (tir.call's callee); only ($x) groups and HugsName directives hug it.
	toySpot = &ir.OpDef{Name: "fmttest.spot", NumOperands: 2, NumResults: 0,
		Format: ir.NewFormat("at(i) ($x)", toyDirectives, false)}
)

func init() {
	ir.Register(toyPick, toySink, toySame, toyCast, toyCond, toyNamed, toyIndex, toySpot)
}

const toySrc = `func.func @f(%a: i32, %b: i32, %i: index, %c: i1) {
  %0 = fmttest.pick last %a, %b : i32
  %1 = fmttest.pick first %0 attributes {x = 1 : i64} : i32
  fmttest.sink %1(%i), %a, %b {y = 2 : i64} : i32
  %2 = fmttest.same %a, %a : i32
  %3 = fmttest.cast %a : i32 to index
  %4 = fmttest.cond(%c) %a, %i : i32, index
  %5:2 = fmttest.named @n %a attributes {z = 3 : i64} -> (i32, f32)
  %6 = fmttest.named @m %a -> i32
  fmttest.named @k %a
  %7 = fmttest.index %a
  fmttest.spot (%i)(%a)
  func.return
}
`

// TestFormatRoundTrip: a format's parser and printer agree: the toy text
// prints as written, operands land in their groups' order, spelled
// attributes stay out of the dictionaries.
func TestFormatRoundTrip(t *testing.T) {
	m, diags := parser.Parse("toy.mlir", toySrc)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := printer.Module(m, printer.Options{}); got != toySrc {
		t.Errorf("printed\n%s\nwant\n%s", got, toySrc)
	}
	fn := m.Body().Ops[0]
	ops := fn.Regions[0].Blocks[0].Ops
	sink := ops[2]
	if len(sink.Operands) != 4 || sink.Operands[1] != fn.Regions[0].Blocks[0].Args[2] {
		t.Errorf("sink operands %v: want %%1, %%i, %%a, %%b", sink.Operands)
	}
	if got := toyPick.Format.Spelled(); strings.Join(got, ",") != "which" {
		t.Errorf("pick spells %v, want [which]", got)
	}
	// Without its directive's attribute the op cannot take its custom form.
	ops[0].Attrs = ops[0].Attrs.Without("which")
	if toyPick.Format.Printable(ops[0]) {
		t.Errorf("pick without 'which' is printable")
	}
	if _, ok := toySink.Format.OperandGroups(&ir.Operation{}); ok {
		t.Errorf("sink without operands fits its groups")
	}
}

// TestFormatDiagnostics: a format reports what it expected where.
func TestFormatDiagnostics(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"%0 = fmttest.pick middle %a : i32", "1:54: error: expected first or last, got 'middle'"},
		{"%0 = fmttest.pick first %a : i32, i32", "expected one result type"},
		{"fmttest.sink %a(%i), %a : i64", "1:62: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'"},
		{"fmttest.sink %a %i : i32", "1:52: error: expected '(', found '%i'"},
		// type(all) checks each operand where it is used.
		{"%0 = fmttest.same %a, %i : i32", "1:58: error: use of value '%i' expects different type than prior uses: 'i32' vs 'index'"},
		// use-type too, where type($a) reports at the type (sink above).
		{"%0 = fmttest.cast %a : index to i32", "1:54: error: use of value '%a' expects different type than prior uses: 'index' vs 'i32'"},
		{"%0 = fmttest.cond(%a) %a, %i : i32, index", "1:54: error: use of value '%a' expects different type than prior uses: 'i1' vs 'i32'"},
		{"%0 = fmttest.cond(%a %i) %a, %i : i32, index", "1:57: error: unexpected '%i'"},
		{"fmttest.named %a", "1:50: error: expected a symbol name (@name)"},
		{"%0 = fmttest.named @n %a -> (i32 f32)", "1:69: error: expected ')', found 'f32'"},
	} {
		src := "func.func @f(%a: i32, %i: index) {\n  " + c.src + "\n  func.return\n}\n"
		src = strings.Replace(src, "\n  ", " ", 1)
		_, diags := parser.Parse("toy.mlir", src)
		if len(diags) == 0 || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.src, diags, c.want)
		}
	}
}

// TestFormatAmbiguousOperands: two operand groups of varying size need
// segments to be told apart; a format without them is refused at start-up.
func TestFormatAmbiguousOperands(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("NewFormat accepted two variadic groups without segments")
		}
	}()
	ir.NewFormat("$a* , ($b*)", nil, false)
}

// TestFormatUnknownType: check(...) and res-type(...) name a builtin type;
// a misspelt one is refused at start-up.
func TestFormatUnknownType(t *testing.T) {
	for _, spec := range []string{"$x check($x:i1x)", "$x res-type(indx)"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewFormat accepted %q", spec)
				}
			}()
			ir.NewFormat(spec, nil, false)
		}()
	}
}
