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
}

// prepare generates the inputs of b at the given sizes, runs the
// interpreter on them and writes them for the driver under b.dir/sub.
func prepare(b *build, syms map[string]int64, sub string, seed int64) (*dataset, error) {
	ds := &dataset{dir: filepath.Join(b.dir, sub), syms: syms}
	if err := os.MkdirAll(ds.dir, 0o755); err != nil {
		return nil, err
	}
	args, err := randomArgs(b.k, b.fn, syms, seed)
	if err != nil {
		return nil, err
	}
	want, err := interp.Run(b.fn, args, syms)
	if err != nil {
		return nil, fmt.Errorf("interpreter: %v", err)
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
	return ds, os.WriteFile(filepath.Join(ds.dir, "config"), []byte(cfg.String()), 0o644)
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
	outs     [][]float64
}

// run executes variant v of b on a dataset: minNs of timed calls (0: a
// single call), at least minReps and at most maxReps of them.
func (b *build) run(v int, ds *dataset, minNs, minReps, maxReps int64) (*timing, error) {
	var cmd *exec.Cmd
	if v == vMLIRJIT {
		args := append(append([]string{}, mlirJITFlags...), "-shared-libs="+b.jitSO, b.jitIR)
		cmd = exec.Command(b.tools.mlirRunner, args...)
	} else {
		cmd = exec.Command(b.exe, strconv.Itoa(v))
	}
	cmd.Dir = ds.dir
	cmd.Env = append(os.Environ(),
		"BENCH_DIR="+ds.dir,
		fmt.Sprintf("BENCH_MIN_NS=%d", minNs),
		fmt.Sprintf("BENCH_MIN_REPS=%d", minReps),
		fmt.Sprintf("BENCH_MAX_REPS=%d", maxReps),
		fmt.Sprintf("OMP_NUM_THREADS=%d", b.threads))
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
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if _, err := fmt.Sscan(lines[len(lines)-1], &t.ns, &t.reps, &t.min); err != nil {
		return nil, fmt.Errorf("unexpected driver output %q", stdout.String())
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

// verdict is the comparison of a variant's results with the interpreter's.
type verdict struct {
	compared, mismatch int
	maxRel             float64
	where              string
}

func (v verdict) String() string {
	if v.mismatch == 0 {
		return fmt.Sprintf("bitwise equal on %d elements", v.compared)
	}
	return fmt.Sprintf("%d of %d elements differ, largest relative difference %.3g", v.mismatch, v.compared, v.maxRel)
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
			g := got[r][i]
			if g == w || (math.IsNaN(g) && math.IsNaN(w)) {
				continue
			}
			v.mismatch++
			rel := math.Abs(g-w) / math.Max(math.Abs(w), 1e-300)
			if rel > v.maxRel || math.IsNaN(rel) {
				v.maxRel = rel
				v.where = fmt.Sprintf("result #%d element %d: got %v, want %v", r, i, g, w)
			}
		}
	}
	return v, nil
}
