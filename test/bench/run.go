package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// dataset is one set of inputs at one size, written where the driver
// reads it, with the interpreter's results.
type dataset struct {
	dir   string
	syms  map[string]int64
	want  [][]float64 // the interpreter's results, flattened, row-major
	mask  [][]bool    // masked points of the results (nil: none)
	bytes int64       // compulsory traffic: every input read once, every output written once
	// approx: want is NumPy's (kernel.numpyRef), which rounds otherwise
	// than the interpreter: every variant gets the normwise tolerance.
	approx bool
}

// prepare generates the inputs of b at the given sizes, runs the
// interpreter on them and writes them for the driver under b.dir/sub.
// With check false, a kernel with its own reference (kernel.want) uses it
// instead of the interpreter; with check true both run and must agree.
// With check false, a kernel with kernel.numpyRef takes NumPy's results,
// computed once here.
func prepare(b *build, syms map[string]int64, sub string, seed int64, check bool) (*dataset, error) {
	ds := &dataset{dir: filepath.Join(b.dir, sub), syms: syms}
	if err := os.MkdirAll(ds.dir, 0o755); err != nil {
		return nil, err
	}
	args, err := randomArgs(b.k, b.fn, syms, seed)
	if err != nil {
		return nil, err
	}
	var want []*interp.Tensor
	byNumPy := !check && b.k.numpyRef
	if byNumPy {
		// The results' shapes, for the driver; their values come from
		// NumPy once the inputs are written.
		ft, _ := tir.FuncType(b.fn)
		for _, t := range ft.Results {
			out, err := newArg(t, syms)
			if err != nil {
				return nil, err
			}
			want = append(want, out)
		}
	} else if check || b.k.want == nil {
		if want, err = interp.Run(b.fn, args, syms); err != nil {
			return nil, fmt.Errorf("interpreter: %v", err)
		}
	}
	if b.k.want != nil {
		ref, err := b.k.want(args, syms)
		if err != nil {
			return nil, err
		}
		if want != nil {
			// The kernel's reference must be the interpreter's values.
			var got [][]float64
			var mask [][]bool
			for _, t := range want {
				got, mask = append(got, t.F64), append(mask, t.Mask)
			}
			if v, err := compare(ref, got, mask); err != nil || v.mismatch > 0 {
				return nil, fmt.Errorf("the kernel's own reference differs from the interpreter: %v %v (%s)", err, v, v.where)
			}
		} else {
			ft, _ := tir.FuncType(b.fn)
			for r, t := range ft.Results {
				out, err := newArg(t, syms)
				if err != nil {
					return nil, err
				}
				if r >= len(ref) || len(ref[r]) != out.Len() {
					return nil, fmt.Errorf("the kernel's own reference has the wrong shape")
				}
				out.F64 = ref[r]
				want = append(want, out)
			}
		}
	}
	var cfg strings.Builder
	for _, s := range b.syms {
		v, ok := syms[s]
		if !ok {
			return nil, fmt.Errorf("size symbol %s is unbound", s)
		}
		fmt.Fprintf(&cfg, "%d ", v)
	}
	cfg.WriteString("\n")
	tensors := append(append([]*interp.Tensor(nil), args...), want...)
	if len(tensors) != len(b.params) {
		return nil, fmt.Errorf("%d tensors for %d parameters", len(tensors), len(b.params))
	}
	for i, t := range tensors {
		p := b.params[i]
		if len(t.Dims) != p.rank {
			return nil, fmt.Errorf("%s: rank %d, expected %d", p.name, len(t.Dims), p.rank)
		}
		for _, d := range t.Dims {
			fmt.Fprintf(&cfg, "%d ", d.Extent())
		}
		cfg.WriteString("\n")
		ds.bytes += int64(t.Len()) * int64(p.size)
		if p.out {
			ds.want = append(ds.want, t.F64)
			ds.mask = append(ds.mask, t.Mask)
			continue
		}
		if err := os.WriteFile(filepath.Join(ds.dir, fmt.Sprintf("in%d.bin", i)), encode(t, p), 0o644); err != nil {
			return nil, err
		}
	}
	for r, w := range ds.want {
		if w == nil {
			return nil, fmt.Errorf("result #%d is not a float tensor", r)
		}
	}
	if err := os.WriteFile(filepath.Join(ds.dir, "config"), []byte(cfg.String()), 0o644); err != nil {
		return nil, err
	}
	if byNumPy {
		t, err := b.run(vNumPy, ds, 0, 1, 1)
		if err != nil {
			return nil, fmt.Errorf("NumPy, the reference at this size: %v", err)
		}
		ds.want, ds.mask, ds.approx = t.outs, make([][]bool, len(t.outs)), true
	}
	return ds, nil
}

// encode lays out a tensor's elements as the C driver reads them.
func encode(t *interp.Tensor, p param) []byte {
	n := t.Len()
	buf := make([]byte, n*p.size)
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		switch p.ctype {
		case "float":
			le.PutUint32(buf[4*i:], math.Float32bits(float32(t.F64[i])))
		case "double":
			le.PutUint64(buf[8*i:], math.Float64bits(t.F64[i]))
		case "int32_t":
			le.PutUint32(buf[4*i:], uint32(int32(t.I64[i])))
		case "int64_t":
			le.PutUint64(buf[8*i:], uint64(t.I64[i]))
		}
	}
	return buf
}

func decode(data []byte, p param) []float64 {
	le := binary.LittleEndian
	out := make([]float64, len(data)/p.size)
	for i := range out {
		switch p.ctype {
		case "float":
			out[i] = float64(math.Float32frombits(le.Uint32(data[4*i:])))
		case "double":
			out[i] = math.Float64frombits(le.Uint64(data[8*i:]))
		case "int32_t":
			out[i] = float64(int32(le.Uint32(data[4*i:])))
		case "int64_t":
			out[i] = float64(int64(le.Uint64(data[8*i:])))
		}
	}
	return out
}

// timing is what one variant measured.
type timing struct {
	ns, reps int64
	min      int64 // the fastest call
	rss      int64 // the driver's peak resident memory in bytes (0: unknown; rsswrap)
	outs     [][]float64
	core     string // the BLAS driver's OpenBLAS kernel
}

// maxCallNs is the driver's BENCH_MAX_NS: a variant whose calls take
// longer (the naive MLIR lowerings of a large matrix product) is timed by
// one call.
const maxCallNs int64 = 20e9

// run executes variant v of b on a dataset: minNs of timed calls (0: a
// single call), at least minReps and at most maxReps of them.
func (b *build) run(v int, ds *dataset, minNs, minReps, maxReps int64) (*timing, error) {
	var cmd *exec.Cmd
	if v == vNumPy {
		cmd = exec.Command(b.tools.python, b.numpyDriver, b.numpySpec, strconv.Itoa(v))
	} else if v == vMLIRJIT {
		args := append(append([]string{}, mlirJITFlags...), "-shared-libs="+b.jitSO, b.jitIR)
		cmd = exec.Command(b.tools.mlirRunner, args...)
	} else if blasVariant(v) {
		cmd = exec.Command(b.blasExe, strconv.Itoa(v))
	} else {
		cmd = exec.Command(b.exe, strconv.Itoa(v))
	}
	if b.tools.rssWrap != "" {
		cmd = exec.Command(b.tools.rssWrap, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	}
	cmd.Dir = ds.dir
	cmd.Env = append(os.Environ(),
		"BENCH_DIR="+ds.dir,
		fmt.Sprintf("BENCH_MIN_NS=%d", minNs),
		fmt.Sprintf("BENCH_MIN_REPS=%d", minReps),
		fmt.Sprintf("BENCH_MAX_REPS=%d", maxReps),
		fmt.Sprintf("BENCH_MAX_NS=%d", maxCallNs),
		fmt.Sprintf("OMP_NUM_THREADS=%d", b.threads))
	if blasVariant(v) || v == vNumPy {
		cmd.Env = append(cmd.Env, "OPENBLAS_NUM_THREADS=1")
		if v == vBLASForced || (v == vNumPy && blasCoreType() != "") {
			cmd.Env = append(cmd.Env, "OPENBLAS_CORETYPE="+blasCoreType())
		}
	}
	if v == vNumPy {
		// One thread for whatever BLAS NumPy uses, and the ones its
		// OpenMP builds read.
		cmd.Env = append(cmd.Env, "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return nil, fmt.Errorf("%v: %s", err, msg)
	}
	t := &timing{}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if kb, ok := strings.CutPrefix(line, "rss "); ok && b.tools.rssWrap != "" {
			if n, err := strconv.ParseInt(strings.TrimSpace(kb), 10, 64); err == nil {
				t.rss = n * 1024
			}
			continue
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("no driver output")
	}
	if _, err := fmt.Sscan(lines[len(lines)-1], &t.ns, &t.reps, &t.min); err != nil {
		return nil, fmt.Errorf("unexpected driver output %q", stdout.String())
	}
	for _, line := range lines {
		if name, ok := strings.CutPrefix(line, "core "); ok {
			t.core = strings.TrimSpace(name)
		}
	}
	k := 0
	for _, p := range b.params {
		if !p.out {
			continue
		}
		data, err := os.ReadFile(filepath.Join(ds.dir, fmt.Sprintf("out%d_%d.bin", v, k)))
		if err != nil {
			return nil, err
		}
		t.outs = append(t.outs, decode(data, p))
		k++
	}
	return t, nil
}

// checkCore verifies that the forced OpenBLAS kernel is the one that ran
// (OpenBLAS ignores an OPENBLAS_CORETYPE it does not know, and falls back
// silently); NumPy is forced too, and checked when its BLAS is OpenBLAS.
func checkCore(v int, core string) error {
	want := blasCoreType()
	forced := v == vBLASForced || (v == vNumPy && want != "" && core != notOpenBLAS)
	if forced && !strings.EqualFold(core, want) {
		return fmt.Errorf("OPENBLAS_CORETYPE=%s was not honoured: OpenBLAS ran its %s kernel", want, core)
	}
	return nil
}

// notOpenBLAS is the core numpy_driver.py reports when NumPy's BLAS is
// not OpenBLAS.
const notOpenBLAS = "not OpenBLAS"

// verdict is the comparison of a variant's results with the interpreter's.
type verdict struct {
	compared, mismatch int
	maxRel             float64
	where              string
	// maxAbs is the largest difference, maxWant the largest magnitude of
	// the reference: their ratio is the normwise difference.
	maxAbs, maxWant float64
}

func (v verdict) String() string {
	if v.mismatch == 0 {
		return fmt.Sprintf("bitwise equal on %d elements", v.compared)
	}
	return fmt.Sprintf("%d of %d elements differ, largest relative difference %.3g, largest difference %.3g of the largest value", v.mismatch, v.compared, v.maxRel, v.normRel())
}

// normRel is the largest difference relative to the largest reference
// value.
func (v verdict) normRel() float64 {
	if v.maxAbs == 0 {
		return 0
	}
	return v.maxAbs / math.Max(v.maxWant, 1e-300)
}

// inexactTolerance bounds the normwise difference of the inexact variants
// (fused multiply-adds, BLAS's order of the sums) from the interpreter: a
// float32 dot product of K terms has a relative error of order sqrt(K)
// 2^-24 (K 2^-24 at worst).
const inexactTolerance = 1e-4

// acceptable reports whether variant v's results are close enough; approx
// says the reference itself rounds otherwise than the interpreter (NumPy).
func acceptable(v int, c verdict, tol float64, approx bool) bool {
	if inexact(v) || approx {
		return c.normRel() <= inexactTolerance
	}
	return c.maxRel <= tol
}

// compare checks every unmasked element; the relative difference is
// |got - want| / max(|want|, 1e-300), NaN equal to NaN.
func compare(got, want [][]float64, mask [][]bool) (verdict, error) {
	var v verdict
	if len(got) != len(want) {
		return v, fmt.Errorf("%d results, expected %d", len(got), len(want))
	}
	for r := range want {
		if len(got[r]) != len(want[r]) {
			return v, fmt.Errorf("result #%d has %d elements, expected %d", r, len(got[r]), len(want[r]))
		}
		for i, w := range want[r] {
			if mask[r] != nil && mask[r][i] {
				continue
			}
			v.compared++
			v.maxWant = math.Max(v.maxWant, math.Abs(w))
			g := got[r][i]
			if g == w || (math.IsNaN(g) && math.IsNaN(w)) {
				continue
			}
			v.mismatch++
			if d := math.Abs(g - w); d > v.maxAbs || math.IsNaN(d) {
				v.maxAbs = d
			}
			rel := math.Abs(g-w) / math.Max(math.Abs(w), 1e-300)
			if rel > v.maxRel || math.IsNaN(rel) {
				v.maxRel = rel
				v.where = fmt.Sprintf("result #%d element %d: got %v, want %v", r, i, g, w)
			}
		}
	}
	return v, nil
}
