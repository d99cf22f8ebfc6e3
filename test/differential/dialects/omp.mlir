// Omp dialect: parallel regions, worksharing loops, barriers, critical sections and atomics.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-openmp-to-llvm

omp.critical.declare @lock hint(contended)

func.func @parallel_loop(%buf: memref<16xf32>, %n: index, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop schedule(static) {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %f, %buf[%i] : memref<16xf32>
        omp.yield
      }
    }
    omp.barrier
    omp.critical(@lock) {
      omp.terminator
    }
    omp.terminator
  }
  return
}

func.func @atomics(%p: !llvm.ptr, %v: i32) {
  omp.atomic.update %p : !llvm.ptr {
  ^bb0(%x: i32):
    %s = arith.addi %x, %v : i32
    omp.yield(%s : i32)
  }
  omp.atomic.write %p = %v : !llvm.ptr, i32
  omp.taskwait
  return
}
