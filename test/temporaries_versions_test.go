package test

import (
	"strings"
	"testing"

	"tir/dialects/tir/interp"
	"tir/passes"
)

// A sum over an edge's two vertices, gathered by the vertices: a value
// that tir-temporaries versions on its size (recompute-above). With the
// limit at 64 bytes, a mesh of 8 edges keeps the temporary (64 bytes) and
// one of 9 edges recomputes the sum in the gather; both are checked
// against sums computed here and against the interpreter, at -O2 (whose
// masked updates become branches: sink-masked-updates) and with threads.
// The temporary goes through a buffer slot, as one outside the versions
// does: allocated afresh at every call, it cost nabla 40% at the DRAM
// size (page faults).
const versionedEdgeSum = `tir.func @edge_sum(%pp: !tir.tensor<f64, Vertex[0:NV]>, %e2v: !tir.tensor<i32, Edge[0:NE], E2V[0:2]>,
                    %v2e: !tir.tensor<i32, Vertex[0:NV], V2E[0:3]>) -> !tir.tensor<f64, Vertex[0:NV]> {
  %ppe = tir.gather %pp [Vertex = %e2v]
  %sum = tir.reduce add %ppe over [E2V]
  %sv = tir.gather %sum [Edge = %v2e]
  %s = tir.reduce add %sv over [V2E]
  tir.return %s : !tir.tensor<f64, Vertex[0:NV]>
}
`

func TestVersionedTemporary(t *testing.T) {
	needToolchain(t)
	affine := lowerToAffine(t, versionedEdgeSum, "--tir-temporaries=recompute-above=64", "--convert-tir-to-affine")
	if !strings.Contains(affine, "arith.cmpi ule") || strings.Count(affine, "memref.alloc") != 1 {
		t.Fatalf("want one temporary under a test of its size:\n%s", affine)
	}
	o2, err := passes.OptPipeline(2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	threads := threadsPipeline(t)
	for _, p := range []*passes.Pipeline{o2, threads} {
		if _, err := p.SetOption("tir-temporaries", "recompute-above", "64"); err != nil {
			t.Fatal(err)
		}
	}
	// The temporary in the first version is kept between calls, as one
	// at the top level is (lower/tollvm/buffers.go).
	llvm := lowerToAffine(t, versionedEdgeSum, "-O2")
	if !strings.Contains(llvm, "@tir.buffer.acquire") {
		t.Errorf("the versioned temporary is not kept between calls:\n%s", llvm)
	}
	for _, ne := range []int{8, 9} {
		const nv = 6
		// Edge e joins vertices e mod nv and (3e+1) mod nv; one end of
		// every third edge is missing (-1), and so is every vertex's
		// third neighbour but one's.
		pp := make([]float64, nv)
		for v := range pp {
			pp[v] = 1.5*float64(v) - 2
		}
		var e2v, v2e []float64
		for e := 0; e < ne; e++ {
			b := float64((3*e + 1) % nv)
			if e%3 == 2 {
				b = -1
			}
			e2v = append(e2v, float64(e%nv), b)
		}
		want := make([]float64, nv)
		for v := 0; v < nv; v++ {
			for k := 0; k < 3; k++ {
				e := (v + 2*k) % ne
				if k == 2 && v != 4 {
					e = -1
				}
				v2e = append(v2e, float64(e))
				if e < 0 {
					continue
				}
				s := 0.0
				for _, x := range e2v[2*e : 2*e+2] {
					if x >= 0 {
						s += pp[int(x)]
					}
				}
				want[v] += s
			}
		}
		args := []*interp.Tensor{
			tensorOf(t, f64, []interp.Dim{dim("Vertex", 0, nv)}, pp),
			tensorOf(t, i32, []interp.Dim{dim("Edge", 0, int64(ne)), dim("E2V", 0, 2)}, e2v),
			tensorOf(t, i32, []interp.Dim{dim("Vertex", 0, nv), dim("V2E", 0, 3)}, v2e),
		}
		syms := map[string]int64{"NV": nv, "NE": int64(ne)}
		results := runPipelines(t, versionedEdgeSum, args, syms, map[string]func(path, src string) (string, error){
			"-O2": compileWith(o2), "-O2 --threads": compileWith(threads),
		})
		for mode, r := range results {
			if r.err != nil {
				t.Fatalf("NE=%d, %s: %v", ne, mode, r.err)
			}
			for i, w := range want {
				if g := r.out[0].F64[i]; g != w || r.out[0].Masked(i) {
					t.Errorf("NE=%d, %s: vertex %d = %v, want %v", ne, mode, i, g, w)
				}
			}
		}
	}
}
