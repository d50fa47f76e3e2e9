package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/tir/interp"
	"tir/tools/emit"
	"tir/tools/native"
)

// TestGPUCoarsening: at -O2 every GPU thread computes 4 points of its
// kernel's outermost direction (gpu-kernel-outlining{coarsen=4}): z of a
// 3-D kernel, y of a 2-D one, and x of a 1-D one, where a thread's points
// are a block apart. Each program runs under the driver emulator for
// extents around multiples of 4 (and of 1024, the points of a 1-D block),
// so that both the unguarded copies and the loop over the last points
// run, and is compared element by element with values computed here.
func TestGPUCoarsening(t *testing.T) {
	needToolchain(t)
	cases := []struct {
		name, src string
		// grid is the launch's grid formula of the coarsened direction.
		grid  string
		sizes []map[string]int64
		// count is the number of result elements.
		count func(syms map[string]int64) int
		// want computes result element idx (row-major) from the input.
		want func(x *interp.Tensor, syms map[string]int64, idx int) float64
	}{
		{
			name: "3-D, z",
			// K is longer than a warp: shorter, it would be linearized
			// with J and I into x (gpu-kernel-outlining's mapping).
			src: `tir.func @f(%x: !tir.tensor<f64, I[-1:N+1], J[0:3], K[0:40]>) -> !tir.tensor<f64, I[0:N], J[0:3], K[0:40]> {
  %two = tir.constant 2.0 : f64
  %e = tir.shift %x [I + 1]
  %w = tir.shift %x [I - 1]
  %c = tir.mul %two, %x
  %s = tir.sub %e, %c
  %r = tir.add %s, %w
  tir.return %r : !tir.tensor<f64, I[0:N], J[0:3], K[0:40]>
}`,
			grid:  "min(max(N ceildiv 4, 1), 65535)",
			sizes: sweep("N", 0, 1, 2, 3, 4, 5, 7, 8, 9, 13),
			count: func(s map[string]int64) int { return int(s["N"]) * 120 },
			want: func(x *interp.Tensor, _ map[string]int64, idx int) float64 {
				// Input rows are I + 1 = 0..N+1; output point (i, j, k).
				jk := idx % 120
				i := idx / 120
				at := func(r int) float64 { return x.F64[r*120+jk] }
				return at(i+2) - 2*at(i+1) + at(i)
			},
		},
		{
			name: "2-D, y",
			src: `tir.func @f(%x: !tir.tensor<f64, I[0:N], J[0:M+1]>) -> !tir.tensor<f64, I[0:N], J[0:M]> {
  %e = tir.shift %x [J + 1]
  %r = tir.sub %e, %x
  tir.return %r : !tir.tensor<f64, I[0:N], J[0:M]>
}`,
			grid: "min(max(N ceildiv 32, 1), 65535)",
			sizes: []map[string]int64{
				{"N": 0, "M": 5}, {"N": 1, "M": 33}, {"N": 31, "M": 3}, {"N": 32, "M": 40},
				{"N": 33, "M": 7}, {"N": 35, "M": 1}, {"N": 70, "M": 9},
			},
			count: func(s map[string]int64) int { return int(s["N"] * s["M"]) },
			want: func(x *interp.Tensor, s map[string]int64, idx int) float64 {
				m := int(s["M"])
				i, j := idx/m, idx%m
				return x.F64[i*(m+1)+j+1] - x.F64[i*(m+1)+j]
			},
		},
		{
			name: "1-D, x",
			src: `tir.func @f(%x: !tir.tensor<f64, I[0:N]>, %y: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %three = tir.constant 3.0 : f64
  %a = tir.mul %three, %x
  %r = tir.add %a, %y
  tir.return %r : !tir.tensor<f64, I[0:N]>
}`,
			grid:  "max(N ceildiv 1024, 1)",
			sizes: sweep("N", 0, 1, 255, 256, 257, 1023, 1024, 1025, 1279, 2048, 2300),
			count: func(s map[string]int64) int { return int(s["N"]) },
			want:  nil, // two inputs: checked below
		},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "coarsen.tir")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			fn, gm := compileGPU(t, path)
			launch, err := emit.LaunchJSON(gm)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(launch, `"`+c.grid+`"`) {
				t.Fatalf("the kernel is not coarsened by 4: no grid %q in\n%s", c.grid, launch)
			}
			prog, err := native.BuildGPU(gm, fn, t.TempDir(), native.GPUOptions{Emulate: true})
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			for _, syms := range c.sizes {
				args := randomArgs(t, fn, syms, syms["N"]+1)
				outs, _, err := prog.Run(args, syms, 1)
				if err != nil {
					t.Fatalf("%v: %v", syms, err)
				}
				got := outs[0]
				if n := c.count(syms); n != got.Len() {
					t.Fatalf("%v: %d elements, want %d", syms, got.Len(), n)
				}
				for i := 0; i < got.Len(); i++ {
					var w float64
					if c.want != nil {
						w = c.want(args[0], syms, i)
					} else {
						w = 3*args[0].F64[i] + args[1].F64[i]
					}
					if got.Masked(i) || got.F64[i] != w {
						t.Fatalf("%v: element %d = %v, want %v", syms, i, got.F64[i], w)
					}
				}
			}
		})
	}
}

// sweep is one size map per value of the symbol.
func sweep(sym string, vals ...int64) []map[string]int64 {
	var out []map[string]int64
	for _, v := range vals {
		out = append(out, map[string]int64{sym: v})
	}
	return out
}
