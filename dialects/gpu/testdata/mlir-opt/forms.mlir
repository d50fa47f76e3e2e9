module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%arg0: memref<?xf32>, %arg1: index, %arg2: f32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>} {
      %0 = gpu.block_id  x
      %1 = gpu.thread_id  x
      %2 = gpu.block_dim  x
      %3 = arith.muli %0, %2 : index
      %4 = arith.addi %3, %1 : index
      %5 = arith.cmpi slt, %4, %arg1 : index
      scf.if %5 {
        %6 = memref.load %arg0[%4] : memref<?xf32>
        %7 = arith.mulf %6, %arg2 : f32
        memref.store %7, %arg0[%4] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @grid3(%arg0: memref<4x4x4xi32>) kernel {
      %0 = gpu.thread_id  y
      %1 = gpu.thread_id  z
      %2 = gpu.block_id  y
      %3 = gpu.block_id  z
      %4 = gpu.block_dim  y
      %5 = gpu.block_dim  z
      %6 = gpu.grid_dim  x
      %7 = gpu.grid_dim  y
      %8 = gpu.grid_dim  z
      %c7_i32 = arith.constant 7 : i32
      memref.store %c7_i32, %arg0[%0, %1, %8] : memref<4x4x4xi32>
      gpu.return
    }
    gpu.func @shared(%arg0: memref<32xf32>) workgroup(%arg1 : memref<32xf32>) private(%arg2 : memref<1xf32>) kernel {
      %0 = gpu.thread_id  x
      %1 = memref.load %arg0[%0] : memref<32xf32>
      memref.store %1, %arg1[%0] : memref<32xf32>
      gpu.return
    }
    gpu.func @add(%arg0: f32, %arg1: f32) -> f32 {
      %0 = arith.addf %arg0, %arg1 : f32
      gpu.return %0 : f32
    }
    gpu.func @pair(%arg0: f32) -> (f32, i32) attributes {note = "device"} {
      %c1_i32 = arith.constant 1 : i32
      gpu.return %arg0, %c1_i32 : f32, i32
    }
    gpu.func @noop() kernel {
      gpu.return
    }
  }
  gpu.module @"more kernels" attributes {tir.origin = "test"} {
    gpu.func @"k 0"(%arg0: i32) kernel {
      gpu.return
    }
  }
  gpu.module @empty {
  }
  func.func @host(%arg0: memref<?xf32>, %arg1: index, %arg2: f32, %arg3: i32, %arg4: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func  @kernels::@scale blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1) args(%arg0 : memref<?xf32>, %arg1 : index, %arg2 : f32)
    gpu.launch_func  @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) 
    gpu.launch_func  @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c4, %c4, %c1) dynamic_shared_memory_size %arg3 
    gpu.launch_func  @"more kernels"::@"k 0" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %arg3 args(%arg3 : i32)
    %0 = gpu.launch_func async @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) 
    %1 = gpu.launch_func async [%arg4, %0] @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) 
    gpu.launch_func [%1] @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) 
    return
  }
}

