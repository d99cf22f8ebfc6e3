// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-expand-exp-tanh))' | FileCheck %s

// exp on f32: NaN set aside, the input clamped to [-104, 89], k = floor(x log2(e) + 1/2) through
// the integers (no rounding instruction), r = x - k ln2 in two parts, 1 + r + r^2 P(r) by Horner's
// rule from the highest coefficient, then 2^k as two halves built from exponent bits.
// CHECK-LABEL: func.func @exp(
// CHECK-SAME: %[[X:[a-z0-9]+]]: f32
// CHECK-NOT: math.exp
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: arith.constant -1.040000e+02 : f32
// CHECK: arith.constant 8.900000e+01 : f32
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.constant 1.44269502 : f32
// CHECK: arith.fptosi
// CHECK: arith.cmpf ogt
// CHECK: arith.constant 0.693359375 : f32
// CHECK: arith.constant -2.12194442E-4 : f32
// CHECK: arith.constant 1.98756912E-4 : f32
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.shrsi
// CHECK: arith.constant 127 : i32
// CHECK: arith.constant 23 : i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : f32
// CHECK: return %[[R]]
func.func @exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// tanh on vectors: the odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) with x's sign above.
// CHECK-LABEL: func.func @tanh(
// CHECK-NOT: math.tanh
// CHECK: %[[A:.*]] = math.absf %{{.*}} : vector<4xf32>
// CHECK: arith.constant dense<-0.00570498873> : vector<4xf32>
// CHECK: arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: arith.divf
// CHECK: %[[LARGE:.*]] = math.copysign
// CHECK: %[[SMALL_RANGE:.*]] = arith.cmpf olt, %[[A]], %{{.*}} : vector<4xf32>
// CHECK: arith.select %[[SMALL_RANGE]], %{{.*}}, %[[LARGE]] : vector<4xi1>, vector<4xf32>
func.func @tanh(%x: vector<4xf32>) -> vector<4xf32> {
  %y = math.tanh %x : vector<4xf32>
  return %y : vector<4xf32>
}

// Other types are left to the lowering.
// CHECK-LABEL: func.func @f64(
// CHECK: math.exp %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}
