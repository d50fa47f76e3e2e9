package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower"
	"tir/passes"
	"tir/passes/derivatives"
	"tir/tools/driver"
	"tir/tools/native"
)

// The flags of every variant (printed under the table).
var (
	llcFlags      = []string{"-O3", "-filetype=obj", "-relocation-model=pic"}
	gccNative     = []string{"-O3", "-march=native", "-ffp-contract=off"}
	gccGeneric    = []string{"-O3", "-ffp-contract=off"}
	gccOMP        = []string{"-O3", "-ffp-contract=off", "-fopenmp"}
	mlirLowering  = []string{"--lower-affine", "--convert-scf-to-cf", "--convert-arith-to-llvm", "--convert-math-to-llvm", "--convert-memref-to-llvm", "--convert-func-to-llvm", "--reconcile-unrealized-casts"}
	mlirLLCFlags  = append([]string{"-opaque-pointers"}, llcFlags...)
	mlirJITFlags  = []string{"-O3", "-e", "main", "-entry-point-result=void"}
	driverCCFlags = []string{"-O2"}
	// The BLAS references' own loops (im2col, the attention's softmax,
	// bias and ReLU) as fast as gcc makes them.
	gccBLAS = []string{"-O3", "-march=native"}
)

// toolset is where the external tools are.
type toolset struct {
	llc, gcc                  string
	mlirOpt, mlirTranslate    string
	mlirRunner                string
	llcErr, gccErr, mlirError error
	// python runs ref/numpy_driver.py; pythonErr says why it cannot.
	python    string
	pythonErr error
	// rssWrap is ref/rsswrap.c built, which runs the drivers and reports
	// their peak resident memory ("": run them directly, no memory).
	rssWrap string
}

// buildRSSWrap builds ref/rsswrap.c in dir.
func (t *toolset) buildRSSWrap(dir string) error {
	src, err := sources.ReadFile("ref/rsswrap.c")
	if err != nil {
		return err
	}
	c, exe := filepath.Join(dir, "rsswrap.c"), filepath.Join(dir, "rsswrap")
	if err := os.WriteFile(c, src, 0o644); err != nil {
		return err
	}
	if out, err := exec.Command(t.gcc, "-O2", c, "-o", exe).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc rsswrap.c: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.rssWrap = exe
	return nil
}

func findTools() toolset {
	var t toolset
	t.llc, t.llcErr = native.Tool("llc")
	if p, err := exec.LookPath("gcc"); err == nil {
		t.gcc = p
	} else {
		t.gccErr = fmt.Errorf("gcc not found (make deps)")
	}
	bin := os.Getenv("TIR_MLIR_BIN")
	if bin == "" {
		bin = "/usr/lib/llvm-16/bin"
	}
	t.mlirOpt = filepath.Join(bin, "mlir-opt")
	t.mlirTranslate = filepath.Join(bin, "mlir-translate")
	t.mlirRunner = filepath.Join(bin, "mlir-cpu-runner")
	for _, p := range []string{t.mlirOpt, t.mlirTranslate, t.mlirRunner} {
		if _, err := os.Stat(p); err != nil {
			t.mlirError = fmt.Errorf("MLIR 16 tools not found in %s (make deps installs mlir-16-tools)", bin)
		}
	}
	t.python, t.pythonErr = findPython()
	return t
}

// findPython is $TIR_BENCH_PYTHON, or the system's python3 (Debian's
// python3-numpy installs NumPy for /usr/bin/python3, not for a python3
// that a virtual environment puts first on PATH), if it imports NumPy.
func findPython() (string, error) {
	py := os.Getenv("TIR_BENCH_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
		if _, err := os.Stat(py); err != nil {
			if py, err = exec.LookPath("python3"); err != nil {
				return "", fmt.Errorf("python3 not found (make deps installs python3-numpy)")
			}
		}
	}
	if out, err := exec.Command(py, "-c", "import numpy").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s cannot import NumPy (make deps installs python3-numpy): %s", py, strings.TrimSpace(string(out)))
	}
	return py, nil
}

// build is a kernel compiled every way, with its driver.
type build struct {
	k      *kernel
	tools  toolset
	fn     *ir.Operation
	name   string   // the function's symbol
	params []param  // C ABI tensors
	syms   []string // size symbols, in ABI order
	dir    string
	exe    string // driver with ours, gcc and mlir + llc linked in
	jitSO  string // driver as a library for mlir-cpu-runner
	jitIR  string // the lowered module with a main that calls the driver
	// blasExe is the driver linked with the BLAS reference and OpenBLAS.
	blasExe string
	// numpyDriver and numpySpec are ref/numpy_driver.py and the JSON it
	// reads (the function of ref/ml.py, the tensors).
	numpyDriver, numpySpec string
	// failed[v] says why variant v could not be built (nil: it was).
	failed [numVariants]error
	// log keeps what every build step printed, for -v.
	log strings.Builder
	// threads is OMP_NUM_THREADS for the runs (the threaded variants).
	threads int
}

func (b *build) sh(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = b.dir
	out, err := cmd.CombinedOutput()
	fmt.Fprintf(&b.log, "$ %s %s\n%s", filepath.Base(name), strings.Join(args, " "), out)
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("%s: %v: %s", filepath.Base(name), err, msg)
	}
	return nil
}

// compileKernel builds every variant of k under dir. It fails only when
// the kernel itself cannot be read or the driver cannot be linked; a
// variant that cannot be built is recorded in failed.
func compileKernel(k *kernel, tools toolset, dir string) (*build, error) {
	b := &build{k: k, tools: tools, dir: dir}
	src, err := sources.ReadFile("kernels/" + k.file)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, k.file)
	files := map[string][]byte{k.file: src}
	if files["bench.h"], err = sources.ReadFile("ref/bench.h"); err != nil {
		return nil, err
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return nil, err
		}
	}
	m, diags := native.Load(path, string(src))
	if len(diags) > 0 {
		return nil, diags
	}
	for _, op := range m.Body().Ops {
		if op.Is(tir.Func) {
			b.fn = op
		}
	}
	if b.fn == nil {
		return nil, fmt.Errorf("%s: no tir.func", k.file)
	}
	if k.of != "" {
		// An adjoint: the file with @f_vjp added, compiled whole.
		f := ir.SymbolName(b.fn)
		if err := derivatives.Run(m, derivatives.Options{VJP: true, Functions: []string{f}}); err != nil {
			return nil, fmt.Errorf("tir-derivatives{mode=vjp functions=%s}: %v", f, err)
		}
		if b.fn = m.Lookup(f + "_vjp"); b.fn == nil {
			return nil, fmt.Errorf("tir-derivatives added no @%s_vjp", f)
		}
		src = []byte(printer.Module(m, printer.Options{}))
		path = filepath.Join(dir, k.name+".tir")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return nil, err
		}
	}
	b.name = ir.SymbolName(b.fn)
	b.syms = interp.Symbols(b.fn)
	if b.params, err = signature(b.fn, interp.ArgNames(b.fn)); err != nil {
		return nil, err
	}
	if tools.gccErr != nil {
		return nil, tools.gccErr // gcc also links the driver
	}
	for v := range b.failed {
		if !k.has(v) {
			b.failed[v] = errAbsent
		}
	}

	var objs, defs []string
	// ours, compiled in-process with a -O pipeline (edit adds --threads,
	// --mcpu, ...) and llc -O3, the function renamed prefix+name (so that
	// the variants link next to each other) unless prefix is empty.
	ours := func(v int, prefix, macro string, edit func(p *passes.Pipeline) error) {
		if b.failed[v] == errAbsent {
			return
		}
		b.failed[v] = func() error {
			if tools.llcErr != nil {
				return tools.llcErr
			}
			p, err := passes.OptPipeline(b.opt(), "x86_64")
			if err == nil && edit != nil {
				err = edit(p)
			}
			if err != nil {
				return err
			}
			file, text := path, string(src)
			if prefix != "" {
				if file, text, err = b.renamed(prefix); err != nil {
					return err
				}
			}
			ll, err := native.CompileWith(file, text, p)
			if err != nil {
				return fmt.Errorf("tc-opt %s: %v", b.oursFlags(v), err)
			}
			base := strings.TrimSuffix("ours_"+prefix, "_")
			if err := os.WriteFile(filepath.Join(dir, base+".ll"), []byte(ll), 0o644); err != nil {
				return err
			}
			return b.sh(tools.llc, append(llcFlags, base+".ll", "-o", base+".o")...)
		}()
		if b.failed[v] == nil {
			base := strings.TrimSuffix("ours_"+prefix, "_")
			objs, defs = append(objs, base+".o"), append(defs, "-D"+macro)
		}
	}
	// 1. ours: tc-opt -O2 (-O3 for the contractions), llc -O3.
	ours(vOurs, "", "HAVE_OURS", nil)
	// 1b. ours with threads: the same with --threads, the function renamed
	// threads_<name>.
	ours(vOursThreads, "threads_", "HAVE_OURS_THREADS", passes.WithThreads)
	// 1c. for this machine's vector unit (--mcpu=native), to compare with
	// gcc -march=native on the same instruction set; for the kernels with
	// a BLAS reference (or kernel.fma), also with fused multiply-adds.
	forHost := func(p *passes.Pipeline) error { return lower.WithCPU(p, "x86_64", "native") }
	ours(vOursNative, "native_", "HAVE_OURS_NATIVE", forHost)
	ours(vOursFMA, "fma_", "HAVE_OURS_FMA", func(p *passes.Pipeline) error {
		if err := forHost(p); err != nil {
			return err
		}
		return lower.WithContract(p)
	})
	if k.classic() || (k.of != "" && k.ref != "") {
		if err := b.cRefs(&objs, &defs); err != nil {
			return nil, err
		}
	}
	if k.classic() {
		b.mlirVariants(path, &objs, &defs)
	}

	// The drivers.
	if err := os.WriteFile(filepath.Join(dir, "driver.c"), []byte(driverC(b.name, b.params, len(b.syms))), 0o644); err != nil {
		return nil, err
	}
	b.exe = filepath.Join(dir, "driver")
	args := append(append(append([]string{}, driverCCFlags...), defs...), "driver.c")
	// -fopenmp links libgomp, which ours threads and gcc omp call.
	if err := b.sh(tools.gcc, append(append(args, objs...), "-o", "driver", "-lm", "-fopenmp")...); err != nil {
		return nil, fmt.Errorf("linking the driver: %v", err)
	}
	if k.has(vBLAS) || k.has(vBLASForced) {
		err := b.buildBLAS()
		for _, v := range []int{vBLAS, vBLASForced} {
			if k.has(v) {
				b.failed[v] = err
			}
		}
		if err == nil && k.has(vBLASForced) && blasCoreType() == "" {
			b.failed[vBLASForced] = fmt.Errorf("no OPENBLAS_CORETYPE to force on this CPU (neither AVX-512 nor AVX2)")
		}
	}
	if k.has(vNumPy) {
		b.failed[vNumPy] = b.buildNumPy()
	}
	if b.failed[vMLIRJIT] == nil {
		b.jitSO = filepath.Join(dir, "driver_jit.so")
		b.failed[vMLIRJIT] = b.sh(tools.gcc, append(append([]string{}, driverCCFlags...), "-DJIT", "-shared", "-fPIC", "driver.c", "-o", "driver_jit.so")...)
	}
	return b, nil
}

// cRefs builds the C reference (gcc native and generic, and OpenMP for
// a classic kernel), adding the objects and driver macros.
func (b *build) cRefs(objs, defs *[]string) error {
	k, tools := b.k, b.tools
	data, err := sources.ReadFile("ref/" + k.ref)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.dir, k.ref), data, 0o644); err != nil {
		return err
	}
	// 2. the C reference, with and without -march=native.
	gccErr := b.sh(tools.gcc, append(append(append([]string{}, gccNative...), k.cdefs...), "-DREF=ref_native", "-c", k.ref, "-o", "ref_native.o")...)
	if gccErr == nil {
		gccErr = b.sh(tools.gcc, append(append(append([]string{}, gccGeneric...), k.cdefs...), "-DREF=ref_generic", "-c", k.ref, "-o", "ref_generic.o")...)
	}
	b.failed[vGCCNative], b.failed[vGCCGeneric] = gccErr, gccErr
	if gccErr == nil {
		*objs, *defs = append(*objs, "ref_native.o", "ref_generic.o"), append(*defs, "-DHAVE_GCC")
	}
	if !k.has(vGCCOMP) {
		return nil
	}
	// 2b. the C reference with -fopenmp (its outer loop under #pragma omp
	// parallel for), the generic ISA as ours.
	b.failed[vGCCOMP] = b.sh(tools.gcc, append(append(append([]string{}, gccOMP...), k.cdefs...), "-DREF=ref_omp", "-c", k.ref, "-o", "ref_omp.o")...)
	if b.failed[vGCCOMP] == nil {
		*objs, *defs = append(*objs, "ref_omp.o"), append(*defs, "-DHAVE_GCC_OMP")
	}
	return nil
}

// mlirVariants builds the classic kernels' MLIR variants, adding their
// objects and driver macros.
func (b *build) mlirVariants(path string, objs, defs *[]string) {
	tools := b.tools
	// 3. MLIR 16 on our affine output.
	lowered, mlirErr := b.mlirLower(path)
	b.failed[vMLIR], b.failed[vMLIRJIT] = mlirErr, mlirErr
	if mlirErr == nil {
		b.failed[vMLIR] = func() error {
			if tools.llcErr != nil {
				return tools.llcErr
			}
			if err := b.sh(tools.mlirTranslate, "--mlir-to-llvmir", lowered, "-o", "mlir.ll"); err != nil {
				return err
			}
			return b.sh(tools.llc, append(mlirLLCFlags, "mlir.ll", "-o", "mlir.o")...)
		}()
		if b.failed[vMLIR] == nil {
			*objs, *defs = append(*objs, "mlir.o"), append(*defs, "-DHAVE_MLIR")
		}
		b.failed[vMLIRJIT] = b.jitModule(lowered)
	}
}

// errAbsent marks the variants a kernel does not have.
var errAbsent = errors.New("not a variant of this kernel")

// opt is the -O level of ours.
func (b *build) opt() int {
	if b.k.opt == 0 {
		return 2
	}
	return b.k.opt
}

// oursFlags are the tc-opt flags of one of our variants, as the table
// describes them.
func (b *build) oursFlags(v int) string {
	f := fmt.Sprintf("-O%d", b.opt())
	switch v {
	case vOursThreads:
		f += " --threads"
	case vOursNative:
		f += " --mcpu=native"
	case vOursFMA:
		f += " --mcpu=native --fp-contract=fast"
	}
	return f
}

// renamed returns the kernel as IR text with its functions renamed
// prefix+name (every function, and the calls between them, so that the
// helpers of a file with several do not clash between variants), and a
// path for it.
func (b *build) renamed(prefix string) (string, string, error) {
	src, err := sources.ReadFile("kernels/" + b.k.file)
	if err != nil {
		return "", "", err
	}
	m, diags := native.Load(b.k.file, string(src))
	if len(diags) > 0 {
		return "", "", diags
	}
	found := false
	for _, op := range m.Body().Ops {
		if !op.Is(tir.Func) {
			continue
		}
		found = found || ir.SymbolName(op) == b.name
		op.SetAttr(ir.AttrSymName, ir.StringAttr(prefix+ir.SymbolName(op)))
		op.Walk(func(o *ir.Operation) bool {
			if callee, ok := o.Attr(tir.AttrCallee).(ir.SymbolRefAttr); ok && o.Is(tir.Call) {
				o.SetAttr(tir.AttrCallee, ir.SymbolRefAttr(prefix+string(callee)))
			}
			return true
		})
	}
	if !found {
		return "", "", fmt.Errorf("no tir.func @%s in %s", b.name, b.k.file)
	}
	return filepath.Join(b.dir, prefix+b.name+".tir"), printer.Module(m, printer.Options{}), nil
}

// buildBLAS compiles the kernel's BLAS reference and links the BLAS
// driver with OpenBLAS.
func (b *build) buildBLAS() error {
	for _, f := range []string{b.k.blas, "blas_common.h"} {
		data, err := sources.ReadFile("ref/" + f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(b.dir, f), data, 0o644); err != nil {
			return err
		}
	}
	if err := b.sh(b.tools.gcc, append(append([]string{}, gccBLAS...), "-DREF=blas_ref", "-c", b.k.blas, "-o", "blas.o")...); err != nil {
		return fmt.Errorf("%v (OpenBLAS: apt-get install libopenblas-dev)", err)
	}
	b.blasExe = filepath.Join(b.dir, "driver_blas")
	if err := b.sh(b.tools.gcc, append(append([]string{}, driverCCFlags...), "-DHAVE_BLAS", "driver.c", "blas.o", "-o", "driver_blas", "-lopenblas", "-lm")...); err != nil {
		return fmt.Errorf("%v (OpenBLAS: apt-get install libopenblas-dev)", err)
	}
	return nil
}

// buildNumPy writes ref/numpy_driver.py, ref/ml.py and the driver's spec:
// the function, the number of size symbols, the tensors in ABI order.
func (b *build) buildNumPy() error {
	if b.tools.pythonErr != nil {
		return b.tools.pythonErr
	}
	for _, f := range []string{"numpy_driver.py", "ml.py"} {
		data, err := sources.ReadFile("ref/" + f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(b.dir, f), data, 0o644); err != nil {
			return err
		}
	}
	type tensor struct {
		Name  string `json:"name"`
		Rank  int    `json:"rank"`
		CType string `json:"ctype"`
		Out   bool   `json:"out"`
	}
	spec := struct {
		Fn     string   `json:"fn"`
		NSyms  int      `json:"nsyms"`
		Params []tensor `json:"params"`
	}{Fn: b.k.numpy, NSyms: len(b.syms)}
	for _, p := range b.params {
		spec.Params = append(spec.Params, tensor{p.name, p.rank, p.ctype, p.out})
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	b.numpyDriver = filepath.Join(b.dir, "numpy_driver.py")
	b.numpySpec = filepath.Join(b.dir, "numpy.json")
	return os.WriteFile(b.numpySpec, data, 0o644)
}

// blasCoreType is the OPENBLAS_CORETYPE that matches this CPU's vector
// unit ("" when there is none to force): OpenBLAS's run-time dispatch
// falls back to an SSE3 kernel (Prescott) on processors it does not know,
// such as virtual CPUs with a model number newer than the library.
func blasCoreType() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags := " " + v + " "
			switch {
			case strings.Contains(flags, " avx512f ") && strings.Contains(flags, " avx512bw "):
				return "SkylakeX"
			case strings.Contains(flags, " avx2 ") && strings.Contains(flags, " fma "):
				return "Haswell"
			}
			return ""
		}
	}
	return ""
}

// mlirLower runs tc-opt --convert-tir-to-affine (in-process) and upstream
// mlir-opt's lowering to the LLVM dialect; it returns the file written.
func (b *build) mlirLower(path string) (string, error) {
	if b.tools.mlirError != nil {
		return "", b.tools.mlirError
	}
	var out, errb bytes.Buffer
	if code := driver.Run([]string{"--convert-tir-to-affine", path}, strings.NewReader(""), &out, &errb); code != 0 {
		return "", fmt.Errorf("tc-opt --convert-tir-to-affine: exit %d: %s", code, strings.TrimSpace(errb.String()))
	}
	affine := out.String()
	decl := "func.func @" + b.name + "("
	if strings.Count(affine, decl) != 1 {
		return "", fmt.Errorf("cannot find %q in the affine output", decl)
	}
	// Renamed so that it links next to ours.
	affine = strings.Replace(affine, decl, "func.func @mlir_"+b.name+"(", 1)
	if err := os.WriteFile(filepath.Join(b.dir, "affine.mlir"), []byte(affine), 0o644); err != nil {
		return "", err
	}
	if err := b.sh(b.tools.mlirOpt, append(append([]string{}, mlirLowering...), "affine.mlir", "-o", "lowered.mlir")...); err != nil {
		return "", err
	}
	return "lowered.mlir", nil
}

// jitModule appends to the lowered module a main that hands the kernel's
// address to the driver library (bench_jit), for mlir-cpu-runner.
func (b *build) jitModule(lowered string) error {
	data, err := os.ReadFile(filepath.Join(b.dir, lowered))
	if err != nil {
		return err
	}
	text := strings.TrimRight(string(data), " \n")
	if !strings.HasSuffix(text, "}") {
		return errors.New("unexpected end of the lowered module")
	}
	text = text[:len(text)-1] + fmt.Sprintf(`  llvm.func @bench_jit(!llvm.ptr)
  llvm.func @main() {
    %%0 = llvm.mlir.addressof @mlir_%s : !llvm.ptr
    llvm.call @bench_jit(%%0) : (!llvm.ptr) -> ()
    llvm.return
  }
}
`, b.name)
	b.jitIR = filepath.Join(b.dir, "jit.mlir")
	return os.WriteFile(b.jitIR, []byte(text), 0o644)
}
