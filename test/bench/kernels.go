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

	// The kernels below the classic ones (kernel.classic) are timed as
	// ours only, with no C reference, no MLIR and no threads.
	//
	// ml puts the kernel in the ML table: ours against NumPy (numpy) and
	// OpenBLAS called from C (blas), both on one thread.
	ml bool
	// family groups the equivalent formulations of one computation (the
	// family tables give each one's time and slowest / fastest); form
	// says how this one is written.
	family, form string
	// numpy is the function of ref/ml.py that computes the kernel with
	// NumPy (the "numpy" variant; timed in the ML table only).
	numpy string
	// numpyRef makes NumPy's results the reference at the timed sizes,
	// where the interpreter would materialize a contraction's whole
	// product (linear at 1024^3: 8 GB). At the check size the interpreter
	// checks every variant, NumPy included.
	numpyRef bool
	// fma adds ours native fma to a kernel without a BLAS reference.
	fma bool
	// goal is the bound issue 21 set for the kernel (ML table).
	goal *goal

	// of names the kernel whose adjoint this one is (the derivatives
	// table): the function is @f_vjp that tir-derivatives{mode=vjp} adds
	// to the file of that kernel, at its sizes and with its inputs; ref,
	// when set, is a hand-written C adjoint (gcc native and generic).
	of string
	// refNorm, when set, is the normwise tolerance of the C reference
	// (a hand-written adjoint that computes in another order than the
	// generated one): its difference from the interpreter relative to the
	// largest result.
	refNorm float64
	// untimed, when set, says why the kernel is checked at the check size
	// only and not timed.
	untimed string
}

// A goal bounds the time of one of our variants by a reference's.
type goal struct {
	v    int     // vOursNative or vOursFMA
	blas bool    // against OpenBLAS from C (else NumPy)
	max  float64 // ours / reference
}

// classic reports whether k is one of the bandwidth and matmul kernels of
// the main table (hand-written C, MLIR, threads).
func (k *kernel) classic() bool { return !k.ml && k.family == "" && k.of == "" }

// has reports whether variant v exists for k.
func (k *kernel) has(v int) bool {
	if k.of != "" {
		// An adjoint: ours against the hand-written C adjoint, if any.
		switch v {
		case vOurs:
			return true
		case vGCCNative, vGCCGeneric:
			return k.ref != ""
		}
		return false
	}
	if k.classic() {
		switch v {
		case vNumPy:
			return false
		case vOursFMA, vBLAS, vBLASForced:
			return k.blas != ""
		}
		return true
	}
	switch v {
	case vOurs, vOursNative:
		return true
	case vOursFMA:
		return k.fma || k.blas != ""
	case vNumPy:
		return k.numpy != ""
	case vBLAS:
		// The ML kernels run OpenBLAS with the kernel forced where this
		// CPU has one to force, else as installed.
		return k.blas != "" && blasCoreType() == ""
	case vBLASForced:
		return k.blas != "" && blasCoreType() != ""
	}
	return false
}

// timed reports whether variant v of k is timed: every variant it has,
// except NumPy in a family kernel outside the ML table (the family tables
// compare our formulations; NumPy is their reference there).
func (k *kernel) timed(v int) bool {
	return k.has(v) && (v != vNumPy || k.ml)
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

// The sizes of the ML kernels and of the formulation families: issue 21's
// where it gave them. Every family's formulations share one size map.
var (
	softmaxCheck   = map[string]int64{"N": 7, "D": 13}
	softmaxSize    = map[string]int64{"N": 2048, "D": 1024}
	layernormCheck = map[string]int64{"B": 2, "T": 3, "D": 19}
	layernormSize  = map[string]int64{"B": 16, "T": 128, "D": 1024}
	mkn            = func(m, k, n int64) map[string]int64 { return map[string]int64{"M": m, "K": k, "N": n} }
	convCheck      = map[string]int64{"N": 2, "C": 3, "H": 9, "W": 7, "M": 5, "KH": 3, "KW": 3}
	convSize       = map[string]int64{"N": 4, "C": 64, "H": 58, "W": 58, "M": 64, "KH": 3, "KW": 3}
	attnCheck      = map[string]int64{"B": 2, "L": 5, "S": 7, "D": 6}
	attnSize       = map[string]int64{"B": 8, "L": 512, "S": 512, "D": 64}
	// Columns of 80 levels: the tridiagonal solvers and vflux.
	colsCheck = map[string]int64{"N": 5, "M": 7, "L": 19}
	colsSmall = map[string]int64{"N": 64, "M": 64, "L": 80}
	colsLarge = map[string]int64{"N": 256, "M": 256, "L": 80}
)

func mknFlops(s map[string]int64) float64 {
	return 2 * float64(s["M"]) * float64(s["K"]) * float64(s["N"])
}

func convFlops(s map[string]int64) float64 {
	oh, ow := s["H"]-s["KH"]+1, s["W"]-s["KW"]+1
	return 2 * float64(s["N"]*s["M"]*oh*ow) * float64(s["C"]*s["KH"]*s["KW"])
}

// The goals of issue 21.
var (
	fasterThanNumPy = &goal{v: vOursNative, max: 1.0}
	nearBLAS        = &goal{v: vOursFMA, blas: true, max: 1.2}
	withinBLAS      = &goal{v: vOursFMA, blas: true, max: 1.5}
)

// familyGoal bounds slowest / fastest within a family.
const familyGoal = 1.15

// mlKernels are the ML table's kernels and the formulation families: each
// family's first member is the way the user wrote it.
var mlKernels = []kernel{
	{name: "softmax", file: "softmax.tc", ml: true, family: "softmax", form: "TC, one def (issue 21)",
		numpy: "softmax", l3: softmaxSize, check: softmaxCheck, goal: fasterThanNumPy},
	{name: "softmax_3defs", file: "softmax_3defs.tc", family: "softmax", form: "TC, split in three defs called in turn",
		numpy: "softmax", l3: softmaxSize, check: softmaxCheck},
	{name: "softmax_tir", file: "softmax.tir", family: "softmax", form: ".tir, reduce / sub / exp / reduce / div",
		numpy: "softmax", l3: softmaxSize, check: softmaxCheck},
	{name: "softmax_call", file: "softmax_call.tir", family: "softmax", form: ".tir, row max and row sum by tir.call",
		numpy: "softmax", l3: softmaxSize, check: softmaxCheck},

	{name: "layernorm", file: "layernorm.tc", ml: true, family: "layernorm", form: "TC, x - mu written out (issue 21)",
		numpy: "layernorm", l3: layernormSize, check: layernormCheck, goal: fasterThanNumPy},
	{name: "layernorm_where", file: "layernorm_where.tc", family: "layernorm", form: "TC, x - mu and 1/sigma as where bindings",
		numpy: "layernorm", l3: layernormSize, check: layernormCheck},
	{name: "layernorm_xc", file: "layernorm_xc.tc", family: "layernorm", form: "TC, x - mu and 1/sigma as statements",
		numpy: "layernorm", l3: layernormSize, check: layernormCheck},

	{name: "linear", file: "linear.tc", ml: true, family: "linear", form: "TC, W stored N x K, bias + ReLU in one statement (issue 21)",
		numpy: "linear", numpyRef: true, blas: "linear_blas.c", opt: 3, goal: nearBLAS,
		l3: mkn(512, 512, 512), dram: mkn(1024, 1024, 1024), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},
	{name: "linear_kn", file: "linear_kn.tc", family: "linear", form: "TC, W stored K x N",
		numpy: "linear_kn", numpyRef: true, fma: true, opt: 3,
		l3: mkn(512, 512, 512), dram: mkn(1024, 1024, 1024), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},
	{name: "linear_fcrelu", file: "linear_fcrelu.tc", family: "linear", form: "TC, three statements on O, fmax (shared fcrelu.tc)",
		numpy: "linear", numpyRef: true, fma: true, opt: 3,
		l3: mkn(512, 512, 512), dram: mkn(1024, 1024, 1024), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},
	{name: "linear_binit", file: "linear_binit.tc", family: "linear", form: "TC, the bias as the sum's initial value",
		numpy: "linear", numpyRef: true, fma: true, opt: 3,
		l3: mkn(512, 512, 512), dram: mkn(1024, 1024, 1024), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},

	{name: "matmul_tc", file: "matmul.tc", family: "matmul", form: "TC, A(m, k) * B(k, n) (shared matmul.tc)",
		numpy: "matmul", numpyRef: true, fma: true, opt: 3,
		l3: mkn(512, 512, 512), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},
	{name: "matmul_ba", file: "matmul_ba.tc", family: "matmul", form: "TC, B(k, n) * A(m, k)",
		numpy: "matmul", numpyRef: true, fma: true, opt: 3,
		l3: mkn(512, 512, 512), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},
	{name: "matmul_tir", file: "matmul.tir", family: "matmul", form: ".tir, mul broadcast by name, reduce over k",
		numpy: "matmul", numpyRef: true, fma: true, opt: 3,
		l3: mkn(512, 512, 512), check: mkn(37, 70, 29), flops: mknFlops, minReps: 3},

	{name: "conv2d_nchw", file: "conv2d_nchw.tc", ml: true, family: "conv2d_nchw", form: "TC, I * Wt (issue 21)",
		numpy: "conv2d_nchw", numpyRef: true, blas: "conv2d_nchw_blas.c", opt: 3, goal: withinBLAS,
		l3: convSize, check: convCheck, flops: convFlops, minReps: 3},
	{name: "conv2d_nchw_wi", file: "conv2d_nchw_wi.tc", family: "conv2d_nchw", form: "TC, Wt * I",
		numpy: "conv2d_nchw", numpyRef: true, fma: true, opt: 3,
		l3: convSize, check: convCheck, flops: convFlops, minReps: 3},
	{name: "conv2d_nhwc", file: "conv2d_nhwc.tc", ml: true, numpy: "conv2d_nhwc", numpyRef: true, blas: "conv2d_nhwc_blas.c", opt: 3,
		goal: withinBLAS, l3: convSize, check: convCheck, flops: convFlops, minReps: 3},

	{name: "attention", file: "attention.tc", ml: true, family: "attention", form: "TC, weights normalized before the product with V",
		numpy: "attention", numpyRef: true, blas: "attention_blas.c", opt: 3, goal: &goal{v: vOursFMA, max: 1.5},
		l3: attnSize, check: attnCheck, flops: attnFlops, minReps: 3},
	{name: "attention_post", file: "attention_post.tc", family: "attention", form: "TC, divided by the row sum after the product with V",
		numpy: "attention", numpyRef: true, fma: true, opt: 3,
		l3: attnSize, check: attnCheck, flops: attnFlops, minReps: 3},

	{name: "bmm", file: "bmm.tc", ml: true, numpy: "bmm", numpyRef: true, blas: "bmm_blas.c", opt: 3,
		l3:    map[string]int64{"B": 16, "M": 256, "K": 256, "N": 256},
		check: map[string]int64{"B": 3, "M": 5, "K": 7, "N": 9},
		flops: func(s map[string]int64) float64 { return float64(s["B"]) * mknFlops(s) }, minReps: 3},
	{name: "tensordot", file: "tensordot.tc", ml: true, numpy: "tensordot", numpyRef: true, blas: "tensordot_blas.c", opt: 3,
		goal:  withinBLAS,
		l3:    map[string]int64{"I": 64, "K": 32, "J": 64, "L": 32, "N": 128},
		check: map[string]int64{"I": 3, "K": 4, "J": 5, "L": 6, "N": 7},
		flops: func(s map[string]int64) float64 { return 2 * float64(s["I"]*s["J"]*s["N"]) * float64(s["K"]*s["L"]) }, minReps: 3},

	{name: "vflux_dk", file: "vflux_dk.tir", family: "vflux", form: "tir.mul %d2, %ck",
		l3: colsSmall, dram: colsLarge, check: colsCheck},
	{name: "vflux_kd", file: "vflux_kd.tir", family: "vflux", form: "tir.mul %ck, %d2 (issue 21: 1.96-1.99x)",
		l3: colsSmall, dram: colsLarge, check: colsCheck},

	{name: "tridiag_in", file: "tridiag.tir", family: "tridiag", form: "tuple_get inside the backward scan (tridiag.tir)",
		l3: colsSmall, dram: colsLarge, check: colsCheck, fill: tridiagFill},
	{name: "tridiag_before", file: "tridiag_before.tir", family: "tridiag", form: "tuple_get before the backward scan (issue 21: 1.14x, 1.39x)",
		l3: colsSmall, dram: colsLarge, check: colsCheck, fill: tridiagFill},
	{name: "tridiag_2scans", file: "tridiag_2scans.tir", family: "tridiag", form: "two scalar forward scans (issue 21: 1.39x)",
		l3: colsSmall, dram: colsLarge, check: colsCheck, fill: tridiagFill},

	{name: "vadv_piecewise", file: "vadv_piecewise.tir", family: "vadv", form: "boundary levels by tir.piecewise (issue 24)",
		l3: colsSmall, dram: colsLarge, check: colsCheck, fill: vadvFill},
	{name: "vadv_concat", file: "vadv_concat.tir", family: "vadv", form: "boundary levels by subset + broadcast + concat",
		l3: colsSmall, dram: colsLarge, check: colsCheck, fill: vadvFill},
}

func attnFlops(s map[string]int64) float64 {
	return 4 * float64(s["B"]*s["L"]*s["S"]) * float64(s["D"])
}

// derivKernels are the adjoints of the derivatives table (issue 23):
// each kernel's @f_vjp, timed against @f at the same sizes, and against a
// hand-written C adjoint for lap3d and the tridiagonal solver.
var derivKernels = []kernel{
	adjointOf("lap3d_f64", "lap3d_vjp.c", 0),
	inFamily(adjointOf("hdiff", "", 0), "as written (hdiff.tir)"),
	adjointFormulation("hdiff", "hdiff_call_vjp", "hdiff_call.tir", "the Laplacian by tir.call, 4u - (e + w + n + s)"),
	adjointFormulation("hdiff", "hdiff_split_vjp", "hdiff_split.tir", "fluxes in the other order, u + (-div) * coeff"),
	// The hand-written adjoint divides where the generated one multiplies
	// by 1/den, and sums in its own order.
	inFamily(adjointOf("tridiag", "tridiag_vjp.c", 1e-12), "tuple_get inside the backward scan (tridiag.tir)"),
	adjointFormulation("tridiag", "tridiag_before_vjp", "tridiag_before.tir", "tuple_get before the backward scan"),
	adjointFormulation("tridiag", "tridiag_2scans_vjp", "tridiag_2scans.tir", "two scalar forward scans"),
	// The hand-written adjoint accumulates the edge cotangents in the
	// output buffers of ds_mxx and ds_myy and scales them there.
	adjointOf("nabla", "nabla_vjp.c", 0),
}

// inFamily puts the adjoint a at the head of the adjoint family of its
// kernel (family f_vjp), written as form says.
func inFamily(a kernel, form string) kernel {
	a.family, a.form = a.of+"_vjp", form
	return a
}

// adjointFormulation is a member of the adjoint family of the classic
// kernel of: @f_vjp of file (its last function's adjoint), at of's sizes
// and with its inputs, timed against of's @f; no hand-written adjoint.
func adjointFormulation(of, name, file, form string) kernel {
	a := inFamily(adjointOf(of, "", 0), form)
	a.name, a.file = name, file
	return a
}

// adjointOf is the adjoint of the classic kernel named name: its file,
// sizes and inputs, ref the hand-written C adjoint under ref/ ("" for
// none), compiled with the forward reference's -D flags.
func adjointOf(name, ref string, refNorm float64) kernel {
	for _, k := range kernels {
		if k.name == name {
			a := k
			a.name, a.of, a.ref, a.refNorm = name+"_vjp", name, ref, refNorm
			if ref == "" {
				a.cdefs = nil
			}
			return a
		}
	}
	panic("adjointOf: no kernel " + name)
}

// allKernels are the classic kernels, then the ML ones and the families,
// then the adjoints.
var allKernels = append(append(append([]kernel(nil), kernels...), mlKernels...), derivKernels...)

// tridiagFill draws diagonally dominant systems: b in [3, 4), the rest in
// [-1, 1).
func tridiagFill(rng *rand.Rand, arg string) float64 {
	if arg == "b" {
		return 3 + rng.Float64()
	}
	return rng.Float64()*2 - 1
}

// vadvFill draws the vertical advection's fields in [-1, 1) and its
// dtr_stage in [1, 2), so that the systems stay diagonally dominant.
func vadvFill(rng *rand.Rand, arg string) float64 {
	if arg == "dtr" {
		return 1 + rng.Float64()
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
