package test

import (
	"fmt"
	"math"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// An embedding lookup whose token table holds indices outside the table
// (issue 20): every backend must write 0 where the index is out of range,
// as the interpreter does, not the row the clamped read finds. The
// expected values are computed here from the inputs; the interpreter is
// checked against them too.

const embedTC = `def embed(float(V, D) E, int32(T) tok) -> (O) {
  O(t, d) = E(tok(t), d)
}
def embed_acc(float(V, D) E, int32(T) tok, float(T, D, K) X) -> (O) {
  O(t, d) = E(tok(t), d) * 2
  O(t, d) += X(t, d, k)
}
`

// embedModes builds a function of embedTC in each mode: the CPU code at
// -O0 and -O2, -O2 --threads on three threads (every parallel loop split),
// and the NVPTX kernels at -O2 run by the CUDA driver emulator.
func embedModes(t *testing.T, name string) (*ir.Operation, map[string]*native.Program) {
	t.Helper()
	fn := tcFunc(t, embedTC, name)
	// The import warns that the tokens are unchecked, which the compile
	// functions take for a failure: they get the imported module, printed.
	m, _ := tc.Import("embed.tc", embedTC)
	text := printer.Module(m, printer.Options{})
	progs := map[string]*native.Program{}
	for _, level := range []int{0, 2} {
		llvm, err := native.Compile("embed.tir", text, level, "x86_64")
		if err != nil {
			t.Fatalf("-O%d: %v", level, err)
		}
		if progs[fmt.Sprintf("O%d", level)], err = native.Build(llvm, fn, t.TempDir()); err != nil {
			t.Fatalf("-O%d: build: %v", level, err)
		}
	}
	llvm, err := native.CompileWith("embed.tir", text, threadsPipeline(t))
	if err != nil {
		t.Fatalf("--threads: %v", err)
	}
	prog, err := native.Build(llvm, fn, t.TempDir())
	if err != nil {
		t.Fatalf("--threads: build: %v", err)
	}
	prog.Env = []string{"OMP_NUM_THREADS=3"}
	progs["threads"] = prog
	gm, err := native.CompileModule("embed.tir", text, 2, "nvptx64")
	if err != nil {
		t.Fatalf("nvptx64: %v", err)
	}
	if progs["gpu"], err = native.BuildGPU(gm, fn, t.TempDir(), native.GPUOptions{Emulate: true}); err != nil {
		t.Fatalf("nvptx64: build: %v", err)
	}
	return fn, progs
}

// embedInputs: E(v, d) = 10 v + d + 1 on V = 10, D = 4, and tokens in
// range, at both ends of it, just past it, negative and at the limits
// of int32.
func embedInputs() (e, tok *interp.Tensor, syms map[string]int64) {
	const V, D = 10, 4
	toks := []int64{3, 0, 9, 3, 12, -1, 10, math.MinInt32, math.MaxInt32}
	e, _ = interp.NewTensor(ir.F32, []interp.Dim{{Name: "E_0", Hi: V}, {Name: "E_1", Hi: D}})
	for v := 0; v < V; v++ {
		for d := 0; d < D; d++ {
			e.F64[v*D+d] = float64(10*v + d + 1)
		}
	}
	tok, _ = interp.NewTensor(ir.I32, []interp.Dim{{Name: "tok_0", Hi: int64(len(toks))}})
	copy(tok.I64, toks)
	return e, tok, map[string]int64{"V": V, "D": D, "T": int64(len(toks))}
}

// checkEmbed compares a result (D = 4 columns) with the expected values
// element by element; a 0 must be +0.
func checkEmbed(t *testing.T, what string, got *interp.Tensor, want []float64) {
	t.Helper()
	if len(got.F64) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got.F64), len(want))
	}
	for i, w := range want {
		if g := got.F64[i]; g != w || math.Signbit(g) {
			t.Errorf("%s: element %d (t=%d, d=%d) = %v, want %v", what, i, i/4, i%4, g, w)
		}
	}
}

func TestMaskedGatherEmbedding(t *testing.T) {
	needToolchain(t)
	e, tok, syms := embedInputs()
	const D = 4
	var want []float64
	masked := 0
	for _, v := range tok.I64 {
		for d := 0; d < D; d++ {
			if v >= 0 && v < 10 {
				want = append(want, float64(10*v+int64(d)+1))
			} else {
				want = append(want, 0)
				masked++
			}
		}
	}
	fn, progs := embedModes(t, "embed")
	args := []*interp.Tensor{e, tok}
	ref, err := interp.Run(fn, args, syms)
	if err != nil {
		t.Fatal(err)
	}
	checkEmbed(t, "interpreter", ref[0], want)
	if ref[0].MaskedCount() != masked {
		t.Errorf("interpreter: %d masked points, want %d", ref[0].MaskedCount(), masked)
	}
	for _, mode := range []string{"O0", "O2", "threads", "gpu"} {
		got, _, err := progs[mode].Run(args, syms, 1)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		checkEmbed(t, mode, got[0], want)
		// --check's comparison counts every element, the masked ones
		// included.
		d, err := native.Compare(got, ref)
		if err != nil {
			t.Fatal(err)
		}
		if d.Compared != len(want) || d.Masked != masked || d.Mismatch != 0 {
			t.Errorf("%s: Compare gives %+v, want %d compared, %d masked, none differing", mode, d, len(want), masked)
		}
	}
}

// Accumulating into a gathered row (a reduction whose init is masked)
// keeps the row masked: 0, not the sum of X.
func TestMaskedGatherAccumulated(t *testing.T) {
	needToolchain(t)
	e, tok, syms := embedInputs()
	const D, K = 4, 3
	syms["K"] = K
	T := len(tok.I64)
	x, _ := interp.NewTensor(ir.F32, []interp.Dim{{Name: "X_0", Hi: int64(T)}, {Name: "X_1", Hi: D}, {Name: "X_2", Hi: K}})
	for i := range x.F64 {
		x.F64[i] = float64(i%7) - 3
	}
	var want []float64
	for t := 0; t < T; t++ {
		for d := 0; d < D; d++ {
			v := tok.I64[t]
			if v < 0 || v >= 10 {
				want = append(want, 0)
				continue
			}
			s := float64(2 * (10*v + int64(d) + 1))
			for k := 0; k < K; k++ {
				s += x.F64[(t*D+d)*K+k]
			}
			want = append(want, s)
		}
	}
	fn, progs := embedModes(t, "embed_acc")
	args := []*interp.Tensor{e, tok, x}
	ref, err := interp.Run(fn, args, syms)
	if err != nil {
		t.Fatal(err)
	}
	checkEmbed(t, "interpreter", ref[0], want)
	for _, mode := range []string{"O0", "O2", "threads", "gpu"} {
		got, _, err := progs[mode].Run(args, syms, 1)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		checkEmbed(t, mode, got[0], want)
	}
}
