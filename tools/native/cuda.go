package native

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The CUDA files that `make deps` fetches (test/tools/fetch-cuda.sh) into
// <repo>/.deps/cuda.
const (
	depsPTXAS     = ".deps/cuda/bin/ptxas"
	depsLibdevice = ".deps/cuda/nvvm/libdevice/libdevice.10.bc"
)

// PTXAS returns the path of ptxas: $TIR_PTXAS, then
// <repo>/.deps/cuda/bin/ptxas, then ptxas on PATH, then
// /usr/lib/nvidia-cuda-toolkit/bin/ptxas.
func PTXAS() (string, error) {
	if p := os.Getenv("TIR_PTXAS"); p != "" {
		return p, nil
	}
	var searched []string
	if root, err := repoRoot(); err == nil {
		c := filepath.Join(root, filepath.FromSlash(depsPTXAS))
		if isExecutable(c) {
			return c, nil
		}
		searched = append(searched, c)
	} else {
		searched = append(searched, fmt.Sprintf("<repo>/%s (%v)", depsPTXAS, err))
	}
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p, nil
	}
	searched = append(searched, "ptxas on PATH")
	c := "/usr/lib/nvidia-cuda-toolkit/bin/ptxas"
	if isExecutable(c) {
		return c, nil
	}
	searched = append(searched, c)
	return "", fmt.Errorf("ptxas (CUDA) not found: $TIR_PTXAS unset, searched %s; run `make deps` to fetch it",
		strings.Join(searched, ", "))
}

// Libdevice returns the path of libdevice.10.bc: $TIR_LIBDEVICE, then
// <repo>/.deps/cuda/nvvm/libdevice/libdevice.10.bc, then
// /usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc and
// /usr/lib/cuda/nvvm/libdevice/libdevice.10.bc.
func Libdevice() (string, error) {
	if p := os.Getenv("TIR_LIBDEVICE"); p != "" {
		return p, nil
	}
	var searched, cands []string
	if root, err := repoRoot(); err == nil {
		cands = append(cands, filepath.Join(root, filepath.FromSlash(depsLibdevice)))
	} else {
		searched = append(searched, fmt.Sprintf("<repo>/%s (%v)", depsLibdevice, err))
	}
	cands = append(cands,
		"/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
		"/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc")
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
		searched = append(searched, c)
	}
	return "", fmt.Errorf("libdevice.10.bc (CUDA) not found: $TIR_LIBDEVICE unset, searched %s; run `make deps` to fetch it",
		strings.Join(searched, ", "))
}

// repoRoot returns the root of the tir checkout that holds the fetched
// dependencies: the first directory, walking up from the working directory
// and then from the running executable's directory, that has a go.mod
// declaring `module tir` and a .deps folder. Tests run in their package
// directory and the tools live in <repo>/bin, so both walks find it.
func repoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for d := filepath.Clean(dir); ; {
			if isTirModule(d) {
				if fi, err := os.Stat(filepath.Join(d, ".deps")); err == nil && fi.IsDir() {
					return d, nil
				}
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	return "", fmt.Errorf("no directory with go.mod `module tir` and .deps/ above %s", strings.Join(starts, " or "))
}

// isTirModule reports whether dir/go.mod declares module tir.
func isTirModule(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == "tir"
		}
	}
	return false
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
