package interp

import (
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

func TestArgumentErrors(t *testing.T) {
	lap := exampleFunc(t, "laplacian.tir", "laplacian")
	sym := exampleFunc(t, "laplacian_symbolic.tir", "laplacian")
	two := parseFunc(t, `tir.func @f(%a: !tir.tensor<f64, I[0:N]>, %b: !tir.tensor<f64, I[0:N]>) {
  %r = tir.add %a, %b
  tir.return %r
}`, "f")
	onlyOut := parseFunc(t, `tir.func @f(%a: !tir.tensor<f64, I[0:4]>) -> !tir.tensor<f64, I[0:K], J[0:2]> {
  tir.return %a : !tir.tensor<f64, I[0:K], J[0:2]>
}`, "f")
	good := mustTensor(ir.F32, []Dim{D("I", 0, 7), D("J", 0, 9), D("K", 0, 9)})
	cases := []struct {
		name string
		fn   *ir.Operation
		args []*Tensor
		syms map[string]int64
		want string
	}{
		{"too many arguments", lap, []*Tensor{good, good}, nil,
			"@laplacian takes 1 argument(s) (inp), got 2"},
		{"wrong extent", lap, []*Tensor{mustTensor(ir.F32, []Dim{D("I", 0, 7), D("J", 0, 8), D("K", 0, 9)})}, nil,
			"argument 'inp' dimension J: expected extent 9, got 8"},
		{"wrong element type", lap, []*Tensor{mustTensor(ir.F64, good.Dims)}, nil,
			"argument 'inp' has element type f64, expected f32"},
		{"wrong rank", lap, []*Tensor{mustTensor(ir.F32, good.Dims[:2])}, nil,
			"argument 'inp' has 2 dimensions, expected 3"},
		{"wrong dimension name", lap, []*Tensor{mustTensor(ir.F32, []Dim{D("I", 0, 7), D("X", 0, 9), D("K", 0, 9)})}, nil,
			"argument 'inp' dimension #1 is X, expected J"},
		{"symbol disagrees with extent", sym, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 6), D("J", 0, 5)})}, map[string]int64{"N": 7},
			"argument 'inp' dimension I: expected extent N = 7, got 6"},
		{"arguments sharing a symbol", two, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 6)}), mustTensor(ir.F64, []Dim{D("I", 0, 5)})}, nil,
			"argument 'b' dimension I: expected extent N = 6, got 5"},
		{"unknown symbol", onlyOut, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 4)})}, nil,
			"size symbol K is unbound"},
		{"output outside the computed domain", onlyOut, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 4)})}, map[string]int64{"K": 5},
			"output domain of @f: result #0 dimension I is declared [0:K] but computed only on [0:4]"},
		{"negative symbol", sym, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 6), D("J", 0, 5)})}, map[string]int64{"N": -1},
			"size symbol N = -1 is negative"},
		{"bad data length", lap, []*Tensor{{Elem: ir.F32, Dims: good.Dims, F64: make([]float64, 3)}}, nil,
			"argument 'inp': 3 float values for 567 points"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(c.fn, c.args, c.syms)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

func TestBind(t *testing.T) {
	fn := exampleFunc(t, "nabla.tir", "nabla")
	if got := strings.Join(ArgNames(fn), ","); got != "pp,s_mxx,s_myy,sign,vol,e2v,v2e" {
		t.Errorf("ArgNames = %s", got)
	}
	if got := strings.Join(Symbols(fn), ","); got != "NV,NE" {
		t.Errorf("Symbols = %s", got)
	}
	pp := mustTensor(ir.F64, []Dim{D("Vertex", 0, 4)})
	_, err := Bind(fn, map[string]*Tensor{"pp": pp})
	if err == nil || !strings.Contains(err.Error(), "missing argument 's_mxx', 's_myy', 'sign', 'vol', 'e2v', 'v2e' of @nabla") {
		t.Errorf("missing: %v", err)
	}
	_, err = Bind(fn, map[string]*Tensor{"pp": pp, "nope": pp})
	if err == nil || !strings.Contains(err.Error(), "@nabla has no argument 'nope'") {
		t.Errorf("unknown: %v", err)
	}
	syms := InferSymbols(fn, map[string]*Tensor{"pp": pp, "e2v": mustTensor(ir.I32, []Dim{D("Edge", 0, 9), D("E2V", 0, 2)})}, nil)
	if syms["NV"] != 4 || syms["NE"] != 9 {
		t.Errorf("InferSymbols = %v, want NV=4 NE=9", syms)
	}
}

func TestUnimplementedOpIsLocated(t *testing.T) {
	fn := parseFunc(t, `tir.func @f(%a: !tir.tensor<f64>) {
  %r = tir.add %a, %a
  tir.return %r
}`, "f")
	op := fn.Regions[0].Entry().Ops[0]
	saved, savedDef := op.Name, op.Def
	op.Name, op.Def = "tir.frobnicate", &ir.OpDef{Name: "tir.frobnicate"}
	defer func() { op.Name, op.Def = saved, savedDef }()
	_, err := Run(fn, []*Tensor{mustTensor(ir.F64, nil)}, nil)
	d, ok := err.(*ir.Diagnostic)
	if !ok || d.Loc.Line != 2 || !strings.Contains(d.Msg, "does not implement 'tir.frobnicate'") {
		t.Errorf("error = %#v", err)
	}
}

// TestEveryOpIsImplemented keeps the interpreter in step with the
// dialect: every tir op has an evaluation function (eval.go's table), is
// evaluated from its access rule (access.go; an entry of the table, as
// tir.assume_shape's run-time check, takes precedence), or is one of the
// ops Run and block handle themselves.
func TestEveryOpIsImplemented(t *testing.T) {
	byRun := map[*tir.Op]bool{
		tir.Func:   true, // Run binds its arguments and runs its body
		tir.Return: true, // terminators: block returns their operands
		tir.Yield:  true,
	}
	for o := range terminators {
		if !byRun[o] {
			t.Errorf("%s is a terminator the test does not account for", o.Name)
		}
	}
	impl := map[*tir.Op]bool{}
	for _, o := range Implemented() {
		impl[o] = true
	}
	for _, o := range tir.Ops() {
		_, evaluated := table[o]
		if impl[o] != (evaluated || movesData(o)) {
			t.Errorf("Implemented disagrees with the table and the access rules on %s", o.Name)
		}
		if !evaluated && !movesData(o) && !byRun[o] {
			t.Errorf("the interpreter does not implement %s: register an evaluation function for it", o.Name)
		}
	}
}
