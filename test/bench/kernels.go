package main

import (
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"sync"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// A kernel is a .tir program of kernels/, its hand-written C reference of
// ref/ and the sizes it runs at.
type kernel struct {
	name  string   // name in the table
	file  string   // file under kernels/
	ref   string   // file under ref/
	cdefs []string // extra -D flags for the reference
	// The sizes timed: l3, a working set of 8 to 13 MB (above the L2
	// caches, well inside L3); dram, 75 to 111 MB (2.3 to 3.5 times L3),
	// and 210 MB for the tridiagonal solvers: 256×256×80 columns, the
	// size at which whole-domain scan temporaries once made every call
	// page-fault (glibc's mmap threshold).
	// check: small, odd sizes (remainder loops, halos), checked before any
	// timing and used alone by the smoke mode.
	l3, dram, check map[string]int64
	// fill draws one element of the argument named arg; nil means uniform
	// in [-1, 1). gen, when set, builds every argument.
	fill func(rng *rand.Rand, arg string) float64
	gen  func(rng *rand.Rand, fn *ir.Operation, syms map[string]int64) ([]*interp.Tensor, error)
	// opt is the -O level of ours (2 when 0): the contractions take -O3,
	// where affine-contraction-tile blocks them for registers and caches.
	opt int
	// blas is the file under ref/ that computes the kernel through
	// OpenBLAS; a kernel with one is also compiled for this machine's
	// vector unit ("ours native": --mcpu=native, and "ours native fma":
	// with --fp-contract=fast too) and gets a table of its own (GFLOP/s).
	blas string
	// flops counts the floating-point operations of one call.
	flops func(syms map[string]int64) float64
	// want, when set, computes the results without the interpreter, for
	// the timed sizes where the interpreter cannot run (a matrix product
	// of 1024^3 materializes a 1024^3 product: 8 GB). At the check size
	// the interpreter runs too and both must agree bit for bit.
	want func(args []*interp.Tensor, syms map[string]int64) ([][]float64, error)
	// minReps is the least number of timed calls (5 when 0).
	minReps int64
}

var kernels = []kernel{
	{
		name: "lap3d_f32", file: "lap3d_f32.tir", ref: "lap3d.c", cdefs: []string{"-DT=float"},
		l3:    map[string]int64{"N": 128, "M": 128, "L": 64},
		dram:  map[string]int64{"N": 384, "M": 384, "L": 64},
		check: map[string]int64{"N": 13, "M": 11, "L": 17},
	},
	{
		name: "lap3d_f64", file: "lap3d_f64.tir", ref: "lap3d.c", cdefs: []string{"-DT=double"},
		l3:    map[string]int64{"N": 96, "M": 96, "L": 64},
		dram:  map[string]int64{"N": 272, "M": 272, "L": 64},
		check: map[string]int64{"N": 13, "M": 11, "L": 17},
	},
	{
		name: "hdiff", file: "hdiff.tir", ref: "hdiff.c",
		l3:    map[string]int64{"N": 640, "M": 640},
		dram:  map[string]int64{"N": 2048, "M": 2048},
		check: map[string]int64{"N": 37, "M": 29},
		fill: func(rng *rand.Rand, arg string) float64 {
			if arg == "coeff" {
				return rng.Float64() * 0.25
			}
			return rng.Float64()*2 - 1
		},
	},
	{
		name: "tridiag", file: "tridiag.tir", ref: "tridiag.c",
		l3:    map[string]int64{"N": 96, "M": 96, "L": 32},
		dram:  map[string]int64{"N": 256, "M": 256, "L": 80},
		check: map[string]int64{"N": 5, "M": 7, "L": 19},
		fill:  tridiagFill,
	},
	{
		// The same solver with K outermost in storage (J contiguous); the
		// C sweeps K with the J loop inside, vectorized by gcc.
		name: "tridiag_kout", file: "tridiag_kout.tir", ref: "tridiag_kout.c",
		l3:    map[string]int64{"N": 96, "M": 96, "L": 32},
		dram:  map[string]int64{"N": 256, "M": 256, "L": 80},
		check: map[string]int64{"N": 5, "M": 7, "L": 19},
		fill:  tridiagFill,
	},
	{
		name: "nabla", file: "nabla.tir", ref: "nabla.c",
		l3:    meshSyms(256, 256),
		dram:  meshSyms(768, 768),
		check: meshSyms(9, 7),
		gen:   meshArgs,
	},
	{
		name: "axpy", file: "axpy.tir", ref: "axpy.c",
		l3:    map[string]int64{"N": 1 << 19},
		dram:  map[string]int64{"N": 1 << 22},
		check: map[string]int64{"N": 1003},
	},
	{
		// The shared matmul.tc, against OpenBLAS's sgemm. Not a bandwidth
		// kernel: the L3 set is 1024^3 (12 MB of matrices), the DRAM set
		// 2048^3 (48 MB); what matters is GFLOP/s (the BLAS table).
		name: "matmul", file: "matmul.tc", ref: "matmul.c", blas: "matmul_blas.c", opt: 3,
		l3:      map[string]int64{"M": 1024, "K": 1024, "N": 1024},
		dram:    map[string]int64{"M": 2048, "K": 2048, "N": 2048},
		check:   map[string]int64{"M": 37, "K": 270, "N": 85},
		flops:   func(s map[string]int64) float64 { return 2 * float64(s["M"]) * float64(s["K"]) * float64(s["N"]) },
		want:    matmulWant,
		minReps: 3,
	},
}

// tridiagFill draws diagonally dominant systems: b in [3, 4), the rest in
// [-1, 1).
func tridiagFill(rng *rand.Rand, arg string) float64 {
	if arg == "b" {
		return 3 + rng.Float64()
	}
	return rng.Float64()*2 - 1
}

// matmulWant is C(m, n) = sum over k in order of A(m, k) * B(k, n) in
// float32, each product and sum rounded (the conversions keep Go from
// fusing them): the interpreter's arithmetic, rows split among the CPUs.
func matmulWant(args []*interp.Tensor, syms map[string]int64) ([][]float64, error) {
	if len(args) != 2 || len(args[0].Dims) != 2 || len(args[1].Dims) != 2 {
		return nil, fmt.Errorf("matmulWant: expected two matrices")
	}
	a, b := args[0], args[1]
	M, K, N := a.Dims[0].Extent(), a.Dims[1].Extent(), b.Dims[1].Extent()
	af := make([]float32, len(a.F64))
	for i, x := range a.F64 {
		af[i] = float32(x)
	}
	bf := make([]float32, len(b.F64))
	for i, x := range b.F64 {
		bf[i] = float32(x)
	}
	out := make([]float64, M*N)
	var wg sync.WaitGroup
	next := make(chan int64, M)
	for m := int64(0); m < M; m++ {
		next <- m
	}
	close(next)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := make([]float32, N)
			for m := range next {
				for n := range row {
					row[n] = 0
				}
				for k := int64(0); k < K; k++ {
					x := af[m*K+k]
					brow := bf[k*N : (k+1)*N]
					for n, y := range brow {
						p := float32(x * y)
						row[n] = float32(row[n] + p)
					}
				}
				for n, v := range row {
					out[m*N+int64(n)] = float64(v)
				}
			}
		}()
	}
	wg.Wait()
	return [][]float64{out}, nil
}

// sizeText prints the size symbols of a kernel (the mesh shape for nabla).
func sizeText(syms map[string]int64, order []string) string {
	if nx, ok := syms["nx"]; ok {
		return fmt.Sprintf("%dx%d mesh, NV=%d NE=%d", nx, syms["ny"], syms["NV"], syms["NE"])
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s=%d", s, syms[s]))
	}
	return strings.Join(parts, " ")
}

// randomArgs fills every argument of fn deterministically.
func randomArgs(k *kernel, fn *ir.Operation, syms map[string]int64, seed int64) ([]*interp.Tensor, error) {
	rng := rand.New(rand.NewSource(seed))
	if k.gen != nil {
		return k.gen(rng, fn, syms)
	}
	ft, _ := tir.FuncType(fn)
	names := interp.ArgNames(fn)
	var args []*interp.Tensor
	for i, in := range ft.Inputs {
		a, err := newArg(in, syms)
		if err != nil {
			return nil, err
		}
		for j := range a.F64 {
			v := rng.Float64()*2 - 1
			if k.fill != nil {
				v = k.fill(rng, names[i])
			}
			a.F64[j] = interp.RoundTo(a.Elem, v)
		}
		for j := range a.I64 {
			a.I64[j] = int64(rng.Intn(23) - 3)
		}
		args = append(args, a)
	}
	return args, nil
}

func newArg(t ir.Type, syms map[string]int64) (*interp.Tensor, error) {
	tt, ok := tir.AsTensor(t)
	if !ok {
		return nil, fmt.Errorf("argument of type %s is not a tensor", t)
	}
	dims, err := interp.EvalDims(tt, syms)
	if err != nil {
		return nil, err
	}
	return interp.NewTensor(tt.Elem, dims)
}

// meshSyms are the symbols of an nx x ny vertex grid triangulated by one
// diagonal per cell: NE counts the horizontal, vertical and diagonal edges.
func meshSyms(nx, ny int64) map[string]int64 {
	return map[string]int64{
		"nx": nx, "ny": ny,
		"NV": nx * ny,
		"NE": (nx-1)*ny + nx*(ny-1) + (nx-1)*(ny-1),
	}
}

// meshArgs builds a valid unstructured mesh for nabla: vertices numbered
// row by row, edges in the order they are met (so neighbours are mostly
// close in memory, as in a well-ordered production mesh). Interior
// vertices have 6 edges, boundary vertices 2 to 4; V2E rows are padded to 7
// with -1. sign is +1 where the vertex is the edge's first end, -1 where
// it is the second, 0 in the padding.
func meshArgs(rng *rand.Rand, fn *ir.Operation, syms map[string]int64) ([]*interp.Tensor, error) {
	nx, ny := syms["nx"], syms["ny"]
	nv, ne := syms["NV"], syms["NE"]
	var e2v [][2]int64
	v2e := make([][]int64, nv)
	add := func(a, b int64) {
		e := int64(len(e2v))
		e2v = append(e2v, [2]int64{a, b})
		v2e[a] = append(v2e[a], e)
		v2e[b] = append(v2e[b], e)
	}
	for y := int64(0); y < ny; y++ {
		for x := int64(0); x < nx; x++ {
			v := y*nx + x
			if x+1 < nx {
				add(v, v+1)
			}
			if y+1 < ny {
				add(v, v+nx)
			}
			if x+1 < nx && y+1 < ny {
				add(v, v+nx+1)
			}
		}
	}
	if int64(len(e2v)) != ne {
		return nil, fmt.Errorf("mesh has %d edges, expected NE=%d", len(e2v), ne)
	}
	ft, _ := tir.FuncType(fn)
	names := interp.ArgNames(fn)
	var args []*interp.Tensor
	for i, in := range ft.Inputs {
		a, err := newArg(in, syms)
		if err != nil {
			return nil, err
		}
		switch names[i] {
		case "e2v":
			for e, ab := range e2v {
				a.I64[2*e], a.I64[2*e+1] = ab[0], ab[1]
			}
		case "v2e":
			for v, es := range v2e {
				sort.Slice(es, func(p, q int) bool { return es[p] < es[q] })
				for k := 0; k < 7; k++ {
					a.I64[7*v+k] = -1
					if k < len(es) {
						a.I64[7*v+k] = es[k]
					}
				}
			}
		case "sign":
			for v, es := range v2e {
				for k, e := range es {
					a.F64[7*v+k] = -1
					if e2v[e][0] == int64(v) {
						a.F64[7*v+k] = 1
					}
				}
			}
		case "vol":
			for j := range a.F64 {
				a.F64[j] = 0.5 + rng.Float64()
			}
		default:
			for j := range a.F64 {
				a.F64[j] = rng.Float64()*2 - 1
			}
		}
		args = append(args, a)
	}
	return args, nil
}
