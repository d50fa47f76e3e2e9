package test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// Shape inference (issue 9): unknown argument extents inferred from their
// uses and checked once at entry; gradual calls checked at the call
// boundary. Every case runs in the interpreter and compiled three ways
// (runModes), which must agree on results and, word for word, on
// messages.

// failMessage is a run's error message without its location.
func failMessage(err error) string {
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		return d.Msg
	}
	return fmt.Sprint(err)
}

// expectFailure checks that every mode fails with exactly msg.
func expectFailure(t *testing.T, src string, args []*interp.Tensor, syms map[string]int64, msg string) {
	t.Helper()
	for mode, r := range runModes(t, src, args, syms) {
		if r.err == nil {
			t.Errorf("%s: ran, want the failure %q", mode, msg)
			continue
		}
		if got := failMessage(r.err); got != msg {
			t.Errorf("%s: got %q, want %q", mode, got, msg)
		}
	}
}

func ramp(t *testing.T, n int64, f func(i int64) float64) *interp.Tensor {
	var vs []float64
	for i := int64(0); i < n; i++ {
		vs = append(vs, f(i))
	}
	return tensorOf(t, f64, []interp.Dim{dim("I", 0, n)}, vs)
}

func square(i int64) float64 { return float64(i * i) }

// The example of the issue: a 3-point stencil on x: I[?] whose output is
// I[1:N-1] needs x on I[0:N]. An x that covers it (exactly or with points
// to spare) runs; a shorter one is refused at entry with the argument,
// the dimension and both intervals.
func TestInferredExtentStencil(t *testing.T) {
	const src = `tir.func @st(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %x [I + 1]
  %w = tir.shift %x [I - 1]
  %s = tir.add %e, %w
  %r = tir.sub %s, %x
  tir.return %r : !tir.tensor<f64, I[1:N-1]>
}
`
	var want []float64
	for i := int64(1); i < 9; i++ {
		want = append(want, square(i+1)+square(i-1)-square(i))
	}
	syms := map[string]int64{"N": 10}
	for _, n := range []int64{10, 14} {
		expectAll(t, runAllModes(t, src, []*interp.Tensor{ramp(t, n, square)}, syms), want)
	}
	expectFailure(t, src, []*interp.Tensor{ramp(t, 8, square)}, syms,
		"argument 'x' dimension I: needs [0:N] = [0:10], got [0:8]")
	expectFailure(t, src, []*interp.Tensor{ramp(t, 9, square)}, syms,
		"argument 'x' dimension I: needs [0:N] = [0:10], got [0:9]")
}

// An unknown extent that meets a known interval on the way to a result
// that the signature leaves to inference: x must cover what y's extent
// lets the function read, and the result's domain no longer depends on
// x's descriptor ([0:N], not [0:min(N, ?_x_I - 1)]), so f_result_shape
// computes it.
func TestInferredExtentMeetsKnownBound(t *testing.T) {
	const src = `tir.func @meet(%x: !tir.tensor<f64, I[?]>, %y: !tir.tensor<f64, I[0:N]>) {
  %e = tir.shift %x [I + 1]
  %r = tir.add %e, %y
  tir.return %r
}
`
	m, diags := parser.Parse("meet.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	ft, _ := tir.FuncType(m.Body().Ops[0])
	if got := ft.Results[0].String(); got != "!tir.tensor<f64, I[0:N]>" {
		t.Errorf("inferred result %s, want !tir.tensor<f64, I[0:N]>", got)
	}
	y := ramp(t, 6, func(i int64) float64 { return 100 * float64(i) })
	var want []float64
	for i := int64(0); i < 6; i++ {
		want = append(want, square(i+1)+100*float64(i))
	}
	syms := map[string]int64{"N": 6}
	for _, n := range []int64{7, 9} {
		expectAll(t, runAllModes(t, src, []*interp.Tensor{ramp(t, n, square), y}, syms), want)
	}
	expectFailure(t, src, []*interp.Tensor{ramp(t, 6, square), y}, syms,
		"argument 'x' dimension I: needs [1:N + 1] = [1:7], got [0:6]")
}

// Through a call: the callee reads its parameter one point around its
// output, so applying it twice to x and keeping I[2:M-2] needs x on
// [0:M].
func TestInferredExtentThroughCalls(t *testing.T) {
	const src = `tir.func @lap(%u: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %two = tir.constant 2.0 : f64
  %c = tir.mul %two, %u
  %s = tir.add %e, %w
  %r = tir.sub %s, %c
  tir.return %r : !tir.tensor<f64, I[1:N-1]>
}
tir.func @bilap(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64, I[2:M-2]> {
  %l = tir.call @lap(%x)
  %ll = tir.call @lap(%l)
  tir.return %ll : !tir.tensor<f64, I[2:M-2]>
}
`
	quartic := func(i int64) float64 { return float64(i * i * i * i) }
	var want []float64
	for i := 2; i < 10; i++ {
		want = append(want, 24)
	}
	syms := map[string]int64{"M": 12}
	for _, n := range []int64{12, 15} {
		expectAll(t, runAllModes(t, src, []*interp.Tensor{ramp(t, n, quartic)}, syms), want)
	}
	expectFailure(t, src, []*interp.Tensor{ramp(t, 11, quartic)}, syms,
		"argument 'x' dimension I: needs [0:M] = [0:12], got [0:11]")
}

// A ? that no use constrains (the outputs follow the argument) stays
// bound from the descriptor: no check, no remark, the result's extent is
// the argument's.
func TestUnconstrainedUnknownExtent(t *testing.T) {
	const src = `tir.func @tail(%x: !tir.tensor<f64, I[?]>) {
  %e = tir.shift %x [I + 1]
  %r = tir.add %e, %x
  tir.return %r
}
`
	m, diags := parser.Parse("tail.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	fn := m.Body().Ops[0]
	if xs := tir.InferExtents(fn, nil); len(xs) != 0 {
		t.Errorf("inferred %v, want nothing", xs)
	}
	var remarks []string
	if err := ir.Verify(m.Op, func(d *ir.Diagnostic) { remarks = append(remarks, d.Msg) }); err != nil || len(remarks) > 0 {
		t.Errorf("verify: %v, diagnostics %q", err, remarks)
	}
	var want []float64
	for i := int64(0); i < 6; i++ {
		want = append(want, square(i+1)+square(i))
	}
	expectAll(t, runAllModes(t, src, []*interp.Tensor{ramp(t, 7, square)}, nil), want)
}

// Gradual calls: a callee with symbolic or static domains applied to
// arguments of unknown extent. What the call knows stays symbolic in its
// result; what it cannot prove is checked once at entry, with the same
// message whether the call runs (interpreter) or is inlined (compiled).
func TestGradualCallKeepsSymbols(t *testing.T) {
	const src = `tir.func @pad(%a: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, J[0:N + 1]> {
  %v = tir.view %a [I = J] : !tir.tensor<f64, J[0:N]>
  %z = tir.constant 0.0 : f64
  %b = tir.broadcast %z [J[N:N + 1]]
  %c = tir.concat %v, %b along J
  tir.return %c : !tir.tensor<f64, J[0:N + 1]>
}
tir.func @f(%x: !tir.tensor<f64, I[?]>) {
  %p = tir.call @pad(%x)
  tir.return %p
}
`
	m, diags := parser.Parse("pad.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	call := m.Body().Ops[1].Regions[0].Entry().Ops[0]
	if got := call.Results[0].Type.String(); got != "!tir.tensor<f64, J[0:?_x_I + 1]>" {
		t.Errorf("call result %s, want !tir.tensor<f64, J[0:?_x_I + 1]>", got)
	}
	expectAll(t, runAllModes(t, src, []*interp.Tensor{ramp(t, 3, square)}, nil), []float64{0, 1, 4, 0})
}

// Proven: the call's parameters match the arguments symbolically; no
// check is generated.
func TestGradualCallProven(t *testing.T) {
	const src = `tir.func @g(%a: !tir.tensor<f64, I[0:N]>, %b: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %r = tir.add %a, %b
  tir.return %r : !tir.tensor<f64, I[0:N]>
}
tir.func @f(%x: !tir.tensor<f64, I[?]>, %y: !tir.tensor<f64, I[0:?_x_I]>) -> !tir.tensor<f64, I[0:?_x_I]> {
  %r = tir.call @g(%x, %y)
  tir.return %r : !tir.tensor<f64, I[0:?_x_I]>
}
`
	m, diags := parser.Parse("proven.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if cs := tir.RuntimeChecks(m.Body().Ops[1], nil); len(cs) != 0 {
		t.Errorf("checks %v, want none", cs)
	}
	x := ramp(t, 4, square)
	y := ramp(t, 4, func(i int64) float64 { return 1 })
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x, y}, nil), []float64{1, 2, 5, 10})
}

// Checked: a static parameter (I[0:10]) and a symbol that the first
// argument binds and the second must match. Both are checked at entry,
// in program order; matching arguments run.
func TestGradualCallChecked(t *testing.T) {
	const src = `tir.func @g(%a: !tir.tensor<f64, I[0:N]>, %b: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %r = tir.add %a, %b
  tir.return %r : !tir.tensor<f64, I[0:N]>
}
tir.func @h(%a: !tir.tensor<f64, I[0:10]>) -> !tir.tensor<f64> {
  %s = tir.reduce add %a over [I]
  tir.return %s : !tir.tensor<f64>
}
tir.func @f(%x: !tir.tensor<f64, I[?]>, %y: !tir.tensor<f64, I[?]>) -> (!tir.tensor<f64, I[0:?_x_I]>, !tir.tensor<f64>) {
  %r = tir.call @g(%x, %y)
  %s = tir.call @h(%x)
  tir.return %r, %s : !tir.tensor<f64, I[0:?_x_I]>, !tir.tensor<f64>
}
`
	one := func(int64) float64 { return 1 }
	expectFailure(t, src, []*interp.Tensor{ramp(t, 10, one), ramp(t, 9, one)}, nil,
		"call to @g: argument 'y' dimension I: expected extent ?_x_I = 10, got 9")
	expectFailure(t, src, []*interp.Tensor{ramp(t, 8, one), ramp(t, 8, one)}, nil,
		"call to @h: argument 'x' dimension I: expected extent 10, got 8")
	for mode, rs := range runAllModes(t, src, []*interp.Tensor{ramp(t, 10, square), ramp(t, 10, one)}, nil) {
		if rs[0].Len() != 10 || rs[0].F64[3] != 10 || rs[1].F64[0] != 285 {
			t.Errorf("%s: got %v and %v", mode, rs[0].F64, rs[1].F64)
		}
	}
}

// Refuted: an argument whose interval provably differs from the
// parameter's is a compile error naming both sides: the argument (and
// where its interval comes from) and the parameter's declaration.
func TestGradualCallRefuted(t *testing.T) {
	const src = `tir.func @h(%a: !tir.tensor<f64, I[0:10]>) -> !tir.tensor<f64> {
  %s = tir.reduce add %a over [I]
  tir.return %s : !tir.tensor<f64>
}
tir.func @f(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64> {
  %e = tir.subset %x [I[0:8]]
  %s = tir.call @h(%e)
  tir.return %s : !tir.tensor<f64>
}
`
	_, diags := parser.Parse("refuted.tir", src)
	if len(diags) != 1 {
		t.Fatalf("got %v, want one error", diags)
	}
	d := diags[0]
	if !strings.Contains(d.Msg, "call argument #0: dimension I is [0:8], but @h expects [0:10]") {
		t.Errorf("error %q", d.Msg)
	}
	var notes []string
	for _, n := range d.Notes {
		notes = append(notes, fmt.Sprintf("%d: %s", n.Loc.Line, n.Msg))
	}
	want := []string{
		"1: @h is defined here",
		"6: argument #0 has I[0:8], narrowed by tir.subset [I[0:8]] from [0:?_x_I]",
		"1: @h's parameter 'a' is declared with I[0:10]",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

// Contradictory requirements between unknown extents are an error, not a
// loop: x must cover [0:?_y_I + 1] and y [0:?_x_I].
func TestContradictoryUnknownExtents(t *testing.T) {
	const src = `tir.func @c(%x: !tir.tensor<f64, I[?]>, %y: !tir.tensor<f64, I[?]>) -> (!tir.tensor<f64, I[0:?_y_I + 1]>, !tir.tensor<f64, I[0:?_x_I]>) {
  tir.return %x, %y : !tir.tensor<f64, I[0:?_y_I + 1]>, !tir.tensor<f64, I[0:?_x_I]>
}
`
	m, diags := parser.Parse("c.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	err := ir.Verify(m.Op, nil)
	if err == nil || !strings.Contains(err.Error(), "contradictory extents") {
		t.Fatalf("verify: %v, want contradictory extents", err)
	}
	// The same with equal requirements is consistent: both are checked.
	const ok = `tir.func @c(%x: !tir.tensor<f64, I[?]>, %y: !tir.tensor<f64, I[?]>) -> (!tir.tensor<f64, I[0:?_y_I]>, !tir.tensor<f64, I[0:?_x_I]>) {
  tir.return %x, %y : !tir.tensor<f64, I[0:?_y_I]>, !tir.tensor<f64, I[0:?_x_I]>
}
`
	expectAll(t, runAllModes(t, ok, []*interp.Tensor{ramp(t, 3, square), ramp(t, 3, square)}, nil), []float64{0, 1, 4})
	expectFailure(t, ok, []*interp.Tensor{ramp(t, 3, square), ramp(t, 4, square)}, nil,
		"argument 'x' dimension I: needs [0:?_y_I] = [0:4], got [0:3]")
}
