package main

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/internal/npy"
)

// The .npy shape of a tensor is its dimensions' extents in storage order;
// the dtype follows the element type. tir integers are signless (a TC
// uint8 is an i8): an integer argument also accepts the unsigned dtype of
// its width, whose values are read as the two's complement bits they are
// (200 as a uint8 is the i8 -56, which tir's uint8 arithmetic wraps back),
// and results are written signed (view them with arr.view(np.uint8)).
// f16 is NumPy's float16. bf16 has no NumPy dtype: it is exchanged as
// float32, read with one rounding to nearest-even bf16 and written exactly
// (every bf16 is a float32). Tuples have no .npy exchange.
var dtypeOf = map[string]string{
	"f16":  "float16",
	"bf16": "float32",
	"f32":  "float32",
	"f64":  "float64",
	"i8":   "int8",
	"i16":  "int16",
	"i32":  "int32",
	"i64":  "int64",
	"i1":   "bool",
}

// unsignedOf is the unsigned dtype an integer argument also accepts.
var unsignedOf = map[string]string{"i8": "uint8", "i16": "uint16", "i32": "uint32", "i64": "uint64"}

const exchangeableTypes = "f16, bf16 (as float32), f32, f64, i8, i16, i32, i64, i1"

func exchangeable(t ir.Type) error {
	tt, ok := tir.AsTensor(t)
	if !ok {
		return fmt.Errorf("type %s is not a !tir.tensor", t)
	}
	if _, ok := dtypeOf[tt.Elem.String()]; !ok {
		return fmt.Errorf("element type %s cannot be exchanged through .npy (supported: %s)", tt.Elem, exchangeableTypes)
	}
	return nil
}

// fromNpy checks an array against a parameter type and makes it a tensor
// (with the parameter's dimension names; bounds are applied by the
// interpreter from the type).
func fromNpy(name string, a *npy.Array, pt tir.TensorType) (*interp.Tensor, error) {
	want := dtypeOf[pt.Elem.String()]
	unsigned := unsignedOf[pt.Elem.String()]
	if a.Dtype != want && (unsigned == "" || a.Dtype != unsigned) {
		if unsigned != "" {
			want += " or " + unsigned
		}
		return nil, fmt.Errorf("argument '%s' expects %s, got %s", name, want, a.Dtype)
	}
	if len(a.Shape) != len(pt.Dims) {
		var names []string
		for _, d := range pt.Dims {
			names = append(names, d.Name)
		}
		return nil, fmt.Errorf("argument '%s' expects %d dimension(s) (%s), got shape %v", name, len(pt.Dims), strings.Join(names, ", "), a.Shape)
	}
	t := &interp.Tensor{Elem: pt.Elem}
	for k, d := range pt.Dims {
		t.Dims = append(t.Dims, interp.Dim{Name: d.Name, Lo: 0, Hi: int64(a.Shape[k])})
	}
	switch {
	case a.Dtype == "bool":
		t.I64 = make([]int64, len(a.Bool))
		for i, b := range a.Bool {
			if b {
				t.I64[i] = 1
			}
		}
	case a.I64 != nil:
		// An unsigned value becomes the signed one of its bits.
		t.I64 = make([]int64, len(a.I64))
		w := uint(pt.Elem.(ir.IntegerType).Width)
		for i, v := range a.I64 {
			t.I64[i] = v << (64 - w) >> (64 - w)
		}
	default:
		t.F64 = make([]float64, len(a.F64))
		for i, v := range a.F64 {
			t.F64[i] = interp.RoundTo(pt.Elem, v)
		}
	}
	return t, nil
}

// toNpy converts a result; its masked points hold 0 (interp.Run).
func toNpy(t *interp.Tensor) (*npy.Array, error) {
	dt, ok := dtypeOf[t.Elem.String()]
	if !ok {
		return nil, fmt.Errorf("element type %s cannot be written as .npy (supported: %s)", t.Elem, exchangeableTypes)
	}
	a := &npy.Array{Dtype: dt, Shape: t.Shape()}
	switch {
	case dt == "bool":
		a.Bool = make([]bool, len(t.I64))
		for i, v := range t.I64 {
			a.Bool[i] = v != 0
		}
	case t.I64 != nil:
		a.I64 = t.I64
	default:
		a.F64 = t.F64
	}
	return a, nil
}
