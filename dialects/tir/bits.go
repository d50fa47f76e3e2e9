package tir

import (
	"math"

	"tir/dialects/ir"
)

// floatFromBits reads a hexadecimal literal as the exact bit pattern of a
// float of type t (0x7FC00000 : f32 is a NaN).
func floatFromBits(bits uint64, t ir.FloatType) float64 {
	if t.Bits() == 32 {
		return float64(math.Float32frombits(uint32(bits)))
	}
	return math.Float64frombits(bits)
}
