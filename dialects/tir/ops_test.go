package tir

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"tir/dialects/ir"
)

// TestEveryOpHasItsFacets names each facet an op value lacks: a new op
// fails here until it is whole (the interpreter, the lowering, the
// derivatives and the random-program generator check theirs in their own
// packages).
func TestEveryOpHasItsFacets(t *testing.T) {
	structural := map[*Op]bool{Func: true, Return: true, Yield: true}
	seen := map[string]bool{}
	for _, o := range Ops() {
		name := o.Name
		if seen[name] {
			t.Errorf("%s: listed twice in Ops()", name)
		}
		seen[name] = true
		if !strings.HasPrefix(name, "tir.") {
			t.Errorf("%s: not in the tir dialect", name)
		}
		if ir.LookupOp(name) != &o.OpDef {
			t.Errorf("%s: the registry does not hold this value's definition", name)
		}
		if o.Summary == "" || o.Syntax == "" {
			t.Errorf("%s: no summary or syntax line (docs and diagnostics show them)", name)
		}
		if o.Parse == nil || o.Print == nil {
			t.Errorf("%s: no custom syntax (Parse and Print)", name)
		}
		if o.Infer == nil && o.Verify == nil && !structural[o] {
			t.Errorf("%s: no type rule (Infer, or Verify against a signature)", name)
		}
		if o.reads == nil && o.Traits&ir.TraitElementwise == 0 && !structural[o] && o != Call {
			t.Errorf("%s: no access rule: say which operand point each result point reads (Op.reads)", name)
		}
		if o.movesData && o.reads == nil {
			t.Errorf("%s: moves data but has no access rule to move it by", name)
		}
		if o.Detail == nil && len(o.spelledAttrs()) > 0 && o != Iota && o != Compress {
			t.Errorf("%s: its syntax spells attributes %v but it has no Detail label", name, o.spelledAttrs())
		}
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "tir" && !seen[d.Name] {
			t.Errorf("%s: registered but not an op value in Ops()", d.Name)
		}
	}
}

// TestEveryOpIsDocumented: docs/tir.md's "Operations" section names each
// op (the elementwise ones in its lists, by their short name).
func TestEveryOpIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/tir.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Operations")
	end := strings.Index(doc, "\n## Extents computed from data")
	if start < 0 || end < start {
		t.Fatal("docs/tir.md: no Operations section")
	}
	ops := doc[start:end]
	for _, o := range Ops() {
		short := strings.TrimPrefix(o.Name, "tir.")
		full := regexp.MustCompile("[`\\s]" + regexp.QuoteMeta(o.Name) + "\\b")
		word := regexp.MustCompile("[`\\s]" + regexp.QuoteMeta(short) + "[\\s`|]")
		if !full.MatchString(ops) && !(o.Traits&ir.TraitElementwise != 0 && word.MatchString(ops)) {
			t.Errorf("%s: docs/tir.md's Operations section does not describe it", o.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a Format string (format.go says why: their regions
// declare block arguments the syntax names). A new op with hand-written
// Parse and Print fails here: give it a format, adding a directive to
// format.go for a piece of syntax the dialect lacks.
func TestSyntaxIsDeclarative(t *testing.T) {
	handWritten := map[*Op]bool{Func: true, Reduce: true, Scan: true}
	for _, o := range Ops() {
		switch {
		case o.Format == nil && !handWritten[o]:
			t.Errorf("%s: hand-written syntax; give it a Format (format.go)", o.Name)
		case o.Format != nil && handWritten[o]:
			t.Errorf("%s: has a Format now; drop it from the hand-written list", o.Name)
		}
	}
}
