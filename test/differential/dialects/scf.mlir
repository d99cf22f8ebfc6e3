// Scf dialect: for, while, if, parallel, index_switch and forall loops with results.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --convert-scf-to-cf
// RUN: %compare %s -canonicalize
// RUN: %compare %s --scf-for-loop-canonicalization

func.func @for_if(%lb: index, %ub: index, %buf: memref<?xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %buf[%i] : memref<?xf32>
    %pos = arith.cmpf ogt, %v, %zero : f32
    %next = scf.if %pos -> (f32) {
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %next : f32
  }
  return %sum : f32
}

func.func @while_switch(%n: i32, %sel: index) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.while (%x = %n) : (i32) -> i32 {
    %c = arith.cmpi sgt, %x, %c1 : i32
    scf.condition(%c) %x : i32
  } do {
  ^bb0(%y: i32):
    %d = arith.shrsi %y, %c1 : i32
    scf.yield %d : i32
  }
  %s = scf.index_switch %sel -> i32
  case 2 {
    scf.yield %r : i32
  }
  default {
    scf.yield %c1 : i32
  }
  return %s : i32
}

func.func @parallel(%buf: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %f, %buf[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  return
}

func.func @forall(%buf: memref<8xf32>, %f: f32) {
  scf.forall (%i) in (8) {
    memref.store %f, %buf[%i] : memref<8xf32>
  }
  return
}
