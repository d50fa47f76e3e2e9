package main

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/lower/abi"
	"tir/tools/cdriver"
)

// param is one tensor of a kernel's C signature: an argument or a result.
type param struct {
	name  string
	rank  int
	ctype string // C element type
	size  int    // bytes per element
	out   bool
}

// ctypeOf is the C type and size of an element the driver reads and
// fills: the ABI's (abi.CTypeOf), for f32, f64, i32 and i64.
func ctypeOf(t ir.Type) (string, int, error) {
	switch t.String() {
	case "f32", "f64", "i32", "i64":
		c, err := abi.CTypeOf(t)
		return c.Name, c.Size, err
	}
	return "", 0, fmt.Errorf("element type %s is not supported by the benchmark driver", t)
}

// signature lists the tensors of fn's C ABI, arguments then results.
func signature(fn *ir.Operation, argNames []string) ([]param, error) {
	ft, ok := tir.FuncType(fn)
	if !ok {
		return nil, fmt.Errorf("not a tir.func")
	}
	var ps []param
	for i, t := range append(append([]ir.Type(nil), ft.Inputs...), ft.Results...) {
		tt, ok := tir.AsTensor(t)
		if !ok {
			return nil, fmt.Errorf("type %s is not a tensor", t)
		}
		ct, size, err := ctypeOf(tt.Elem)
		if err != nil {
			return nil, err
		}
		p := param{rank: tt.Rank(), ctype: ct, size: size, out: i >= len(ft.Inputs)}
		if p.rank > 4 {
			return nil, fmt.Errorf("rank %d is not supported by the benchmark driver", p.rank)
		}
		if i < len(argNames) {
			p.name = argNames[i]
		} else {
			p.name = fmt.Sprintf("result%d", i-len(ft.Inputs))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// The variants, in table order. Their ids are the driver's variant numbers.
// The threaded ones run on OMP_NUM_THREADS threads (all CPUs by default).
const (
	vOurs = iota
	vGCCNative
	vGCCGeneric
	vMLIR
	vMLIRJIT
	vOursThreads // tc-opt -O2 --threads
	vGCCOMP      // the C reference with -fopenmp (#pragma omp parallel for)
	vOursNative  // tc-opt -O2 (-O3) --mcpu=native
	// The kernels with a BLAS reference (kernel.blas) also have:
	vOursFMA    // tc-opt -O3 --mcpu=native --fp-contract=fast
	vBLAS       // OpenBLAS on one thread, with the kernel it picks at run time
	vBLASForced // the same with OPENBLAS_CORETYPE set from the CPU's vector ISA
	// The ML kernels and the formulation families (kernel.numpy) also have:
	vNumPy // ref/ml.py through ref/numpy_driver.py, NumPy's BLAS on one thread
	numVariants
)

// mainVariants are the columns of the main table; the BLAS table has the
// others.
var mainVariants = []int{vOurs, vOursNative, vGCCNative, vGCCGeneric, vMLIR, vMLIRJIT, vOursThreads, vGCCOMP}

var variantTitles = [numVariants]string{"ours", "gcc -march=native", "gcc generic", "mlir + llc", "mlir JIT -O3", "ours threads", "gcc omp",
	"ours native", "ours native fma", "openblas", "openblas forced", "numpy"}

// blasVariant reports whether variant v runs in the BLAS driver.
func blasVariant(v int) bool { return v == vBLAS || v == vBLASForced }

// inexact reports whether a variant computes other roundings than the
// interpreter (fused multiply-adds, another order of the sums, NumPy's
// pairwise sums and vectorized exp): its results are compared within a
// tolerance relative to the largest result.
func inexact(v int) bool { return v == vOursFMA || blasVariant(v) || v == vNumPy }

// driverC is the benchmark driver of a kernel (tools/cdriver's Bench): it
// reads the inputs from $BENCH_DIR/in<i>.bin and the sizes from
// $BENCH_DIR/config, calls one variant through its ABI (one untimed
// warm-up call, then timed calls until they last $BENCH_MIN_NS in all, at
// least $BENCH_MIN_REPS and at most $BENCH_MAX_REPS of them), prints
// "median_ns reps min_ns" and writes the results of the last call to
// $BENCH_DIR/out<variant>_<k>.bin.
//
// Built as an executable (argv[1] = variant) with HAVE_OURS, HAVE_GCC,
// HAVE_MLIR, HAVE_OURS_THREADS, HAVE_GCC_OMP, HAVE_OURS_NATIVE and
// HAVE_OURS_FMA naming the objects linked in (ours threads defines
// threads_<name>, ours native native_<name>, ours native fma fma_<name>);
// built with -DJIT as a shared library for mlir-cpu-runner, whose main
// passes the JIT-compiled function's address to bench_jit; built with
// HAVE_BLAS alone (blas_ref, linked with -lopenblas) as the BLAS driver,
// which prints the OpenBLAS kernel's name first ("core NAME"). A call
// longer than $BENCH_MAX_NS (a naive variant at a large size) is timed
// once, its warm-up call being that timing.
func driverC(name string, ps []param, nsyms int) string {
	f := cdriver.Func{Name: name}
	for _, p := range ps {
		c := abi.CType{Name: p.ctype, Size: p.size}
		f.Params = append(f.Params, cdriver.Param{Name: p.name, Rank: p.rank, C: c, Out: p.out})
	}
	for s := 0; s < nsyms; s++ {
		f.Syms = append(f.Syms, fmt.Sprintf("s%d", s))
	}
	ours := func(v int, prefix, guard string) cdriver.Variant {
		return cdriver.Variant{IDs: []int{v}, Guard: guard, Symbol: prefix + name, Error: prefix + name + "_error"}
	}
	src, err := cdriver.Source(cdriver.Driver{Funcs: []cdriver.Func{f}, Bench: &cdriver.Bench{Include: "bench.h", Variants: []cdriver.Variant{
		ours(vOurs, "", "HAVE_OURS"),
		{IDs: []int{vGCCNative}, Guard: "HAVE_GCC", Symbol: "ref_native"},
		{IDs: []int{vGCCGeneric}, Guard: "HAVE_GCC", Symbol: "ref_generic"},
		{IDs: []int{vMLIR}, Guard: "HAVE_MLIR", Symbol: "mlir_" + name, Unpacked: true},
		{IDs: []int{vMLIRJIT}, Unpacked: true, JIT: true},
		ours(vOursThreads, "threads_", "HAVE_OURS_THREADS"),
		{IDs: []int{vGCCOMP}, Guard: "HAVE_GCC_OMP", Symbol: "ref_omp"},
		ours(vOursNative, "native_", "HAVE_OURS_NATIVE"),
		ours(vOursFMA, "fma_", "HAVE_OURS_FMA"),
		{IDs: []int{vBLAS, vBLASForced}, Guard: "HAVE_BLAS", Symbol: "blas_ref", Core: "blas_core"},
	}}})
	if err != nil {
		// Source fails only without a function.
		panic(err)
	}
	return src
}
