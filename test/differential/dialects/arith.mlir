// Arith dialect: integer and float arithmetic, comparisons, casts and constants.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s -convert-arith-to-llvm

func.func @int_ops(%a: i32, %b: i32) -> (i32, i1) {
  %c3 = arith.constant 3 : i32
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %c3 overflow<nsw> : i32
  %2 = arith.divsi %1, %b : i32
  %3 = arith.andi %2, %a : i32
  %4 = arith.cmpi slt, %3, %c3 : i32
  %5 = arith.select %4, %3, %a : i32
  return %5, %4 : i32, i1
}

func.func @float_ops(%x: f32, %y: f32) -> f64 {
  %0 = arith.addf %x, %y fastmath<fast> : f32
  %1 = arith.mulf %0, %y : f32
  %2 = arith.negf %1 : f32
  %3 = arith.maximumf %2, %x : f32
  %4 = arith.extf %3 : f32 to f64
  return %4 : f64
}

func.func @casts(%i: i8, %v: vector<4xi32>) -> (f32, index, vector<4xf32>) {
  %0 = arith.extsi %i : i8 to i32
  %1 = arith.sitofp %0 : i32 to f32
  %2 = arith.index_cast %0 : i32 to index
  %3 = arith.uitofp %v : vector<4xi32> to vector<4xf32>
  return %1, %2, %3 : f32, index, vector<4xf32>
}
