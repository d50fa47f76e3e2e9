package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"tir/tools/native"
)

// numpyPython returns a python3 that can import NumPy: $TIR_PYTHON, the
// python3 on PATH, then Debian's /usr/bin/python3 (where `make deps`
// installs python3-numpy; a pyenv python3 earlier on PATH may lack it).
func numpyPython() (string, []string) {
	var tried []string
	var cands []string
	if p := os.Getenv("TIR_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, c := range cands {
		tried = append(tried, c)
		if exec.Command(c, "-c", "import numpy").Run() == nil {
			return c, tried
		}
	}
	return "", tried
}

// TestPython runs the tests of the Python package (python/tests, with
// python3 -m unittest) against tc-opt and tc-run built from this tree.
// They compare the compiled functions with the interpreter and with NumPy.
func TestPython(t *testing.T) {
	py, bin, root := pythonSetup(t)
	cmd := exec.Command(py, "-B", "-m", "unittest", "discover", "-v", "-s", filepath.Join(root, "python", "tests"), "-t", filepath.Join(root, "python", "tests"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"TIR_TC_OPT="+filepath.Join(bin, "tc-opt"),
		"TIR_TC_RUN="+filepath.Join(bin, "tc-run"),
		"TIR_CACHE_DIR="+t.TempDir(),
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -m unittest: %v\n%s", py, err, out)
	}
	ran := regexp.MustCompile(`Ran (\d+) tests?`).FindStringSubmatch(string(out))
	if ran == nil || ran[1] == "0" {
		t.Fatalf("the Python tests ran nothing:\n%s", out)
	}
	var skipped []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "skipped") {
			skipped = append(skipped, strings.TrimSpace(l))
		}
	}
	t.Logf("%s Python tests passed (%s)", ran[1], py)
	for _, s := range skipped {
		t.Log(s)
	}
}

// pythonTools builds tc-opt and tc-run from this tree into a temporary
// directory, for the Python package's tests to call.
func pythonTools(t *testing.T) string {
	bin := t.TempDir()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if out, err := exec.Command(goTool, "build", "-o", bin+string(filepath.Separator), "tir/tools/tc-opt", "tir/tools/tc-run").CombinedOutput(); err != nil {
		t.Fatalf("building tc-opt and tc-run: %v\n%s", err, out)
	}
	return bin
}

// TestPythonGPUEmulated runs the package's GPU tests (python/tests/
// test_gpu.py: a module compiled with target="nvptx64", called on arrays
// behind __cuda_array_interface__) under the CUDA driver emulator: the
// library built here from the same module's kernels, compiled for the
// CPU, stands in for libcuda (TIR_CUDA_DRIVER), and device memory is host
// memory. On a machine with a GPU, test/gpu/run.sh runs the same tests on
// CuPy arrays and PyTorch CUDA tensors.
func TestPythonGPUEmulated(t *testing.T) {
	py, bin, root := pythonSetup(t)
	// The module test_gpu.py compiles: its functions with their
	// derivatives, as tc-opt --derivatives prints them.
	dir := t.TempDir()
	src := filepath.Join(dir, "gpu_derivatives.tir")
	if out, err := exec.Command(filepath.Join(bin, "tc-opt"), "--derivatives", filepath.Join(root, "python", "tests", "data", "gpu.tir"), "-o", src).CombinedOutput(); err != nil {
		t.Fatalf("tc-opt --derivatives: %v\n%s", err, out)
	}
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := native.CompileModule("gpu_derivatives.tir", string(text), 2, "nvptx64")
	if err != nil {
		t.Fatalf("compile for nvptx64: %v", err)
	}
	lib, err := native.EmulatorLibrary(gm, dir)
	if err != nil {
		t.Fatalf("the driver emulator: %v", err)
	}
	cmd := exec.Command(py, "-B", "-m", "unittest", "-v", "test_gpu")
	cmd.Dir = filepath.Join(root, "python", "tests")
	cmd.Env = append(os.Environ(),
		"TIR_TC_OPT="+filepath.Join(bin, "tc-opt"),
		"TIR_TC_RUN="+filepath.Join(bin, "tc-run"),
		"TIR_CUDA_DRIVER="+lib,
		"TIR_TEST_FAKE_DEVICE=1",
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -m unittest test_gpu: %v\n%s", py, err, out)
	}
	ran := regexp.MustCompile(`Ran (\d+) tests?`).FindStringSubmatch(string(out))
	if ran == nil || ran[1] == "0" || strings.Contains(string(out), "skipped") {
		t.Fatalf("the GPU tests did not all run:\n%s", out)
	}
	t.Logf("%s Python GPU tests passed under the driver emulator:\n%s", ran[1], out)
}

// TestPipInstall runs test/pip_test.sh (make test-pip): `pip install
// ./python` into a fresh venv, offline, and the package's tests from the
// installed copy with tc-opt and tc-run found on PATH (issue 24: a
// fresh venv installs the package and passes its tests in make test).
func TestPipInstall(t *testing.T) {
	needToolchain(t)
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy, setuptools, venv, ensurepip").CombinedOutput(); err != nil {
		t.Skipf("%s cannot make a venv with NumPy and setuptools (make deps installs python3-venv, python3-numpy, python3-setuptools): %v\n%s", py, err, out)
	}
	t.Parallel()
	bin := pythonTools(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", filepath.Join(root, "test", "pip_test.sh"))
	cmd.Env = append(os.Environ(), "TIR_BIN="+bin, "TIR_PYTHON="+py)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("test/pip_test.sh: %v\n%s", err, out)
	}
	ran := regexp.MustCompile(`Ran (\d+) tests?`).FindStringSubmatch(string(out))
	if ran == nil || ran[1] == "0" || !strings.Contains(string(out), "\nOK") {
		t.Fatalf("the installed package's tests did not pass:\n%s", out)
	}
	t.Logf("pip install ./python into a fresh venv: %s tests of the installed copy passed", ran[1])
}

// pythonSetup returns a python3 with NumPy, tc-opt and tc-run built from
// this tree (their directory), and the repository's root; it skips the
// test without the toolchain or such a Python.
func pythonSetup(t *testing.T) (py, bin, root string) {
	needToolchain(t)
	py, tried := numpyPython()
	if py == "" {
		t.Skipf("no python3 with NumPy (tried %s): `make deps` installs Debian's python3-numpy", strings.Join(tried, ", "))
	}
	bin = pythonTools(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return py, bin, root
}
