package emit

import (
	"strings"
	"testing"
)

func fortranOf(t *testing.T, src string) string {
	t.Helper()
	out, err := Fortran(parse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("missing %q in:\n%s", l, out)
		}
	}
}

// The dimensions are reversed and the intervals' lower bounds are the
// arrays' own; the interfaces bind the C symbols.
func TestFortranBoundsAndOrder(t *testing.T) {
	out := fortranOf(t, `tir.func @lap(%inp: !tir.tensor<f32, I[-1:6], J[-1:8], K[0:9]>) -> !tir.tensor<f32, I[0:5], J[0:7], K[0:9]> {
  %e = tir.shift %inp [I + 1]
  %r = tir.sub %inp, %e
  %s = tir.subset %r [I[0:5], J[0:7]]
  tir.return %s : !tir.tensor<f32, I[0:5], J[0:7], K[0:9]>
}
`)
	wantLines(t, out,
		"module tir_lap\n",
		"Fortran is column-major",
		"real(c_float), intent(in), target :: inp(0:, -1:, -1:)",
		"real(c_float), intent(inout), target :: result(0:, 0:, 0:)",
		"!   inp     in     real(c_float) :: inp(0:8, -1:7, -1:5), dimensions (K, J, I)",
		"function lap_c(inp, result) bind(C, name='lap') result(tir_rc)",
		"function lap_error_c(code) bind(C, name='lap_error') result(tir_msg)",
		"function lap_result_shape_c(tir_sizes) bind(C, name='lap_result_shape') result(tir_rc)",
		"  subroutine lap(inp, result, stat, errmsg)\n",
		"tir_rc = lap_c(tir_d0, tir_d1)",
		"type, bind(C) :: tir_desc_f32_3",
		"function tir_desc_f32_3_of(a) result(d)",
		"d%strides(3) = (transfer(c_loc(a(2, 1, 1)), base) - base) / c_sizeof(a(1, 1, 1))",
		"d%strides(1) = (transfer(c_loc(a(1, 1, 2)), base) - base) / c_sizeof(a(1, 1, 1))",
	)
	if strings.Contains(out, "interface lap\n") {
		t.Error("a function without size parameters needs no generic interface")
	}
}

// Size parameters: a generic over integer(c_int64_t) and
// integer(c_int32_t) ones, named in lower bounds that hold them; a lower
// bound Fortran cannot state the same way (min, floordiv) is left to 1.
func TestFortranSizeParameters(t *testing.T) {
	out := fortranOf(t, `tir.func @f(%x: !tir.tensor<f64, I[-N:N], J[0:M]>, %y: !tir.tensor<f64, I[min(N, M):N]>) -> !tir.tensor<f64, I[0:N]> {
  %s = tir.subset %x [I[0:N]]
  %r = tir.reduce add %s over [J]
  tir.return %r : !tir.tensor<f64, I[0:N]>
}
`)
	wantLines(t, out,
		"interface f\n    module procedure f_i64, f_i32\n  end interface f",
		"subroutine f_i64(x, y, result, N, M, stat, errmsg)",
		"integer(c_int64_t), intent(in) :: N\n",
		"integer(c_int32_t), intent(in) :: M\n",
		"real(c_double), intent(in), target :: x(0:, -N:)",
		"real(c_double), intent(in), target :: y(:)",
		"call f_i64(x, y, result, int(N, c_int64_t), int(M, c_int64_t), stat=stat, errmsg=errmsg)",
		"integer(c_int64_t), value :: N",
		"function f_result_shape_c(N, M, tir_sizes) bind(C, name='f_result_shape')",
	)
}

// Arguments named like what the wrappers use are renamed; Fortran names
// ignore case, so two functions whose names differ in case clash.
func TestFortranNames(t *testing.T) {
	out := fortranOf(t, `tir.func @g(%size: !tir.tensor<f32, I[0:4]>, %c_x: !tir.tensor<f32, I[0:4]>, %stat: !tir.tensor<f32, I[0:4]>, %G_c: !tir.tensor<f32, I[0:4]>, %a: !tir.tensor<f32, I[0:4]>, %A: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %r = tir.add %size, %c_x
  tir.return %r : !tir.tensor<f32, I[0:4]>
}
`)
	wantLines(t, out, "subroutine g(arg_size, arg_c_x, arg_stat, arg_G_c, a, A_1, result, stat, errmsg)")

	m := parse(t, `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}
tir.func @F(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}
`)
	if _, err := Fortran(m); err == nil || !strings.Contains(err.Error(), "Fortran names ignore case") {
		t.Errorf("@f and @F: got %v", err)
	}
	m = parse(t, `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}
tir.func @f_c(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}
`)
	if _, err := Fortran(m); err == nil || !strings.Contains(err.Error(), "'f_c' is also the Fortran name of @f") {
		t.Errorf("@f and @f_c: got %v", err)
	}
}

// An integer argument used only as a gather table gets an optional base;
// one that is also read as data does not.
func TestFortranTables(t *testing.T) {
	out := fortranOf(t, `tir.func @g(%x: !tir.tensor<f64, V[1:N]>, %t: !tir.tensor<i32, E[0:M], K[0:2]>, %u: !tir.tensor<i32, E[0:M]>) -> (!tir.tensor<f64, E[0:M], K[0:2]>, !tir.tensor<i32, E[0:M]>) {
  %g = tir.gather %x [V = %t]
  %h = tir.gather %x [V = %u]
  %s = tir.add %u, %u
  tir.return %g, %s : !tir.tensor<f64, E[0:M], K[0:2]>, !tir.tensor<i32, E[0:M]>
}
`)
	wantLines(t, out,
		"subroutine g_i64(x, t, u, result0, result1, N, M, t_base, stat, errmsg)",
		"integer, intent(in), optional :: t_base",
		"if (t_base /= 1) then",
		"allocate (tir_t1, source=int(t - (t_base - (1)), kind(t)))",
		"tir_d1 = tir_desc_i32_2_of(tir_t1)",
	)
	if strings.Contains(out, "u_base") {
		t.Error("a table also read as data got a base")
	}
}
