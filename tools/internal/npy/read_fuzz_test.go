package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"strings"
	"testing"
)

// fuzzFile is a .npy file of a format version with a header dict and raw
// data, padded as NumPy pads it.
func fuzzFile(version byte, dict string, data []byte) []byte {
	prefix := 10
	if version >= 2 {
		prefix = 12
	}
	header := dict + strings.Repeat(" ", (64-(prefix+len(dict)+1)%64)%64) + "\n"
	var b bytes.Buffer
	b.WriteString(magic)
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

// declaredBytes is the data size a file's header declares, read the way
// Read reads it; ok is false when the header does not parse (Read then
// fails before allocating) and overflow true when the size does not fit an
// int.
func declaredBytes(data []byte) (n uint64, overflow, ok bool) {
	if len(data) < 10 || string(data[:6]) != magic {
		return 0, false, false
	}
	var hlen, off int
	switch data[6] {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(data[8:])), 10
	case 2, 3:
		if len(data) < 12 {
			return 0, false, false
		}
		hlen, off = int(binary.LittleEndian.Uint32(data[8:])), 12
	default:
		return 0, false, false
	}
	if hlen < 0 || off+hlen > len(data) {
		return 0, false, false
	}
	h, err := parseHeader(string(data[off : off+hlen]))
	if err != nil {
		return 0, false, false
	}
	d, err := byDescr(h.descr)
	if err != nil {
		return 0, false, false
	}
	n = uint64(d.size)
	for _, s := range h.shape {
		if s < 0 {
			return 0, true, true
		}
		hi, lo := bits.Mul64(n, uint64(s))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, true, true
		}
		n = lo
	}
	return n, false, true
}

// FuzzRead reads mutated .npy files: Read returns an array or an error,
// never panics; an array it returns has as many elements as its shape
// says, and writes and reads back unchanged.
func FuzzRead(f *testing.F) {
	for _, a := range []*Array{
		{Dtype: "float64", Shape: []int{2, 3}, F64: []float64{0.5, 1.5, 2.5, -1, math.Inf(1), math.NaN()}},
		{Dtype: "float32", Shape: []int{3}, F64: []float64{1, -2, 0.25}},
		{Dtype: "float16", Shape: []int{2}, F64: []float64{1, -2}},
		{Dtype: "int32", Shape: []int{2, 2}, I64: []int64{1, -1, math.MaxInt32, math.MinInt32}},
		{Dtype: "int64", Shape: []int{}, I64: []int64{-7}},
		{Dtype: "uint8", Shape: []int{3}, I64: []int64{0, 1, 255}},
		{Dtype: "int16", Shape: []int{0, 4}},
		{Dtype: "uint64", Shape: []int{1}, I64: []int64{-1}},
		{Dtype: "bool", Shape: []int{2}, Bool: []bool{true, false}},
	} {
		var b bytes.Buffer
		if err := Write(&b, a); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add(fuzzFile(2, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)))
	f.Add(fuzzFile(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", make([]byte, 4)))
	f.Add(fuzzFile(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", make([]byte, 8)))
	f.Add(fuzzFile(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1), }", make([]byte, 16)))
	f.Add(fuzzFile(1, "{'shape': (3,), 'fortran_order': False, 'descr': '|b1'}", []byte{1, 0, 2}))
	f.Add(fuzzFile(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", make([]byte, 20)))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data))
		if err == nil && headerLength(data) > maxHeader {
			t.Fatalf("a header of %d bytes was accepted", headerLength(data))
		}
		if n, overflow, ok := declaredBytes(data); ok && err == nil && (overflow || n > uint64(len(data))) {
			t.Fatalf("shape %v was read from %d bytes", a.Shape, len(data))
		}
		if err != nil {
			return
		}
		n := 1
		for _, s := range a.Shape {
			if s < 0 {
				t.Fatalf("negative extent in shape %v", a.Shape)
			}
			n *= s
		}
		got := len(a.F64) + len(a.I64) + len(a.Bool)
		if got != n {
			t.Fatalf("shape %v (%d elements) with %d values", a.Shape, n, got)
		}
		var b bytes.Buffer
		if err := Write(&b, a); err != nil {
			t.Fatalf("an array Read returned does not write: %v", err)
		}
		back, err := Read(&b)
		if err != nil {
			t.Fatalf("written array does not read back: %v", err)
		}
		if back.Dtype != a.Dtype || len(back.Shape) != len(a.Shape) {
			t.Fatalf("read back as %s %v, was %s %v", back.Dtype, back.Shape, a.Dtype, a.Shape)
		}
		for i := range a.Shape {
			if back.Shape[i] != a.Shape[i] {
				t.Fatalf("read back with shape %v, was %v", back.Shape, a.Shape)
			}
		}
		for i := range a.F64 {
			x, y := a.F64[i], back.F64[i]
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) || math.Signbit(x) != math.Signbit(y) && !math.IsNaN(x) {
				t.Fatalf("element %d: %v read back as %v", i, x, y)
			}
		}
		for i := range a.I64 {
			if a.I64[i] != back.I64[i] {
				t.Fatalf("element %d: %v read back as %v", i, a.I64[i], back.I64[i])
			}
		}
		for i := range a.Bool {
			if a.Bool[i] != back.Bool[i] {
				t.Fatalf("element %d: %v read back as %v", i, a.Bool[i], back.Bool[i])
			}
		}
	})
}

// TestReadHugeShape: a header whose element count overflows is an error,
// not an array of 0 values with a huge shape (found by FuzzRead). A shape
// that merely does not fit in memory, (10**12, 5), is refused before
// anything is allocated (TestReadBeyondMemory).
func TestReadHugeShape(t *testing.T) {
	data := fuzzFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", nil)
	a, err := Read(bytes.NewReader(data))
	if err == nil {
		t.Fatalf("shape %v read as an array of %d values", a.Shape, len(a.F64))
	}
	if want := "has more elements than an array can hold"; !strings.Contains(err.Error(), want) {
		t.Fatalf("got %q, want it to contain %q", err, want)
	}
}

// headerLength is the header length a file declares (0 if it has none).
func headerLength(data []byte) uint64 {
	switch {
	case len(data) < 10 || string(data[:6]) != magic:
		return 0
	case data[6] == 1:
		return uint64(binary.LittleEndian.Uint16(data[8:]))
	case len(data) >= 12:
		return uint64(binary.LittleEndian.Uint32(data[8:]))
	}
	return 0
}

// TestReadHugeHeaderLength: a file of 12 bytes that declares a header of
// 4 GiB is an error found without allocating 4 GiB (found by FuzzRead,
// whose fuzzing process died: testdata/fuzz/FuzzRead/6588990b665bc415).
func TestReadHugeHeaderLength(t *testing.T) {
	data := []byte(magic + "\x02\x00\xff\xff\xff\xf0")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a truncated header was accepted")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<24 {
		t.Fatalf("reading a 12-byte file allocated %d MiB (%v)", grew>>20, err)
	}
}
