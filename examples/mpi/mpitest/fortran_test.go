package mpitest

import (
	"context"
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
)

// TestMPIFortran builds the Fortran time loop of the example (main.f90,
// through the module of tc-opt --emit=fortran) with the example's Makefile
// and runs it with mpirun on 1, 2 and 4 ranks: each run must equal its own
// single-domain run (--check) and the reference interpreter bit for bit.
func TestMPIFortran(t *testing.T) {
	need(t, "mpif90", "mpirun", "llc-14", "make")
	if testing.Short() {
		t.Skip("builds and runs MPI programs (-short)")
	}
	here, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(timeout time.Duration, env []string, name string, args ...string) (string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = here
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	tcOpt := filepath.Join(dir, "tc-opt")
	if out, err := run(2*time.Minute, nil, goTool, "build", "-o", tcOpt, "tir/tools/tc-opt"); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// mpif90 without a usable mpi_f08 module (another Fortran compiler
	// than the one Open MPI was built with) cannot build the example.
	probe := filepath.Join(dir, "probe.f90")
	os.WriteFile(probe, []byte("program p\n  use mpi_f08\n  call MPI_Init()\n  call MPI_Finalize()\nend program p\n"), 0o644)
	if out, err := run(time.Minute, nil, "mpif90", probe, "-o", filepath.Join(dir, "probe")); err != nil {
		t.Skipf("mpif90 cannot build a program using mpi_f08: %v\n%s", err, out)
	}
	if out, err := run(2*time.Minute, nil, "make", "-s", "O="+dir, "TC_OPT="+tcOpt, filepath.Join(dir, "heat_mpi_f"), filepath.Join(dir, "extents.json")); err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	want := interpreted(t, filepath.Join(here, "heat.tir"), filepath.Join(dir, "extents.json"))
	for _, np := range []int{1, 2, 4} {
		out := filepath.Join(dir, fmt.Sprintf("f%d.npy", np))
		args := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
		if os.Geteuid() == 0 {
			args = append([]string{"--allow-run-as-root"}, args...)
		}
		args = append(args, filepath.Join(dir, "heat_mpi_f"), "--nx", strconv.Itoa(nx), "--ny", strconv.Itoa(ny),
			"--steps", strconv.Itoa(steps), "--out", out, "--check")
		log, err := run(time.Minute, mpiEnv, "mpirun", args...)
		if err != nil {
			if np == 1 && strings.Contains(log, "ORTE") {
				t.Skipf("mpirun does not start here: %v\n%s", err, log)
			}
			t.Fatalf("mpirun -np %d: %v\n%s", np, err, log)
		}
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
