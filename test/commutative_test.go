package test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/dialects/tir"
	"tir/test/randprog"
	"tir/tools/driver"
)

// swapCommutative exchanges the operands of every commutative op of m and
// infers every result type again, in program order: the first operand's
// dimension order becomes the result's (spec 2.2), and that propagates.
// It returns how many ops it changed.
func swapCommutative(t *testing.T, m *ir.Module) int {
	n := 0
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		for _, op := range b.Ops {
			if tir.Commutative(op) && op.Operands[0] != op.Operands[1] {
				op.Operands[0], op.Operands[1] = op.Operands[1], op.Operands[0]
				n++
			}
			for _, r := range op.Regions {
				for _, rb := range r.Blocks {
					walk(rb)
				}
			}
			if op.Def == nil || op.Def.Infer == nil {
				continue
			}
			ts, err := op.Def.Infer(op)
			if err != nil {
				t.Fatalf("%s after the swap: %v", op.Name, err)
			}
			for i, ty := range ts {
				op.Results[i].Type = ty
			}
		}
	}
	for _, r := range m.Op.Regions {
		for _, b := range r.Blocks {
			walk(b)
		}
	}
	return n
}

// TestCommutativeOperandOrder compiles random programs and the same
// programs with the operands of every commutative op exchanged: the -O2
// LLVM IR must be the same, whatever dimension order the exchange gives
// the values in between (issue 21: a swapped multiplication stored its
// temporary transposed and ran 2x slower).
func TestCommutativeOperandOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.tir")
	compile := func(src string) (string, bool) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := driver.Run([]string{"-O2", path}, strings.NewReader(""), &out, &errb)
		if code != 0 {
			return errb.String(), false
		}
		return out.String(), true
	}
	compared, swapped, skipped := 0, 0, 0
	for seed := int64(1); seed <= 120; seed++ {
		src := randprog.Generate(seed, randprog.DefaultOptions).Text
		m, diags := parser.Parse("p.tir", src)
		if diags.HasErrors() {
			t.Fatalf("seed %d: %v", seed, diags)
		}
		// Both formulations are printed by the printer, so that they
		// differ only by the exchange (the locations in messages too).
		src = printer.Module(m, printer.Options{})
		n := swapCommutative(t, m)
		if n == 0 {
			continue
		}
		other := printer.Module(m, printer.Options{})
		if _, diags := parser.Parse("p.tir", other); diags.HasErrors() {
			// The block arguments of a region (a reduction's accumulator)
			// keep the types written for them: when an exchange reorders
			// the init's dimensions they no longer match. Such programs
			// are left out.
			if !strings.Contains(diags.Error(), "block argument") {
				t.Fatalf("seed %d: the swapped program does not parse: %v\n%s", seed, diags, other)
			}
			skipped++
			continue
		}
		want, ok1 := compile(src)
		got, ok2 := compile(other)
		if !ok1 || !ok2 {
			if ok1 != ok2 {
				t.Errorf("seed %d: one formulation compiles and the other does not:\n%s\n%s", seed, want, got)
			}
			continue
		}
		compared++
		swapped += n
		if want != got {
			t.Errorf("seed %d: %d operands exchanged change the code:\n%s", seed, n, firstDiff(want, got))
		}
	}
	if compared < 60 {
		t.Fatalf("only %d programs had a commutative op and compiled", compared)
	}
	t.Logf("%d programs, %d exchanged ops: the same LLVM IR (%d left out)", compared, swapped, skipped)
}

var llLine = regexp.MustCompile(`\n`)

// firstDiff shows the first line where two texts differ, with context.
func firstDiff(a, b string) string {
	la, lb := llLine.Split(a, -1), llLine.Split(b, -1)
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			lo := max(i-3, 0)
			return "--- before\n" + strings.Join(la[lo:min(i+4, len(la))], "\n") + "\n--- swapped\n" + strings.Join(lb[lo:min(i+4, len(lb))], "\n")
		}
	}
	return "(one is a prefix of the other)"
}

// TestCommutativeOperandOrderTC compiles Tensor Comprehensions whose
// products differ only in the order of their factors: the importer then
// also makes the views of the operands in the other order, and the code
// must still be the same (the contraction tiling at -O3 included).
func TestCommutativeOperandOrderTC(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.tc")
	compile := func(src string, args ...string) string {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := driver.Run(append(args, path), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("exit %d:\n%s\n%s", code, src, errb.String())
		}
		return out.String()
	}
	pairs := [][2]string{
		{"def f(float(M, K) A, float(K, N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) }",
			"def f(float(M, K) A, float(K, N) B) -> (C) { C(m, n) +=! B(k, n) * A(m, k) }"},
		{"def f(float(N, C, H, W) I, float(M, C, KH, KW) Wt) -> (O) { O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * Wt(m, c, kh, kw) }",
			"def f(float(N, C, H, W) I, float(M, C, KH, KW) Wt) -> (O) { O(n, m, h, w) +=! Wt(m, c, kh, kw) * I(n, c, h + kh, w + kw) }"},
		{"def f(float(N, D) X, float(D) G) -> (O) { O(n, d) = X(n, d) * G(d) + 1.0 }",
			"def f(float(N, D) X, float(D) G) -> (O) { O(n, d) = 1.0 + G(d) * X(n, d) }"},
	}
	for _, p := range pairs {
		for _, mode := range [][]string{{"-O2"}, {"-O3", "--mcpu=x86-64-v3", "--fp-contract=fast"}} {
			if a, b := compile(p[0], mode...), compile(p[1], mode...); a != b {
				t.Errorf("%s: the factors' order changes the code:\n%s\n%s\n%s", strings.Join(mode, " "), p[0], p[1], firstDiff(a, b))
			}
		}
	}
}
