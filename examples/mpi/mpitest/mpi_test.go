// Package mpitest tests the MPI example of the directory above
// (examples/mpi): it builds heat_mpi with the example's Makefile (tc-opt,
// llc-14, halo.py, mpicc), runs it with mpirun on 1, 2 and 4 ranks, and
// checks that every run's gathered result equals the single-domain run
// (heat_mpi --check) and the reference interpreter's, bit for bit.
package mpitest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/emit"
	"tir/tools/native"
)

// The run the test makes: a grid that does not divide evenly over the
// ranks, and enough steps for errors at block edges to spread.
const (
	nx, ny = 23, 17
	steps  = 12
)

// mpiEnv makes Open MPI work in a container without a network: shared
// memory between the ranks of one machine only.
var mpiEnv = []string{
	"OMPI_MCA_btl=self,vader",
	"OMPI_MCA_pml=ob1",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			why := "make deps installs it"
			switch tool {
			case "mpicc", "mpirun":
				why = "Open MPI: make deps installs libopenmpi-dev and openmpi-bin"
			case "llc-14":
				why = "LLVM 14: make deps installs llvm-14"
			}
			t.Skipf("the MPI example needs %s (%s)", tool, why)
		}
	}
}

func TestMPIExample(t *testing.T) {
	need(t, "mpicc", "mpirun", "llc-14", "python3", "make")
	if testing.Short() {
		t.Skip("builds and runs MPI programs (-short)")
	}
	here, err := filepath.Abs("..") // examples/mpi
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(timeout time.Duration, env []string, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = here
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	tcOpt := filepath.Join(dir, "tc-opt")
	run(2*time.Minute, nil, goTool, "build", "-o", tcOpt, "tir/tools/tc-opt")
	run(time.Minute, nil, "make", "-s", "O="+dir, "TC_OPT="+tcOpt)

	want := interpreted(t, filepath.Join(here, "heat.tir"), filepath.Join(dir, "extents.json"))
	for _, np := range []int{1, 2, 4} {
		out := filepath.Join(dir, fmt.Sprintf("np%d.npy", np))
		args := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
		if os.Geteuid() == 0 {
			args = append([]string{"--allow-run-as-root"}, args...)
		}
		args = append(args, filepath.Join(dir, "heat_mpi"), "--nx", strconv.Itoa(nx), "--ny", strconv.Itoa(ny),
			"--steps", strconv.Itoa(steps), "--out", out, "--check")
		log := run(time.Minute, mpiEnv, "mpirun", args...)
		t.Logf("mpirun -np %d:\n%s", np, log)
		if !strings.Contains(log, "check: the gathered result equals the single-domain run bit for bit") {
			t.Errorf("mpirun -np %d: no successful check in the output:\n%s", np, log)
		}
		if !strings.Contains(log, fmt.Sprintf("%d ranks", np)) {
			t.Errorf("mpirun -np %d: the run does not report %d ranks:\n%s", np, np, log)
		}
		got := readNpy(t, out, nx, ny)
		if d := firstDifference(got, want); d >= 0 {
			t.Errorf("mpirun -np %d: point (%d, %d) is %v (%#x), the interpreter gives %v (%#x)",
				np, d/ny, d%ny, got[d], math.Float64bits(got[d]), want[d], math.Float64bits(want[d]))
		}
	}
}

// interpreted runs the kernel's steps with the reference interpreter on the
// whole periodic grid: each step pads the grid with the ghost points
// extents.json gives (wrapping around), and runs the function.
func interpreted(t *testing.T, kernel, extentsJSON string) []float64 {
	t.Helper()
	src, err := os.ReadFile(kernel)
	if err != nil {
		t.Fatal(err)
	}
	m, diags := native.Load(kernel, string(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var fn *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			fn = op
		}
	}
	b, err := os.ReadFile(extentsJSON)
	if err != nil {
		t.Fatal(err)
	}
	var doc emit.JSONExtents
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	arg := doc.Functions[0].Args[0]
	var below, above [2]int
	for k, d := range arg.Dims {
		below[k], above[k] = int(*d.Below.Value), int(*d.Above.Value)
	}
	ft, _ := tir.FuncType(fn)
	in, _ := tir.AsTensor(ft.Inputs[0])
	u := make([]float64, nx*ny)
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			u[i*ny+j] = float64((i*31+j*17)%101) / 101.0 // initial() in main.c
		}
	}
	wrap := func(i, n int) int { return (i%n + n) % n }
	for s := 0; s < steps; s++ {
		dims := []interp.Dim{
			{Name: in.Dims[0].Name, Lo: int64(-below[0]), Hi: int64(nx + above[0])},
			{Name: in.Dims[1].Name, Lo: int64(-below[1]), Hi: int64(ny + above[1])},
		}
		x, err := interp.NewTensor(in.Elem, dims)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for i := -below[0]; i < nx+above[0]; i++ {
			for j := -below[1]; j < ny+above[1]; j++ {
				x.F64[k] = u[wrap(i, nx)*ny+wrap(j, ny)]
				k++
			}
		}
		res, err := interp.Run(fn, []*interp.Tensor{x}, nil)
		if err != nil {
			t.Fatalf("interpreter, step %d: %v", s, err)
		}
		if res[0].Len() != nx*ny {
			t.Fatalf("interpreter, step %d: result %v, want %d x %d", s, res[0].Dims, nx, ny)
		}
		u = append(u[:0], res[0].F64...)
	}
	return u
}

// readNpy reads a C-order float64 .npy file of shape (n0, n1).
func readNpy(t *testing.T, path string, n0, n1 int) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("%s: not a version 1 .npy file", path)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	header := string(b[10 : 10+hl])
	for _, want := range []string{"'descr': '<f8'", "'fortran_order': False", fmt.Sprintf("'shape': (%d, %d)", n0, n1)} {
		if !strings.Contains(header, want) {
			t.Fatalf("%s: header %q lacks %s", path, header, want)
		}
	}
	data := b[10+hl:]
	if len(data) != 8*n0*n1 {
		t.Fatalf("%s: %d bytes of data, want %d", path, len(data), 8*n0*n1)
	}
	v := make([]float64, n0*n1)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return v
}

// firstDifference is the first index where the bits differ, or -1.
func firstDifference(a, b []float64) int {
	for i := range a {
		if i >= len(b) || math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	if len(b) != len(a) {
		return len(a)
	}
	return -1
}
