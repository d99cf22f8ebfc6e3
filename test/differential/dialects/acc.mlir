// Acc dialect: OpenACC data clauses, compute constructs, loops and declare/update directives.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

func.func @compute(%a: memref<10xf32>, %b: memref<10xf32>, %n: i32) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 10 : index
  %st = arith.constant 1 : index
  %ca = acc.copyin varPtr(%a : memref<10xf32>) -> memref<10xf32>
  %cb = acc.create varPtr(%b : memref<10xf32>) -> memref<10xf32>
  acc.parallel num_gangs({%n : i32}) dataOperands(%ca, %cb : memref<10xf32>, memref<10xf32>) {
    acc.loop gang control(%i : index) = (%lb : index) to (%ub : index) step (%st : index) {
      %v = memref.load %ca[%i] : memref<10xf32>
      memref.store %v, %cb[%i] : memref<10xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  acc.copyout accPtr(%cb : memref<10xf32>) to varPtr(%b : memref<10xf32>)
  acc.delete accPtr(%ca : memref<10xf32>)
  return
}

func.func @data(%a: memref<10xf32>) {
  %d = acc.present varPtr(%a : memref<10xf32>) -> memref<10xf32>
  acc.data dataOperands(%d : memref<10xf32>) {
    acc.terminator
  }
  %u = acc.update_device varPtr(%a : memref<10xf32>) -> memref<10xf32>
  acc.update dataOperands(%u : memref<10xf32>)
  acc.wait
  return
}
