module attributes {gpu.container_module} {
  gpu.module @laplacian_kernels {
    gpu.func @laplacian_k0(%arg0: memref<7x9x9xf32>, %arg1: memref<5x7x9xf32>, %arg2: index) kernel attributes {gpu.known_block_size = array<i32: 32, 8, 1>} {
      %0 = gpu.block_id  x
      %1 = gpu.thread_id  x
      %2 = gpu.block_dim  x
      %3 = gpu.grid_dim  x
      %4 = arith.muli %0, %2 : index
      %5 = arith.addi %4, %1 : index
      %c9 = arith.constant 9 : index
      %6 = arith.cmpi slt, %5, %c9 : index
      scf.if %6 {
        %c0 = arith.constant 0 : index
        %7 = memref.load %arg0[%c0, %c0, %5] : memref<7x9x9xf32>
        memref.store %7, %arg1[%c0, %c0, %5] : memref<5x7x9xf32>
      }
      gpu.return
    }
  }
  func.func @laplacian(%arg0: memref<7x9x9xf32>, %arg1: memref<5x7x9xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func  @laplacian_kernels::@laplacian_k0 blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1) args(%arg0 : memref<7x9x9xf32>, %arg1 : memref<5x7x9xf32>, %c1 : index)
    return
  }
}

