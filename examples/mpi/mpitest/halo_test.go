package mpitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/emit"
	"tir/tools/native"
)

// TestHaloHeader runs halo.py on the JSON of kernels it accepts and of
// kernels it must refuse, with the reason.
func TestHaloHeader(t *testing.T) {
	need(t, "python3")
	const stencil = `tir.func @lap(%%u: !tir.tensor<f32, %s>) -> !tir.tensor<f32, I[1:N - 1], J[2:M]> {
  %%e = tir.shift %%u [I + 1]
  %%w = tir.shift %%u [I - 1]
  %%n = tir.shift %%u [J - 2]
  %%a = tir.add %%e, %%w
  %%b = tir.add %%a, %%n
  tir.return %%b : !tir.tensor<f32, I[1:N - 1], J[2:M]>
}
`
	shared := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "examples", name))
		if err != nil {
			t.Skipf("../shared/examples/%s: %v", name, err)
		}
		return string(b)
	}
	for _, c := range []struct {
		name, src string
		want      []string // in halo.h, or in the error
		ok        bool
	}{
		{"f32", fmt.Sprintf(stencil, "I[0:N], J[0:M]"), []string{
			"typedef float tir_elem;", "#define TIR_MPI_ELEM MPI_FLOAT", "typedef tir_desc_f32_2 tir_desc;",
			"tir_halo_below[2] = {1, 2};", "tir_halo_above[2] = {1, 0};",
			"#define TIR_SYMBOLS(n0, n1) (int64_t)(n0) + 2, (int64_t)(n1) + 2",
			"(tc-opt --emit=extents: I: -1 +1   J: -2 +0)"}, true},
		{"laplacian_symbolic", shared("laplacian_symbolic.tir"), []string{
			"#define TIR_KERNEL laplacian", "typedef double tir_elem;", "tir_halo_below[2] = {1, 1};",
			"#define TIR_SYMBOLS(n0, n1) (int64_t)(n0) + 2, (int64_t)(n1) + 2"}, true},
		{"declared beyond the reads", fmt.Sprintf(stencil, "I[0:N], J[0:M + 1]"), []string{
			"argument 'u' dimension J is declared [0:M + 1] but reads [0:M]: declare what it reads"}, false},
		{"fixed size", shared("laplacian.tir"), []string{"3-D output"}, false},
		{"two arguments", shared("hdiff.tir"), []string{"@hdiff must take exactly one field"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, diags := native.Load(c.name+".tir", c.src)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			js, err := emit.ExtentsJSON(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "extents.json")
			if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("python3", filepath.Join("..", "halo.py"), path).CombinedOutput()
			if (err == nil) != c.ok {
				t.Fatalf("halo.py: %v, want success %v\n%s", err, c.ok, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
