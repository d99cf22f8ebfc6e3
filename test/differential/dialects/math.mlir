// Math dialect: transcendental and rounding functions on scalars and vectors.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-math-to-llvm
// RUN: %compare %s -test-math-polynomial-approximation

func.func @scalar(%x: f32, %y: f32, %n: i32) -> f32 {
  %0 = math.sqrt %x : f32
  %1 = math.exp %0 fastmath<afn> : f32
  %2 = math.log %1 : f32
  %3 = math.powf %2, %y : f32
  %4 = math.tanh %3 : f32
  %5 = math.fma %4, %x, %y : f32
  %6 = math.floor %5 : f32
  %7 = math.fpowi %6, %n : f32, i32
  %8 = math.absf %7 : f32
  return %8 : f32
}

func.func @vector(%v: vector<4xf32>, %i: vector<4xi32>) -> (vector<4xf32>, vector<4xi32>) {
  %0 = math.sin %v : vector<4xf32>
  %1 = math.erf %0 : vector<4xf32>
  %2 = math.atan2 %1, %v : vector<4xf32>
  %3 = math.ctlz %i : vector<4xi32>
  %4 = math.ipowi %3, %i : vector<4xi32>
  return %2, %4 : vector<4xf32>, vector<4xi32>
}
