package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

func roundTrip(t *testing.T, a *Array) *Array {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, a); err != nil {
		t.Fatalf("write: %v", err)
	}
	hlen := int(binary.LittleEndian.Uint16(buf.Bytes()[8:]))
	if (10+hlen)%64 != 0 || buf.Bytes()[10+hlen-1] != '\n' {
		t.Errorf("data does not start at a multiple of 64 after a newline (header %d bytes)", hlen)
	}
	b, err := Read(&buf)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	cases := []*Array{
		{Dtype: "bool", Shape: []int{2, 2}, Bool: []bool{true, false, false, true}},
		{Dtype: "int32", Shape: []int{3}, I64: []int64{-1, math.MaxInt32, math.MinInt32}},
		{Dtype: "int64", Shape: []int{1, 3}, I64: []int64{math.MinInt64, 0, math.MaxInt64}},
		{Dtype: "int8", Shape: []int{4}, I64: []int64{-128, -1, 0, 127}},
		{Dtype: "uint8", Shape: []int{2, 2}, I64: []int64{0, 1, 128, 255}},
		{Dtype: "int16", Shape: []int{3}, I64: []int64{math.MinInt16, -2, math.MaxInt16}},
		{Dtype: "uint16", Shape: []int{3}, I64: []int64{0, 40000, math.MaxUint16}},
		{Dtype: "uint32", Shape: []int{2}, I64: []int64{0, math.MaxUint32}},
		{Dtype: "uint64", Shape: []int{2}, I64: []int64{0, -1}}, // the bits of 2^64 - 1
		{Dtype: "float32", Shape: []int{2, 1, 2}, F64: []float64{float64(float32(0.1)), -2.5, math.Inf(1), math.Copysign(0, -1)}},
		{Dtype: "float64", Shape: []int{}, F64: []float64{math.Pi}},
		{Dtype: "float64", Shape: []int{0, 4}, F64: []float64{}},
	}
	for _, a := range cases {
		t.Run(a.Dtype, func(t *testing.T) {
			b := roundTrip(t, a)
			if b.Dtype != a.Dtype || !reflect.DeepEqual(b.Shape, a.Shape) {
				t.Fatalf("got %s %v, want %s %v", b.Dtype, b.Shape, a.Dtype, a.Shape)
			}
			switch {
			case a.Bool != nil:
				if !reflect.DeepEqual(a.Bool, b.Bool) {
					t.Errorf("got %v, want %v", b.Bool, a.Bool)
				}
			case a.I64 != nil:
				if !reflect.DeepEqual(a.I64, b.I64) {
					t.Errorf("got %v, want %v", b.I64, a.I64)
				}
			default:
				for i := range a.F64 {
					if math.Float64bits(a.F64[i]) != math.Float64bits(b.F64[i]) {
						t.Errorf("element %d: got %v, want %v", i, b.F64[i], a.F64[i])
					}
				}
			}
		})
	}
}

// numpyFile builds the bytes of a .npy file exactly as NumPy writes them.
func numpyFile(version byte, dict string, data []byte) []byte {
	prefix := 10
	if version >= 2 {
		prefix = 12
	}
	pad := (64 - (prefix+len(dict)+1)%64) % 64
	header := dict + strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.Write([]byte{version, 0})
	if version == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(header)))
	}
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func f64Bytes(vs ...float64) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func TestNumpyFixture(t *testing.T) {
	// np.save of np.arange(6.0).reshape(2, 3) + 0.5.
	want := []float64{0.5, 1.5, 2.5, 3.5, 4.5, 5.5}
	file := numpyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", f64Bytes(want...))
	if len(file) != 128+48 {
		t.Fatalf("fixture is %d bytes, want 176 (64-byte aligned header)", len(file))
	}
	a, err := Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if a.Dtype != "float64" || !reflect.DeepEqual(a.Shape, []int{2, 3}) || !reflect.DeepEqual(a.F64, want) {
		t.Errorf("got %s %v %v", a.Dtype, a.Shape, a.F64)
	}
	// Writing the same array gives NumPy's bytes exactly.
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Dtype: "float64", Shape: []int{2, 3}, F64: want}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), file) {
		t.Errorf("Write differs from NumPy:\n%q\n%q", buf.Bytes(), file)
	}
	// Version 2.0, another key order, a 1-d shape.
	a, err = Read(bytes.NewReader(numpyFile(2, "{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}", f64Bytes(1, 2))))
	if err != nil || !reflect.DeepEqual(a.Shape, []int{2}) || a.F64[1] != 2 {
		t.Errorf("version 2: %v %v", a, err)
	}
	// Narrow integers as NumPy writes them: np.array([-2, 127], np.int8)
	// and np.array([1, 65535], np.uint16).
	a, err = Read(bytes.NewReader(numpyFile(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", []byte{0xfe, 0x7f})))
	if err != nil || a.Dtype != "int8" || !reflect.DeepEqual(a.I64, []int64{-2, 127}) {
		t.Errorf("int8: %v %v", a, err)
	}
	a, err = Read(bytes.NewReader(numpyFile(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", []byte{0x01, 0x00, 0xff, 0xff})))
	if err != nil || a.Dtype != "uint16" || !reflect.DeepEqual(a.I64, []int64{1, 65535}) {
		t.Errorf("uint16: %v %v", a, err)
	}
	buf.Reset()
	if err := Write(&buf, &Array{Dtype: "int8", Shape: []int{2}, I64: []int64{-2, 127}}); err != nil {
		t.Fatal(err)
	}
	if want := numpyFile(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", []byte{0xfe, 0x7f}); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("int8 Write differs from NumPy:\n%q\n%q", buf.Bytes(), want)
	}
	// float16.
	a, err = Read(bytes.NewReader(numpyFile(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", []byte{0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00})))
	if err != nil || a.Dtype != "float16" || a.F64[0] != 1 || a.F64[1] != -2 || a.F64[2] != math.Ldexp(1, -24) {
		t.Errorf("float16: %v %v", a, err)
	}
}

func TestErrors(t *testing.T) {
	data := f64Bytes(1, 2, 3, 4, 5, 6)
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"big-endian", numpyFile(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", data), "big-endian data (dtype '>f8') is not supported"},
		{"fortran", numpyFile(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", data), "Fortran-order arrays are not supported"},
		{"dtype", numpyFile(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }", data), "unsupported dtype '<c16'"},
		{"truncated", numpyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", data[:20]), "truncated data: shape [2 3] of float64 needs 48 bytes, got 20"},
		{"magic", []byte("PK\x03\x04 this is a zip"), "not a .npy file"},
		{"structured", numpyFile(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", data), "expected a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want %q", err, c.want)
			}
		})
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Dtype: "float64", Shape: []int{2, 3}, F64: []float64{1}}); err == nil || !strings.Contains(err.Error(), "needs 6 elements, has 1") {
		t.Errorf("short data: %v", err)
	}
	if err := Write(&buf, &Array{Dtype: "int32", Shape: []int{1}, I64: []int64{1 << 40}}); err == nil || !strings.Contains(err.Error(), "does not fit int32") {
		t.Errorf("int32 overflow: %v", err)
	}
	if err := Write(&buf, &Array{Dtype: "uint8", Shape: []int{2}, I64: []int64{255, 256}}); err == nil || !strings.Contains(err.Error(), "value 256 does not fit uint8") {
		t.Errorf("uint8 overflow: %v", err)
	}
	if err := Write(&buf, &Array{Dtype: "int16", Shape: []int{1}, I64: []int64{-40000}}); err == nil || !strings.Contains(err.Error(), "does not fit int16") {
		t.Errorf("int16 overflow: %v", err)
	}
	if err := Write(&buf, &Array{Dtype: "complex128", Shape: []int{1}}); err == nil || !strings.Contains(err.Error(), "cannot write dtype") {
		t.Errorf("dtype: %v", err)
	}
}

func TestLongHeaderUsesVersion2(t *testing.T) {
	shape := make([]int, 30000) // a header over 64 KiB
	for i := range shape {
		shape[i] = 1
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Dtype: "int64", Shape: shape, I64: []int64{7}}); err != nil {
		t.Fatal(err)
	}
	if v := buf.Bytes()[6]; v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	if hlen := int(binary.LittleEndian.Uint32(buf.Bytes()[8:])); (12+hlen)%64 != 0 {
		t.Errorf("version 2 header not aligned")
	}
	a, err := Read(&buf)
	if err != nil || len(a.Shape) != 30000 || a.I64[0] != 7 {
		t.Errorf("read back: %v", err)
	}
}

// float16 is written as NumPy's astype(np.float16) would: every half
// value round-trips bit for bit, and other values round to nearest, ties
// to even, overflowing to infinity.
func TestFloat16Write(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		x := halfToFloat(uint16(h))
		got := floatToHalf(x)
		if math.IsNaN(x) {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Errorf("NaN %#04x written as %#04x", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Errorf("%v (%#04x) written as %#04x", x, h, got)
		}
	}
	for _, c := range []struct {
		x    float64
		want uint16
	}{
		{1 + math.Ldexp(1, -11), 0x3c00},                      // a tie: to even (1)
		{1 + 3*math.Ldexp(1, -11), 0x3c02},                    // a tie: to even (1 + 2^-9)
		{1 + math.Ldexp(1, -11) + math.Ldexp(1, -30), 0x3c01}, // above the tie
		{65504, 0x7bff},
		{65520, 0x7c00}, // halfway to 2^16 rounds to infinity
		{-1e9, 0xfc00},
		{math.Ldexp(1, -25), 0x0000},      // a tie with 0
		{math.Ldexp(3, -26), 0x0001},      // above it: the smallest subnormal
		{math.Ldexp(1023.5, -24), 0x0400}, // carries into the smallest normal
		{math.Copysign(0, -1), 0x8000},
	} {
		if got := floatToHalf(c.x); got != c.want {
			t.Errorf("floatToHalf(%v) = %#04x, want %#04x", c.x, got, c.want)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Dtype: "float16", Shape: []int{3}, F64: []float64{1, -2, math.Ldexp(1, -24)}}); err != nil {
		t.Fatal(err)
	}
	if want := numpyFile(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", []byte{0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00}); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("float16 Write differs from NumPy:\n%q\n%q", buf.Bytes(), want)
	}
}
