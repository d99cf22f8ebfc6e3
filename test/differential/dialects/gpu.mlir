// Gpu dialect: kernel modules, launches, thread ids, barriers, shuffles and async tokens.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --gpu-kernel-outlining

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%buf: memref<?xf32>, %f: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %base = arith.muli %bid, %dim : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %buf[%i] : memref<?xf32>
      %w = arith.mulf %v, %f : f32
      %width = arith.constant 32 : i32
      %off = arith.constant 1 : i32
      %sh, %valid = gpu.shuffle xor %w, %off, %width : f32
      gpu.barrier
      memref.store %sh, %buf[%i] : memref<?xf32>
      gpu.return
    }
  }

  func.func @host(%buf: memref<?xf32>, %f: f32, %n: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memcpy async [%t1] %d, %buf : memref<?xf32>, memref<?xf32>
    %t3 = gpu.launch_func async [%t2] @kernels::@scale blocks in (%n, %c1, %c1) threads in (%c64, %c1, %c1) args(%d : memref<?xf32>, %f : f32)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      memref.store %f, %buf[%tx] : memref<?xf32>
      gpu.terminator
    }
    gpu.wait [%t3]
    return
  }
}
