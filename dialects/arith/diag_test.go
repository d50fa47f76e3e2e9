package arith_test

import (
	"strings"
	"testing"

	"tir/dialects/arith"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/printer"
)

func TestDiagnostics(t *testing.T) {
	dialecttest.CheckDiagnostics(t, []dialecttest.DiagCase{
		{Name: "addf type mismatch", Line: 2, Want: "expects different type than prior uses: 'f32' vs 'f64'", Src: `func.func @f(%a: f32, %b: f64) {
  %0 = arith.addf %a, %b : f32
  func.return
}`},
		{Name: "generic addf type mismatch", Line: 2, Want: "operand #1 has type f64 but the result has type f32", Src: `func.func @f(%a: f32, %b: f64) {
  %0 = "arith.addf"(%a, %b) {fastmath = #arith.fastmath<none>} : (f32, f64) -> f32
  func.return
}`},
		{Name: "unknown cmpf predicate", Line: 2, Want: "unknown 'arith.cmpf' predicate 'lt'", Src: `func.func @f(%a: f32) {
  %0 = arith.cmpf lt, %a, %a : f32
  func.return
}`},
		{Name: "cmpi predicate out of range", Line: 2, Want: "predicate 12 out of range [0, 9]", Src: `func.func @f(%a: i32) {
  %0 = "arith.cmpi"(%a, %a) {predicate = 12 : i64} : (i32, i32) -> i1
  func.return
}`},
		{Name: "integer op on floats", Line: 2, Want: "expects integer or index operands", Src: `func.func @f(%a: f32) {
  %0 = arith.addi %a, %a : f32
  func.return
}`},
		{Name: "widening truncf", Line: 2, Want: "cannot cast f32 to f64", Src: `func.func @f(%a: f32) {
  %0 = arith.truncf %a : f32 to f64
  func.return
}`},
		{Name: "constant type", Line: 2, Want: "value type i32 does not match the result type i64", Src: `func.func @f() {
  %0 = "arith.constant"() {value = 1 : i32} : () -> i64
  func.return
}`},
		{Name: "unknown fastmath flag", Line: 2, Want: "unknown fastmath flag 'quick'", Src: `func.func @f(%a: f32) {
  %0 = "arith.addf"(%a, %a) {fastmath = #arith.fastmath<quick>} : (f32, f32) -> f32
  func.return
}`},
		{Name: "select condition", Line: 2, Want: "condition must be i1 or vector<4xi1>, got vector<8xi1>", Src: `func.func @f(%c: vector<8xi1>, %a: vector<4xf32>) {
  %0 = "arith.select"(%c, %a, %a) : (vector<8xi1>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  func.return
}`},
	})
}

// TestMalformedPrintsGeneric: IR a pass left inconsistent still prints
// (generically) for diagnostics instead of crashing a Print hook.
func TestMalformedPrintsGeneric(t *testing.T) {
	x := &ir.Value{Type: ir.F32}
	for _, op := range []*ir.Operation{
		ir.NewOpOf(arith.AddF, ir.UnknownLoc, []*ir.Value{x}, []ir.Type{ir.F32}, nil),
		ir.NewOpOf(arith.CmpF, ir.UnknownLoc, []*ir.Value{x, x}, []ir.Type{ir.I1}, nil),
		ir.NewOpOf(arith.Constant, ir.UnknownLoc, nil, []ir.Type{ir.F32}, nil),
		ir.NewOpOf(arith.SIToFP, ir.UnknownLoc, []*ir.Value{x}, nil, nil),
	} {
		out := printer.Op(op, printer.Options{})
		if !strings.Contains(out, `"`+op.Name+`"(`) {
			t.Errorf("malformed %s printed as %q", op.Name, out)
		}
	}
}
