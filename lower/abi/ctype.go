package abi

import (
	"fmt"

	"tir/dialects/ir"
)

// CType is how a tensor element type crosses the C ABI: the C type of one
// element in a buffer, its size, and the suffix of the descriptor structs
// the C header names after it (tir_desc_<Suffix>_<rank>). The header, the
// C drivers of tc-run, the bench and the random-program tester, and the
// CUDA host wrapper all take it from here, so they cannot disagree (an i1
// is one byte holding 0 or 1: uint8_t).
type CType struct {
	Name   string
	Size   int
	Suffix string
	// Note says how to read the C type when it is not the element type
	// itself (the bits of a half float).
	Note string
}

// CTypeOf maps an element type to C. Only what the LLVM lowering can store
// in memory crosses the ABI: tuples do not. f16 and bf16 travel as their
// raw 16 bits (uint16_t): C has no portable type for either.
func CTypeOf(t ir.Type) (CType, error) {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return CType{Name: "float", Size: 4, Suffix: "f32"}, nil
		case "f64":
			return CType{Name: "double", Size: 8, Suffix: "f64"}, nil
		case "f16":
			return CType{Name: "uint16_t", Size: 2, Suffix: "f16", Note: "IEEE binary16 bits"}, nil
		case "bf16":
			// The high half of an IEEE binary32: (uint32_t)bits << 16 is
			// the float.
			return CType{Name: "uint16_t", Size: 2, Suffix: "bf16", Note: "bfloat16 bits, the high 16 bits of a float"}, nil
		}
	case ir.IntegerType:
		switch t.Width {
		case 1:
			// LLVM stores an i1 in one byte.
			return CType{Name: "uint8_t", Size: 1, Suffix: "i1", Note: "one byte, 0 or 1"}, nil
		case 8, 16, 32, 64:
			return CType{Name: fmt.Sprintf("int%d_t", t.Width), Size: t.Width / 8, Suffix: fmt.Sprintf("i%d", t.Width)}, nil
		}
	}
	return CType{}, fmt.Errorf("element type %s cannot cross the C ABI of compiled functions (f16, bf16, f32, f64, i1, i8, i16, i32 and i64 can)", t)
}
