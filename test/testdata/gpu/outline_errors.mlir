// RUN: tc-opt --gpu-kernel-outlining --split-input-file --verify-diagnostics
// What cannot run in a kernel.

func.func @alloc_in_nest(%out: memref<8x4xf32>) {
  affine.for %i = 0 to 8 {
    // expected-error @+1 {{gpu-kernel-outlining: 'memref.alloc' cannot run in a kernel: allocate temporaries outside the loop nests (convert-tir-to-affine{scan-columns=false} does, for GPU targets)}}
    %t = memref.alloc() : memref<4xf32>
    affine.for %j = 0 to 4 {
      %x = affine.load %t[%j] : memref<4xf32>
      affine.store %x, %out[%i, %j] : memref<8x4xf32>
    }
    memref.dealloc %t : memref<4xf32>
  } {tir.parallel}
  func.return
}

// -----

func.func @assert_on_data(%m: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  %v = affine.load %m[0] : memref<4xi32>
  %ok = arith.cmpi sge, %v, %c0 : i32
  // expected-error @+1 {{gpu-kernel-outlining: 'cf.assert' cannot run in a kernel: a check must depend only on sizes and come before the loop nests}}
  cf.assert %ok, "negative"
  func.return
}

// -----

// Versions of the nests on a temporary's size (convert-tir-to-affine
// under tir-temporaries{recompute-above}): a CPU-only form.
func.func @versions(%out: memref<?xf32>, %n: index) {
  %c64 = arith.constant 64 : index
  %fits = arith.cmpi ule, %n, %c64 : index
  // expected-error @+1 {{gpu-kernel-outlining: a function's versions on the size of its temporaries (tir-temporaries{recompute-above}) are for CPU targets: GPU pipelines leave recompute-above at 0}}
  scf.if %fits {
    affine.for %i = 0 to %n {
      %z = arith.constant 0.0 : f32
      affine.store %z, %out[%i] : memref<?xf32>
    } {tir.parallel}
  } else {
  } {tir.versions}
  func.return
}
