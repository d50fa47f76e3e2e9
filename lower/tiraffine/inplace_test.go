package tiraffine

import (
	"strings"
	"testing"

	_ "tir/dialects/affine"
	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/parser"
	_ "tir/dialects/scf"
)

// TestKeptInResult checks the test on lowered code that decides whether a
// temporary %t can live in the result buffer %r: each case is the body of
// a function whose first argument is %r, which allocates %t first and
// frees it last unless it says where.
func TestKeptInResult(t *testing.T) {
	const zero = `
  affine.for %i = 0 to %n {
    affine.store %cst, %t[%i] : memref<?xf64>
  }`
	cases := []struct {
		name string
		body string
		kept bool
	}{
		{"read at the point before the store", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    %1 = arith.addf %0, %0 : f64
    affine.store %1, %r[%i] : memref<?xf64>
  }`, true},
		{"read in a test and an inner loop before the store", zero + `
  affine.for %i = 0 to %n {
    %c = arith.cmpi slt, %i, %n : index
    scf.if %c {
      %0 = affine.load %t[%i] : memref<?xf64>
    }
    affine.for %j = 0 to 3 {
      %2 = affine.load %t[%i] : memref<?xf64>
    }
    %1 = affine.load %t[%i] : memref<?xf64>
    affine.store %1, %r[%i] : memref<?xf64>
  }`, true},
		{"read after the store", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %0, %r[%i] : memref<?xf64>
    %1 = affine.load %t[%i] : memref<?xf64>
    affine.store %1, %s[%i] : memref<?xf64>
  }`, false},
		{"read at a shifted point", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i + 1] : memref<?xf64>
    affine.store %0, %r[%i] : memref<?xf64>
  }`, false},
		{"read by a later nest", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %0, %r[%i] : memref<?xf64>
  }
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %0, %s[%i] : memref<?xf64>
  }`, false},
		{"read by an earlier nest", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %0, %s[%i] : memref<?xf64>
  }
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %0, %r[%i] : memref<?xf64>
  }`, true},
		{"written in the nest", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %cst, %t[%i] : memref<?xf64>
    affine.store %0, %r[%i] : memref<?xf64>
  }`, false},
		{"stored in a loop its subscripts do not take", zero + `
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 2 {
      %0 = affine.load %t[%i] : memref<?xf64>
      %1 = arith.addf %0, %0 : f64
      affine.store %1, %r[%i] : memref<?xf64>
    }
  }`, false},
		{"stored twice", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    affine.store %0, %r[%i] : memref<?xf64>
  }
  affine.for %i = 0 to %n {
    affine.store %cst, %r[%i] : memref<?xf64>
  }`, false},
		{"stored at subscripts computed in the nest", zero + `
  affine.for %i = 0 to %n {
    %k = arith.addi %i, %n : index
    %0 = affine.load %t[%i + symbol(%k)] : memref<?xf64>
    affine.store %0, %r[%i + symbol(%k)] : memref<?xf64>
  }`, false},
		{"stored at subscripts read from data", zero + `
  affine.for %i = 0 to %n {
    %0 = affine.load %t[%i] : memref<?xf64>
    memref.store %0, %r[%i] : memref<?xf64>
  }`, false},
		{"versions: one arm each", `
  %c = arith.cmpi slt, %n, %n : index
  scf.if %c {
    %t = memref.alloc(%n) : memref<?xf64>
    affine.for %i = 0 to %n {
      affine.store %cst, %t[%i] : memref<?xf64>
    }
    affine.for %i = 0 to %n {
      %0 = affine.load %t[%i] : memref<?xf64>
      affine.store %0, %r[%i] : memref<?xf64>
    }
    memref.dealloc %t : memref<?xf64>
  } else {
    affine.for %i = 0 to %n {
      affine.store %cst, %r[%i] : memref<?xf64>
    }
  }`, true},
	}
	for _, c := range cases {
		body := c.body
		if !strings.Contains(body, "memref.alloc") {
			body = "\n  %t = memref.alloc(%n) : memref<?xf64>" + body + "\n  memref.dealloc %t : memref<?xf64>"
		}
		src := `func.func @f(%r: memref<?xf64>, %s: memref<?xf64>, %n: index) {
  %cst = arith.constant 0.0 : f64` + body + `
  func.return
}
`
		m, diags := parser.Parse(c.name, src)
		if len(diags) > 0 {
			t.Fatalf("%s: %v", c.name, diags)
		}
		f := m.Body().Ops[0]
		var alloc *ir.Operation
		f.Walk(func(o *ir.Operation) bool {
			if alloc == nil && o.Is(memref.Alloc) {
				alloc = o
			}
			return true
		})
		r := f.Regions[0].Entry().Args[0]
		if _, kept := keptInResult(ir.UsesIn(f), alloc.Results[0], r); kept != c.kept {
			t.Errorf("%s: kept in the result's buffer: %v, want %v", c.name, kept, c.kept)
		}
	}
}
