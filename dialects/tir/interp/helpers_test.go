package interp

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	_ "tir/dialects/tir"
)

// parseFunc parses and verifies a module and returns the named function.
func parseFunc(t *testing.T, src, name string) *ir.Operation {
	t.Helper()
	m, diags := parser.Parse("test.tir", src)
	if len(diags) > 0 {
		t.Fatalf("parse: %v", diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("verify: %v", err)
	}
	fn := m.Lookup(name)
	if fn == nil {
		t.Fatalf("no function @%s", name)
	}
	return fn
}

// exampleFunc loads a function from the shared examples.
func exampleFunc(t *testing.T, file, name string) *ir.Operation {
	t.Helper()
	path := filepath.Join("..", "..", "..", "..", "shared", "examples", file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("example not available: %v", err)
	}
	return parseFunc(t, string(src), name)
}

// D is a concrete dimension.
func D(name string, lo, hi int64) Dim { return Dim{Name: name, Lo: lo, Hi: hi} }

func floats(elem ir.Type, dims []Dim, vals ...float64) *Tensor {
	t := mustTensor(elem, dims)
	copy(t.F64, vals)
	return t
}

func ints(elem ir.Type, dims []Dim, vals ...int64) *Tensor {
	t := mustTensor(elem, dims)
	copy(t.I64, vals)
	return t
}

// fill sets every point of a float tensor from its coordinates.
func fill(t *Tensor, f func(c []int64) float64) *Tensor {
	i := 0
	_ = points(t.Dims, func(c []int64) error {
		t.F64[i] = RoundTo(t.Elem, f(c))
		i++
		return nil
	})
	return t
}

// at reads the float element at named coordinates.
func at(t *testing.T, x *Tensor, p map[string]int64) float64 {
	t.Helper()
	i, ok := x.Offset(p)
	if !ok {
		t.Fatalf("point %v outside %s", p, x)
	}
	return x.F64[i]
}

func run1(t *testing.T, fn *ir.Operation, args []*Tensor, syms map[string]int64) *Tensor {
	t.Helper()
	outs, err := Run(fn, args, syms)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(outs) != 1 {
		t.Fatalf("got %d results", len(outs))
	}
	return outs[0]
}

func checkDims(t *testing.T, x *Tensor, want ...Dim) {
	t.Helper()
	if !sameDims(x.Dims, want) {
		t.Fatalf("domain %s, want %s", dimsString(x.Dims), dimsString(want))
	}
}

// sameBits compares floats bit for bit (so -0 != +0 and NaN == NaN).
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// pseudo is a deterministic value in [-1, 1) for test inputs.
func pseudo(c []int64) float64 {
	h := uint64(1469598103934665603)
	for _, x := range c {
		h = (h ^ uint64(x+1000)) * 1099511628211
	}
	return float64(h%20000)/10000 - 1
}
