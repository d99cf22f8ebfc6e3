// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-expand-sqrt))' | FileCheck %s

// The square root as float arithmetic (for CPUs without an FPU): the inverse square root from
// the bits, three Newton steps, x times it and one Heron step (a division); zeros and infinity
// pass through, below zero and NaN give NaN. Scalars and vectors of f32; other types stay.
// CHECK-LABEL: func.func @roots(
// CHECK-SAME: %[[X:[a-z0-9]+]]: f32, %[[V:[a-z0-9]+]]: vector<4xf32>, %[[D:[a-z0-9]+]]: f64
// CHECK-NOT: math.sqrt %[[X]]
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.constant 1597463007 : i32
// CHECK: arith.subi
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK-COUNT-3: arith.subf
// CHECK: arith.divf
// CHECK: arith.cmpf ogt, %[[X]]
// CHECK: arith.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: arith.divf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: math.sqrt %[[D]] : f64
// CHECK-NOT: math.sqrt %{{.*}} : f32
func.func @roots(%x: f32, %v: vector<4xf32>, %d: f64) -> (f32, vector<4xf32>, f64) {
  %rx = math.sqrt %x : f32
  %rv = math.sqrt %v : vector<4xf32>
  %rd = math.sqrt %d : f64
  return %rx, %rv, %rd : f32, vector<4xf32>, f64
}

// rsqrt is 1 / sqrt, as TFLite Micro's RSQRT computes it.
// CHECK-LABEL: func.func @inverse(
// CHECK-NOT: math.rsqrt
// CHECK: arith.constant 1597463007 : i32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[ONE]], %{{.*}} : f32
func.func @inverse(%x: f32) -> f32 {
  %r = math.rsqrt %x : f32
  return %r : f32
}
