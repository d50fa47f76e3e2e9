// Package npy reads and writes NumPy .npy files (format versions 1.0, 2.0
// and 3.0 on reading; 1.0, or 2.0 when the header needs it, on writing),
// so that tools exchange tensors with Python without a conversion step.
//
// Only what the toolchain's tensors need is supported: little-endian data
// in C (row-major) order, with dtypes bool (|b1), int8 (|i1), uint8 (|u1),
// int16 (<i2), uint16 (<u2), int32 (<i4), uint32 (<u4), int64 (<i8),
// uint64 (<u8), float16 (<f2), float32 (<f4) and float64 (<f8). Anything
// else (big-endian data, Fortran order, other dtypes, object arrays) is a
// clear error rather than a misread.
package npy

import "fmt"

// Array is an n-dimensional array in C order. Dtype is the NumPy name:
// "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
// "uint64", "float16", "float32" or "float64". Exactly one data slice is
// used: F64 for float dtypes (values as read; when writing float32 they
// are converted), I64 for integer dtypes (a uint64 holds its bits, values
// above the int64 maximum read as negative), Bool for bool. Its length is
// the product of Shape (1 for a 0-d array).
type Array struct {
	Dtype string
	Shape []int
	F64   []float64
	I64   []int64
	Bool  []bool
}

// Len is the number of elements, the product of the shape.
func (a *Array) Len() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}

// dtype describes one supported element type.
type dtype struct {
	name  string // NumPy name
	descr string // array-protocol type string, as in the header
	size  int    // bytes per element
	kind  byte   // 'f', 'i' or 'b'
	write bool   // whether Write supports it
}

var dtypes = []dtype{
	{"bool", "|b1", 1, 'b', true},
	{"int8", "|i1", 1, 'i', true},
	{"uint8", "|u1", 1, 'u', true},
	{"int16", "<i2", 2, 'i', true},
	{"uint16", "<u2", 2, 'u', true},
	{"int32", "<i4", 4, 'i', true},
	{"uint32", "<u4", 4, 'u', true},
	{"int64", "<i8", 8, 'i', true},
	{"uint64", "<u8", 8, 'u', true},
	{"float16", "<f2", 2, 'f', true},
	{"float32", "<f4", 4, 'f', true},
	{"float64", "<f8", 8, 'f', true},
}

func byName(name string) (dtype, bool) {
	for _, d := range dtypes {
		if d.name == name {
			return d, true
		}
	}
	return dtype{}, false
}

// byDescr maps a header descr to a dtype. NumPy writes single-byte types
// with '|'; '<' and '=' for them are accepted too.
func byDescr(descr string) (dtype, error) {
	for _, d := range dtypes {
		if d.descr == descr || d.size == 1 && (descr == "<"+d.descr[1:] || descr == "="+d.descr[1:]) {
			return d, nil
		}
	}
	if len(descr) > 1 && descr[0] == '>' {
		if _, err := byDescr("<" + descr[1:]); err == nil {
			return dtype{}, fmt.Errorf("big-endian data (dtype '%s') is not supported: convert with arr.astype('<%s')", descr, descr[1:])
		}
	}
	return dtype{}, fmt.Errorf("unsupported dtype '%s' (supported: bool, int8..int64, uint8..uint64, float16, float32, float64, little-endian)", descr)
}

// check verifies that the data slice matching the dtype has Len elements.
func (a *Array) check(d dtype) error {
	n, got := a.Len(), 0
	switch d.kind {
	case 'f':
		got = len(a.F64)
	case 'i', 'u':
		got = len(a.I64)
	case 'b':
		got = len(a.Bool)
	}
	if got != n {
		return fmt.Errorf("npy: %s array of shape %v needs %d elements, has %d", a.Dtype, a.Shape, n, got)
	}
	for _, s := range a.Shape {
		if s < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", a.Shape)
		}
	}
	if (d.kind == 'i' || d.kind == 'u') && d.size < 8 {
		lo, hi := d.limits()
		for _, v := range a.I64 {
			if v < lo || v > hi {
				return fmt.Errorf("npy: value %d does not fit %s", v, d.name)
			}
		}
	}
	return nil
}

// limits are the smallest and largest values of an integer dtype narrower
// than 64 bits.
func (d dtype) limits() (lo, hi int64) {
	bits := uint(8 * d.size)
	if d.kind == 'u' {
		return 0, 1<<bits - 1
	}
	return -1 << (bits - 1), 1<<(bits-1) - 1
}
