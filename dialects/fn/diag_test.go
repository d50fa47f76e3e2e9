package fn_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
)

func TestDiagnostics(t *testing.T) {
	dialecttest.CheckDiagnostics(t, []dialecttest.DiagCase{
		{Name: "return type", Line: 2, Want: "type of return operand 0 (i32) doesn't match function result type (f32)", Src: `func.func @f(%a: i32) -> f32 {
  "func.return"(%a) : (i32) -> ()
}`},
		{Name: "return count", Line: 2, Want: "has 0 operands, but enclosing function (@f) returns 1", Src: `func.func @f(%a: f32) -> f32 {
  func.return
}`},
		{Name: "undefined callee", Line: 2, Want: "'@g' does not reference a valid function", Src: `func.func @f(%a: f32) {
  %r = func.call @g(%a) : (f32) -> f32
  func.return
}`},
		{Name: "call type", Line: 3, Want: "type (f32) -> f64 does not match the callee's type (f32) -> f32", Src: `func.func private @g(f32) -> f32
func.func @f(%a: f32) {
  %r = func.call @g(%a) : (f32) -> f64
  func.return
}`},
		{Name: "public declaration", Line: 1, Want: "symbol declaration cannot have public visibility", Src: `func.func @g(f32) -> f32
`},
		{Name: "missing return", Line: 1, Want: "body must end with func.return", Src: `func.func @f(%a: f32) {
  %b = arith.negf %a : f32
}`},
	})
}
