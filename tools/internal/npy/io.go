package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strings"

	"tir/tools/internal/memory"
)

const magic = "\x93NUMPY"

// maxHeader is the longest header Read accepts (NumPy's np.load accepts
// 10000 bytes unless told otherwise).
const maxHeader = 1 << 20

// availableMemory is memory.Available (tests replace it).
var availableMemory = memory.Available

// Read decodes one .npy array from r. An array that cannot fit in the
// memory available is refused before anything is allocated, and a header
// or data that the file does not hold is an error found without
// allocating what the header announces.
func Read(r io.Reader) (*Array, error) {
	// The bytes left in a regular file bound what it can hold.
	left := int64(-1)
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				left = st.Size() - pos
			}
		}
	}
	br := bufio.NewReader(r)
	pre := make([]byte, 8)
	if _, err := io.ReadFull(br, pre); err != nil {
		return nil, fmt.Errorf("npy: not a .npy file (too short)")
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("npy: not a .npy file (bad magic %q)", pre[:6])
	}
	major := pre[6]
	var hlen int
	switch major {
	case 1:
		b := make([]byte, 2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, fmt.Errorf("npy: truncated header")
		}
		hlen = int(binary.LittleEndian.Uint16(b))
	case 2, 3:
		b := make([]byte, 4)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, fmt.Errorf("npy: truncated header")
		}
		hlen = int(binary.LittleEndian.Uint32(b))
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, pre[7])
	}
	if hlen > maxHeader {
		return nil, fmt.Errorf("npy: a header of %d bytes is longer than the %d bytes this reader accepts", hlen, maxHeader)
	}
	hb, err := readAtMost(br, hlen)
	if err != nil {
		return nil, fmt.Errorf("npy: truncated header (expected %d bytes)", hlen)
	}
	h, err := parseHeader(string(hb))
	if err != nil {
		return nil, err
	}
	if h.fortran {
		return nil, fmt.Errorf("npy: Fortran-order arrays are not supported: save with np.ascontiguousarray(arr)")
	}
	d, err := byDescr(h.descr)
	if err != nil {
		return nil, fmt.Errorf("npy: %v", err)
	}
	a := &Array{Dtype: d.name, Shape: h.shape}
	// The data's size, without overflow: at most MaxInt bytes.
	size := uint64(d.size)
	for _, s := range h.shape {
		hi, lo := bits.Mul64(size, uint64(s))
		if s < 0 || hi != 0 || lo > math.MaxInt {
			return nil, fmt.Errorf("npy: shape %v of %s has more elements than an array can hold", h.shape, d.name)
		}
		size = lo
	}
	if left >= 0 {
		if data := left - int64(preLen(major)) - int64(hlen); uint64(max(data, 0)) < size {
			return nil, fmt.Errorf("npy: truncated data: shape %v of %s needs %d bytes, got %d", h.shape, d.name, size, max(data, 0))
		}
	}
	// The bytes read, then the decoded values (8 bytes each for integers
	// and floats); the caller converts them once more.
	n := a.Len()
	need := float64(size) + 16*float64(n)
	if avail, ok := availableMemory(); ok && need > float64(avail) {
		return nil, fmt.Errorf("npy: shape %v of %s needs %s to read, more than the %s of memory available", h.shape, d.name, memory.Bytes(need), memory.Bytes(float64(avail)))
	}
	var raw []byte
	if left >= 0 {
		// The file holds the data: read it in one buffer.
		raw = make([]byte, size)
		var k int
		k, err = io.ReadFull(br, raw)
		raw = raw[:k]
	} else {
		raw, err = readAtMost(br, int(size))
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("npy: truncated data: shape %v of %s needs %d bytes, got %d", h.shape, d.name, size, len(raw))
		}
		return nil, fmt.Errorf("npy: %v", err)
	}
	decode(a, d, raw)
	return a, nil
}

// preLen is the length of the magic, the version and the header length
// field.
func preLen(major byte) int {
	if major == 1 {
		return 10
	}
	return 12
}

// readAtMost reads n bytes, allocating as they arrive (64 KiB, then
// doubling) rather than all at once: a file that declares more than it
// holds costs no more memory than it holds. On a short read it returns
// what was read and io.ErrUnexpectedEOF (io.EOF when nothing was).
func readAtMost(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<16))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(grown, buf)
			buf = grown
		}
		k, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil {
			if len(buf) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

func decode(a *Array, d dtype, raw []byte) {
	n := a.Len()
	le := binary.LittleEndian
	switch d.name {
	case "bool":
		a.Bool = make([]bool, n)
		for i := range a.Bool {
			a.Bool[i] = raw[i] != 0
		}
	case "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64":
		a.I64 = make([]int64, n)
		for i := range a.I64 {
			a.I64[i] = decodeInt(d, raw[d.size*i:])
		}
	case "float16":
		a.F64 = make([]float64, n)
		for i := range a.F64 {
			a.F64[i] = halfToFloat(le.Uint16(raw[2*i:]))
		}
	case "float32":
		a.F64 = make([]float64, n)
		for i := range a.F64 {
			a.F64[i] = float64(math.Float32frombits(le.Uint32(raw[4*i:])))
		}
	case "float64":
		a.F64 = make([]float64, n)
		for i := range a.F64 {
			a.F64[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
	}
}

// decodeInt reads one little-endian integer of the dtype's width,
// sign-extended for a signed dtype and zero-extended for an unsigned one.
func decodeInt(d dtype, b []byte) int64 {
	var u uint64
	for k := d.size - 1; k >= 0; k-- {
		u = u<<8 | uint64(b[k])
	}
	if d.kind == 'i' && d.size < 8 {
		shift := uint(64 - 8*d.size)
		return int64(u<<shift) >> shift
	}
	return int64(u)
}

// halfToFloat decodes IEEE binary16 bits.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// floatToHalf encodes x as IEEE binary16 bits, rounding to nearest, ties
// to even, with overflow to infinity and gradual underflow (NumPy's
// astype(np.float16)).
func floatToHalf(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
	}
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return 0x7e00
	case math.IsInf(x, 0):
		return sign | 0x7c00
	case a == 0:
		return sign
	}
	_, e := math.Frexp(a) // a in [2^(e-1), 2^e)
	exp := max(e-1, -14)
	// The quantum of a's binade (or of the subnormals) divides a exactly
	// in float64, so RoundToEven of the scaled value rounds correctly.
	q := math.Ldexp(1, exp-10)
	m := math.RoundToEven(a / q) // 11 significant bits, or 2^11 after a carry
	if m >= 2048 {
		m /= 2
		exp++
	}
	if exp > 15 {
		return sign | 0x7c00
	}
	if m < 1024 {
		return sign | uint16(m) // subnormal
	}
	return sign | uint16(exp+15)<<10 | uint16(m-1024)
}

// Write encodes a as a .npy file: version 1.0, or 2.0 when the header does
// not fit in 64 KiB. The header is padded with spaces so the data starts
// at a multiple of 64 bytes, as NumPy does. float32 and float16 data is
// rounded from F64 to the nearest value of the dtype (ties to even).
func Write(w io.Writer, a *Array) error {
	d, ok := byName(a.Dtype)
	if !ok || !d.write {
		return fmt.Errorf("npy: cannot write dtype %q (supported: bool, int8..int64, uint8..uint64, float16, float32, float64)", a.Dtype)
	}
	if err := a.check(d); err != nil {
		return err
	}
	dict := formatHeader(d.descr, a.Shape)
	prefix, version := 10, byte(1)
	if padded(prefix, dict) > math.MaxUint16 {
		prefix, version = 12, 2
	}
	hlen := padded(prefix, dict)
	bw := bufio.NewWriter(w)
	bw.WriteString(magic)
	bw.Write([]byte{version, 0})
	if version == 1 {
		binary.Write(bw, binary.LittleEndian, uint16(hlen))
	} else {
		binary.Write(bw, binary.LittleEndian, uint32(hlen))
	}
	bw.WriteString(dict)
	bw.WriteString(strings.Repeat(" ", hlen-len(dict)-1))
	bw.WriteByte('\n')
	bw.Write(encode(a, d))
	return bw.Flush()
}

// padded is the header length (dict, spaces, newline) that makes the data
// start at a multiple of 64 bytes after a prefix of the given size.
func padded(prefix int, dict string) int {
	total := prefix + len(dict) + 1
	return len(dict) + 1 + (64-total%64)%64
}

func encode(a *Array, d dtype) []byte {
	n := a.Len()
	raw := make([]byte, n*d.size)
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		switch d.name {
		case "bool":
			if a.Bool[i] {
				raw[i] = 1
			}
		case "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64":
			u := uint64(a.I64[i])
			for k := 0; k < d.size; k++ {
				raw[d.size*i+k] = byte(u >> (8 * k))
			}
		case "float16":
			le.PutUint16(raw[2*i:], floatToHalf(a.F64[i]))
		case "float32":
			le.PutUint32(raw[4*i:], math.Float32bits(float32(a.F64[i])))
		case "float64":
			le.PutUint64(raw[8*i:], math.Float64bits(a.F64[i]))
		}
	}
	return raw
}
