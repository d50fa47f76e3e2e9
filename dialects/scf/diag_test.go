package scf_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
)

func TestDiagnostics(t *testing.T) {
	dialecttest.CheckDiagnostics(t, []dialecttest.DiagCase{
		{Name: "bound type", Line: 2, Want: "expects different type than prior uses: 'index' vs 'i32'", Src: `func.func @f(%a: i32, %n: index) {
  scf.for %i = %a to %n step %n {
  }
  func.return
}`},
		{Name: "if without else", Line: 2, Want: "an scf.if with results needs an else region", Src: `func.func @f(%c: i1, %x: f32) {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  }
  func.return
}`},
		{Name: "yield type", Line: 2, Want: "'scf.yield' yields (f32) but the op's results are (index)", Src: `func.func @f(%n: index, %x: f32) {
  %r = scf.for %i = %n to %n step %n iter_args(%a = %n) -> (index) {
    scf.yield %x : f32
  }
  func.return
}`},
		{Name: "missing yield", Line: 2, Want: "region must end with 'scf.yield'", Src: `func.func @f(%c: i1, %x: f32) {
  %r = scf.if %c -> (f32) {
  } else {
    scf.yield %x : f32
  }
  func.return
}`},
	})
}
