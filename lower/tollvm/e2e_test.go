package tollvm

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// e2eBuf is a memref argument of an end-to-end test. The driver passes it
// with a non-trivial layout (an offset and padded rows) to exercise the
// descriptor ABI, and fills the padding with a sentinel to detect writes
// outside the logical elements.
type e2eBuf struct {
	name   string
	ctype  string  // float, double, int64_t, int32_t
	shape  []int64 // logical sizes (empty: rank 0, passed as T*)
	output bool
	f      []float64 // input data (float types), row-major
	i      []int64   // input data (integer types)
	// wantF / wantI are the expected outputs computed by the Go reference.
	wantF []float64
	wantI []int64
}

func (b *e2eBuf) isFloat() bool { return b.ctype == "float" || b.ctype == "double" }

func (b *e2eBuf) bytes() int {
	switch b.ctype {
	case "float", "int32_t":
		return 4
	}
	return 8
}

func (b *e2eBuf) count() int {
	n := 1
	for _, s := range b.shape {
		n *= int(s)
	}
	return n
}

// layout returns the strides and offset the driver uses: innermost rows
// padded by 3 elements, offset 7, and the total buffer length. A rank-0
// buffer is element 1 of a 3-element array.
func (b *e2eBuf) layout() (strides []int64, offset int64, total int64) {
	n := len(b.shape)
	if n == 0 {
		return nil, 1, 3
	}
	strides = make([]int64, n)
	strides[n-1] = 1
	for d := n - 2; d >= 0; d-- {
		strides[d] = strides[d+1] * b.shape[d+1]
		if d == n-2 {
			strides[d] += 3
		}
	}
	offset = 7
	total = offset + 1 + 5
	for d := 0; d < n; d++ {
		total += (b.shape[d] - 1) * strides[d]
	}
	return strides, offset, total
}

// bits returns the stored bit pattern of logical element k of the input.
func (b *e2eBuf) bits(k int) uint64 {
	switch b.ctype {
	case "float":
		return uint64(math.Float32bits(float32(b.f[k])))
	case "double":
		return math.Float64bits(b.f[k])
	case "int32_t":
		return uint64(uint32(int32(b.i[k])))
	}
	return uint64(b.i[k])
}

// fill generates deterministic pseudo-random inputs.
func (b *e2eBuf) fill(rng *rand.Rand) {
	n := b.count()
	if b.isFloat() {
		b.f = make([]float64, n)
		for k := range b.f {
			v := rng.Float64()*2 - 1
			if b.ctype == "float" {
				v = float64(float32(v))
			}
			b.f[k] = v
		}
		return
	}
	b.i = make([]int64, n)
	for k := range b.i {
		b.i[k] = rng.Int63n(2001) - 1000
	}
}

// e2eArg is an argument: a buffer or an index value.
type e2eArg struct {
	buf   *e2eBuf
	index int64
	name  string
}

// e2eCase describes one end-to-end run.
type e2eCase struct {
	file string
	fn   string
	args []e2eArg
	// before is C code run after the descriptors are built and before the
	// call (to corrupt a size or stride).
	before string
	// shapeSyms are the values passed to f_result_shape (nil: not called).
	shapeSyms []int64
	callShape bool
	// tol is the relative tolerance for floats (0: bit-identical).
	tol float64
	// anyNaN lets any NaN match a NaN (its payload and sign may differ).
	anyNaN bool
	// opts are the emitter's options (threads); env is added to the
	// driver's environment (OMP_NUM_THREADS).
	opts Options
	env  []string
}

// e2eResult is what the driver printed.
type e2eResult struct {
	rc       int
	msg      string
	outputs  map[string][]uint64
	intact   map[string]bool
	untouch  map[string]bool
	shapeRC  int
	shape    []int64
	messages map[string]string
}

// driverSource writes the C driver for c.
func driverSource(c *e2eCase) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n")
	var protoArgs, callArgs, syms []string
	for _, a := range c.args {
		if a.buf == nil {
			protoArgs = append(protoArgs, "int64_t")
			callArgs = append(callArgs, strconv.FormatInt(a.index, 10))
			syms = append(syms, "int64_t")
			continue
		}
		buf := a.buf
		n := len(buf.shape)
		if n == 0 {
			protoArgs = append(protoArgs, buf.ctype+" *")
			callArgs = append(callArgs, buf.name+"_buf + 1")
		} else {
			fmt.Fprintf(&b, "typedef struct { %s *allocated, *aligned; int64_t offset, sizes[%d], strides[%d]; } desc_%s;\n", buf.ctype, n, n, buf.name)
			protoArgs = append(protoArgs, "desc_"+buf.name+" *")
			callArgs = append(callArgs, "&"+buf.name)
		}
	}
	fmt.Fprintf(&b, "int32_t %s(%s);\nconst char *%s_error(int32_t);\n", c.fn, strings.Join(protoArgs, ", "), c.fn)
	fmt.Fprintf(&b, "int32_t %s_result_shape(%s);\n\n", c.fn, strings.Join(append(syms, "int64_t *"), ", "))
	b.WriteString("static void put(void *dst, uint64_t bits, int size) { memcpy(dst, &bits, size); }\n")
	b.WriteString("static uint64_t get(const void *src, int size) { uint64_t v = 0; memcpy(&v, src, size); return v; }\n\n")
	b.WriteString("int main(void) {\n")
	const sentinel = "0x5aa55aa55aa55aa5ULL"
	for _, a := range c.args {
		if a.buf == nil {
			continue
		}
		buf := a.buf
		strides, offset, total := buf.layout()
		sz := buf.bytes()
		fmt.Fprintf(&b, "  %s *%s_buf = malloc(%d * %d);\n", buf.ctype, buf.name, total, sz)
		fmt.Fprintf(&b, "  for (int k = 0; k < %d; k++) put(&%s_buf[k], %s, %d);\n", total, buf.name, sentinel, sz)
		// Positions of the logical elements.
		pos := logicalPositions(buf.shape, strides, offset)
		fmt.Fprintf(&b, "  static const long %s_pos[] = {%s};\n", buf.name, joinInts(pos))
		if !buf.output {
			vals := make([]string, buf.count())
			for k := range vals {
				vals[k] = fmt.Sprintf("0x%xULL", buf.bits(k))
			}
			fmt.Fprintf(&b, "  static const uint64_t %s_init[] = {%s};\n", buf.name, strings.Join(vals, ", "))
			fmt.Fprintf(&b, "  for (int k = 0; k < %d; k++) put(&%s_buf[%s_pos[k]], %s_init[k], %d);\n", buf.count(), buf.name, buf.name, buf.name, sz)
		}
		fmt.Fprintf(&b, "  %s *%s_copy = malloc(%d * %d); memcpy(%s_copy, %s_buf, %d * %d);\n", buf.ctype, buf.name, total, sz, buf.name, buf.name, total, sz)
		if n := len(buf.shape); n > 0 {
			fmt.Fprintf(&b, "  desc_%s %s = {%s_buf, %s_buf, %d, {%s}, {%s}};\n", buf.name, buf.name, buf.name, buf.name, offset, joinInts(buf.shape), joinInts(strides))
		}
	}
	b.WriteString(c.before + "\n")
	fmt.Fprintf(&b, "  int32_t rc = %s(%s);\n", c.fn, strings.Join(callArgs, ", "))
	fmt.Fprintf(&b, "  printf(\"rc %%d\\n\", rc);\n  printf(\"msg %%s\\n\", %s_error(rc));\n", c.fn)
	fmt.Fprintf(&b, "  printf(\"e0 %%s\\n\", %s_error(0));\n  printf(\"e999 %%s\\n\", %s_error(999));\n  printf(\"e1 %%s\\n\", %s_error(1));\n", c.fn, c.fn, c.fn)
	for _, a := range c.args {
		if a.buf == nil {
			continue
		}
		buf := a.buf
		_, _, total := buf.layout()
		sz := buf.bytes()
		if buf.output {
			fmt.Fprintf(&b, "  printf(\"out %s\");\n", buf.name)
			fmt.Fprintf(&b, "  for (int k = 0; k < %d; k++) printf(\" %%llx\", (unsigned long long)get(&%s_buf[%s_pos[k]], %d));\n", buf.count(), buf.name, buf.name, sz)
			b.WriteString("  printf(\"\\n\");\n")
			// Padding must still hold the sentinel.
			fmt.Fprintf(&b, "  { int ok = 1; for (int k = 0; k < %d; k++) put(&%s_copy[%s_pos[k]], get(&%s_buf[%s_pos[k]], %d), %d);\n", buf.count(), buf.name, buf.name, buf.name, buf.name, sz, sz)
			fmt.Fprintf(&b, "    ok = memcmp(%s_copy, %s_buf, %d * %d) == 0; printf(\"intact %s %%d\\n\", ok); }\n", buf.name, buf.name, total, sz, buf.name)
			// Untouched: every slot still the sentinel (expected after a failed check).
			fmt.Fprintf(&b, "  { int ok = 1; for (int k = 0; k < %d; k++) ok &= get(&%s_buf[k], %d) == (%s & (%d == 8 ? ~0ULL : 0xffffffffULL)); printf(\"untouched %s %%d\\n\", ok); }\n", total, buf.name, sz, sentinel, sz, buf.name)
		} else {
			fmt.Fprintf(&b, "  printf(\"intact %s %%d\\n\", memcmp(%s_copy, %s_buf, %d * %d) == 0);\n", buf.name, buf.name, buf.name, total, sz)
		}
	}
	if c.callShape {
		var sargs []string
		for _, s := range c.shapeSyms {
			sargs = append(sargs, strconv.FormatInt(s, 10))
		}
		b.WriteString("  int64_t shp[64];\n")
		fmt.Fprintf(&b, "  int32_t src = %s_result_shape(%s);\n", c.fn, strings.Join(append(sargs, "shp"), ", "))
		nres := 0
		for _, a := range c.args {
			if a.buf != nil && a.buf.output {
				nres += len(a.buf.shape)
			}
		}
		fmt.Fprintf(&b, "  printf(\"shape %%d\", src); for (int k = 0; k < %d; k++) printf(\" %%lld\", (long long)shp[k]); printf(\"\\n\");\n", nres)
	}
	b.WriteString("  return 0;\n}\n")
	return b.String()
}

func logicalPositions(shape, strides []int64, offset int64) []int64 {
	n := 1
	for _, s := range shape {
		n *= int(s)
	}
	pos := make([]int64, n)
	for k := 0; k < n; k++ {
		rem := k
		p := offset
		for d := len(shape) - 1; d >= 0; d-- {
			p += int64(rem%int(shape[d])) * strides[d]
			rem /= int(shape[d])
		}
		pos[k] = p
	}
	return pos
}

func joinInts(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ", ")
}

// runE2E compiles the function with llc, links the driver with gcc, runs
// it and parses what it printed.
func runE2E(t *testing.T, c *e2eCase) *e2eResult {
	t.Helper()
	llc := tool(t, "llc")
	gcc := toolAny(t, "gcc", "cc")
	dir := t.TempDir()
	ll := emitFile(t, loadTestdata(t, c.file), c.opts, dir, c.file)
	obj := filepath.Join(dir, c.file+".o")
	run(t, dir, llc, "-O3", "-filetype=obj", "-relocation-model=pic", "-o", obj, ll)
	drv := filepath.Join(dir, "driver.c")
	if err := os.WriteFile(drv, []byte(driverSource(c)), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "driver")
	link := []string{"-O1", "-o", exe, drv, obj, "-lm"}
	if text, err := os.ReadFile(ll); err == nil && UsesOpenMP(string(text)) {
		link = append(link, "-fopenmp")
	}
	run(t, dir, gcc, link...)
	out := runEnv(t, dir, c.env, exe)
	res := &e2eResult{outputs: map[string][]uint64{}, intact: map[string]bool{}, untouch: map[string]bool{}, messages: map[string]string{}}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(line, f[0]))
		switch f[0] {
		case "rc":
			res.rc, _ = strconv.Atoi(f[1])
		case "msg", "e0", "e999", "e1":
			res.messages[f[0]] = rest
		case "out":
			var vs []uint64
			for _, h := range f[2:] {
				v, err := strconv.ParseUint(h, 16, 64)
				if err != nil {
					t.Fatalf("bad driver output %q", line)
				}
				vs = append(vs, v)
			}
			res.outputs[f[1]] = vs
		case "intact":
			res.intact[f[1]] = f[2] == "1"
		case "untouched":
			res.untouch[f[1]] = f[2] == "1"
		case "shape":
			res.shapeRC, _ = strconv.Atoi(f[1])
			for _, s := range f[2:] {
				v, _ := strconv.ParseInt(s, 10, 64)
				res.shape = append(res.shape, v)
			}
		}
	}
	res.msg = res.messages["msg"]
	return res
}

func toolAny(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skipf("none of %v found", names)
	return ""
}

// checkOutputs compares every output element with the Go reference.
func checkOutputs(t *testing.T, c *e2eCase, res *e2eResult) {
	t.Helper()
	if res.rc != 0 {
		t.Fatalf("%s returned %d: %s", c.fn, res.rc, res.msg)
	}
	if res.messages["e0"] != "success" || res.messages["e999"] != "unknown error code" {
		t.Errorf("f_error(0) = %q, f_error(999) = %q", res.messages["e0"], res.messages["e999"])
	}
	for _, a := range c.args {
		buf := a.buf
		if buf == nil {
			continue
		}
		if !res.intact[buf.name] {
			t.Errorf("%s: memory outside the logical elements (or an input) was modified", buf.name)
		}
		if !buf.output {
			continue
		}
		got := res.outputs[buf.name]
		if len(got) != buf.count() {
			t.Fatalf("%s: got %d elements, want %d", buf.name, len(got), buf.count())
		}
		bad := 0
		for k, g := range got {
			var ok bool
			var gs, ws string
			switch buf.ctype {
			case "float":
				gv, wv := math.Float32frombits(uint32(g)), float32(buf.wantF[k])
				ok = math.Float32bits(gv) == math.Float32bits(wv) || c.tol > 0 && relClose(float64(gv), float64(wv), c.tol) || c.anyNaN && gv != gv && wv != wv
				gs, ws = fmt.Sprint(gv), fmt.Sprint(wv)
			case "double":
				gv, wv := math.Float64frombits(g), buf.wantF[k]
				ok = g == math.Float64bits(wv) || c.tol > 0 && relClose(gv, wv, c.tol) || c.anyNaN && math.IsNaN(gv) && math.IsNaN(wv)
				gs, ws = fmt.Sprint(gv), fmt.Sprint(wv)
			case "int32_t":
				ok = int32(uint32(g)) == int32(buf.wantI[k])
				gs, ws = fmt.Sprint(int32(uint32(g))), fmt.Sprint(buf.wantI[k])
			default:
				ok = int64(g) == buf.wantI[k]
				gs, ws = fmt.Sprint(int64(g)), fmt.Sprint(buf.wantI[k])
			}
			if !ok {
				if bad < 10 {
					t.Errorf("%s[%v]: got %s, want %s", buf.name, unflatten(k, buf.shape), gs, ws)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d elements differ", buf.name, bad, len(got))
		}
	}
}

func relClose(a, b, tol float64) bool {
	if a == b || math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func unflatten(k int, shape []int64) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = k % int(shape[d])
		k /= int(shape[d])
	}
	return idx
}

// newBufs creates the buffers of a case, filling the inputs.
func newBuf(rng *rand.Rand, name, ctype string, output bool, shape ...int64) *e2eBuf {
	b := &e2eBuf{name: name, ctype: ctype, shape: shape, output: output}
	if !output {
		b.fill(rng)
	}
	if output {
		if b.isFloat() {
			b.wantF = make([]float64, b.count())
		} else {
			b.wantI = make([]int64, b.count())
		}
	}
	return b
}
