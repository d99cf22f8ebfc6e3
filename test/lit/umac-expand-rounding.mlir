// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-expand-rounding))' | FileCheck %s

// Rounding to the nearest integer, ties to even, as float additions: below 2^23 (f32; 2^52 for
// f64) adding the limit and subtracting it again rounds as the FPU does, then the sign goes back;
// at or above the limit (or NaN: `uge` is unordered) x is an integer already. Scalars and vectors;
// other element types are left alone.
// CHECK-LABEL: func.func @round(
// CHECK-SAME: %[[X:[a-z0-9]+]]: f32, %[[V:[a-z0-9]+]]: vector<4xf32>, %[[D:[a-z0-9]+]]: f64, %[[H:[a-z0-9]+]]: f16
// CHECK-NOT: math.roundeven %[[X]]
// CHECK: %[[L:.*]] = arith.constant 0x4B000000 : f32
// CHECK-NEXT: %[[A:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT: %[[BIG:.*]] = arith.cmpf uge, %[[A]], %[[L]] : f32
// CHECK-NEXT: %[[UP:.*]] = arith.addf %[[A]], %[[L]] : f32
// CHECK-NEXT: %[[DOWN:.*]] = arith.subf %[[UP]], %[[L]] : f32
// CHECK-NEXT: %[[S:.*]] = math.copysign %[[DOWN]], %[[X]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[BIG]], %[[X]], %[[S]] : f32
// CHECK: arith.constant dense<0x4B000000> : vector<4xf32>
// CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: arith.constant 0x4330000000000000 : f64
// CHECK: math.roundeven %[[H]] : f16
func.func @round(%x: f32, %v: vector<4xf32>, %d: f64, %h: f16) -> (f32, vector<4xf32>, f64, f16) {
  %rx = math.roundeven %x : f32
  %rv = math.roundeven %v : vector<4xf32>
  %rd = math.roundeven %d : f64
  %rh = math.roundeven %h : f16
  return %rx, %rv, %rd, %rh : f32, vector<4xf32>, f64, f16
}

// floor and ceil: the nearest integer, one step down (floor, where it is above x) or up (ceil,
// where it is below), and x's sign put back (ceil(-0.5) is -0.0).
// CHECK-LABEL: func.func @floor_ceil(
// CHECK-SAME: %[[X:[a-z0-9]+]]: f32, %[[V:[a-z0-9]+]]: vector<4xf32>
// CHECK-NOT: math.floor %[[X]]
// CHECK: %[[A:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT: %[[BIG:.*]] = arith.cmpf uge, %[[A]], %{{.*}} : f32
// CHECK-NEXT: %[[UP:.*]] = arith.addf %[[A]], %{{.*}} : f32
// CHECK-NEXT: %[[DOWN:.*]] = arith.subf %[[UP]], %{{.*}} : f32
// CHECK-NEXT: %[[N:.*]] = math.copysign %[[DOWN]], %[[X]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[PAST:.*]] = arith.cmpf ogt, %[[N]], %[[X]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[N]], %[[ONE]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.select %[[PAST]], %[[S]], %[[N]] : f32
// CHECK-NEXT: %[[SIGNED:.*]] = math.copysign %[[C]], %[[X]] : f32
// CHECK-NEXT: arith.select %[[BIG]], %[[X]], %[[SIGNED]] : f32
// CHECK: arith.cmpf olt, %{{.*}}, %[[V]] : vector<4xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: math.floor
// CHECK-NOT: math.ceil
func.func @floor_ceil(%x: f32, %v: vector<4xf32>) -> (f32, vector<4xf32>) {
  %f = math.floor %x : f32
  %c = math.ceil %v : vector<4xf32>
  return %f, %c : f32, vector<4xf32>
}
