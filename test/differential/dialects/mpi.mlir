// Mpi dialect: init/finalize, communicators, ranks, send/recv and allreduce with return values.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

func.func @mpi(%buf: memref<100xf32>) -> i32 {
  %err = mpi.init : !mpi.retval
  %comm = mpi.comm_world : !mpi.comm
  %rank = mpi.comm_rank(%comm) : i32
  %err2, %size = mpi.comm_size(%comm) : !mpi.retval, i32
  %tag = arith.constant 7 : i32
  mpi.send(%buf, %tag, %rank, %comm) : memref<100xf32>, i32, i32
  %e3 = mpi.recv(%buf, %tag, %rank, %comm) : memref<100xf32>, i32, i32 -> !mpi.retval
  %ok = mpi.retval_check %e3 = <MPI_SUCCESS> : i1
  mpi.allreduce(%buf, %buf, MPI_SUM, %comm) : memref<100xf32>, memref<100xf32>
  mpi.barrier(%comm)
  %ec = mpi.error_class %err : !mpi.retval
  mpi.finalize
  return %size : i32
}
