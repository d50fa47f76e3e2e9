module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%m: memref<?xf32>, %n: index, %s: f32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>} {
      %bx = gpu.block_id  x
      %tx = gpu.thread_id  x
      %dx = gpu.block_dim  x
      %i0 = arith.muli %bx, %dx : index
      %i = arith.addi %i0, %tx : index
      %in = arith.cmpi slt, %i, %n : index
      scf.if %in {
        %v = memref.load %m[%i] : memref<?xf32>
        %r = arith.mulf %v, %s : f32
        memref.store %r, %m[%i] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @grid3(%m: memref<4x4x4xi32>) kernel {
      %ty = gpu.thread_id  y
      %tz = gpu.thread_id  z
      %by = gpu.block_id  y
      %bz = gpu.block_id  z
      %dy = gpu.block_dim  y
      %dz = gpu.block_dim  z
      %gx = gpu.grid_dim  x
      %gy = gpu.grid_dim  y
      %gz = gpu.grid_dim  z
      %x = arith.constant 7 : i32
      memref.store %x, %m[%ty, %tz, %gz] : memref<4x4x4xi32>
      gpu.return
    }
    gpu.func @shared(%m: memref<32xf32>) workgroup(%buf : memref<32xf32>) private(%tmp : memref<1xf32>) kernel {
      %t = gpu.thread_id  x
      %v = memref.load %m[%t] : memref<32xf32>
      memref.store %v, %buf[%t] : memref<32xf32>
      gpu.return
    }
    gpu.func @add(%a: f32, %b: f32) -> f32 {
      %s = arith.addf %a, %b : f32
      gpu.return %s : f32
    }
    gpu.func @pair(%a: f32) -> (f32, i32) attributes {note = "device"} {
      %c = arith.constant 1 : i32
      gpu.return %a, %c : f32, i32
    }
    gpu.func @noop() kernel {
      gpu.return
    }
  }
  gpu.module @"more kernels" attributes {tir.origin = "test"} {
    gpu.func @"k 0"(%x: i32) kernel {
      gpu.return
    }
  }
  gpu.module @empty {
  }
  func.func @host(%m: memref<?xf32>, %n: index, %s: f32, %sh: i32, %t: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func  @kernels::@scale blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1) args(%m : memref<?xf32>, %n : index, %s : f32)
    gpu.launch_func  @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func  @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c4, %c4, %c1) dynamic_shared_memory_size %sh
    gpu.launch_func  @"more kernels"::@"k 0" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %sh args(%sh : i32)
    %t1 = gpu.launch_func async @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    %t2 = gpu.launch_func async [%t, %t1] @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func [%t2] @kernels::@noop blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    func.return
  }
}
