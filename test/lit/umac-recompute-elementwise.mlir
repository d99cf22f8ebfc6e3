// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-recompute-elementwise))' | FileCheck %s
// Fused afterwards, nothing of the exponentials' shape is materialized: each reader computes them.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-recompute-elementwise,linalg-fuse-elementwise-ops))' | FileCheck %s --check-prefix=FUSED

// A softmax's exponentials (here x - max) are read by the sum, through an expand_shape, and by
// the output: the sum gets a clone computing the expanded shape (its maps over the three
// dimensions, the unit dimension of the first group the representative), the output keeps the op.
// CHECK-DAG: #[[X3:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[M3:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @softmax_like(
// CHECK-SAME: %[[X:.*]]: tensor<1x12xi32>, %[[M:.*]]: tensor<1x1xi32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]] : tensor<1x12xi32>, tensor<1x1xi32>) outs(%{{.*}} : tensor<1x12xi32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x1x12xi32>
// CHECK: %[[E3:.*]] = linalg.generic {indexing_maps = [#[[X3]], #[[M3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[M]] : tensor<1x12xi32>, tensor<1x1xi32>) outs(%[[EMPTY]] : tensor<1x1x12xi32>)
// CHECK: arith.subi
// CHECK: linalg.generic {{.*}} ins(%[[E3]] : tensor<1x1x12xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[E]], %{{.*}} : tensor<1x12xi32>, tensor<1x1xi32>)
// FUSED-LABEL: func.func @softmax_like(
// FUSED-SAME: %[[X:.*]]: tensor<1x12xi32>, %[[M:.*]]: tensor<1x1xi32>)
// FUSED-NOT: tensor<1x1x12xi32>
// FUSED: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]] : tensor<1x12xi32>, tensor<1x1xi32>) outs(%{{.*}} : tensor<1x1xi32>)
// FUSED-NEXT: ^bb0
// FUSED-NEXT: arith.subi
// FUSED-NEXT: arith.addi
// FUSED: linalg.generic {{.*}} ins(%[[X]], %[[M]], %[[SUM]] : tensor<1x12xi32>, tensor<1x1xi32>, tensor<1x1xi32>)
// FUSED-NEXT: ^bb0
// FUSED-NEXT: arith.subi
// FUSED-NEXT: arith.muli
// FUSED-NOT: linalg.generic
// FUSED: return
#x = affine_map<(d0, d1) -> (d0, d1)>
#m = affine_map<(d0, d1) -> (d0, 0)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#s3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @softmax_like(%x: tensor<1x12xi32>, %max: tensor<1x1xi32>) -> tensor<1x12xi32> {
  %c0 = arith.constant 0 : i32
  %e0 = tensor.empty() : tensor<1x12xi32>
  %e = linalg.generic {indexing_maps = [#x, #m, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<1x12xi32>, tensor<1x1xi32>) outs(%e0 : tensor<1x12xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %d = arith.subi %a, %b : i32
    linalg.yield %d : i32
  } -> tensor<1x12xi32>
  %e3 = tensor.expand_shape %e [[0, 1], [2]] output_shape [1, 1, 12] : tensor<1x12xi32> into tensor<1x1x12xi32>
  %s0 = tensor.empty() : tensor<1x1xi32>
  %sf = linalg.fill ins(%c0 : i32) outs(%s0 : tensor<1x1xi32>) -> tensor<1x1xi32>
  %sum = linalg.generic {indexing_maps = [#r3, #s3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e3 : tensor<1x1x12xi32>) outs(%sf : tensor<1x1xi32>) {
  ^bb0(%a: i32, %o: i32):
    %t = arith.addi %a, %o : i32
    linalg.yield %t : i32
  } -> tensor<1x1xi32>
  %y0 = tensor.empty() : tensor<1x12xi32>
  %y = linalg.generic {indexing_maps = [#x, #m, #x], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<1x12xi32>, tensor<1x1xi32>) outs(%y0 : tensor<1x12xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %p = arith.muli %a, %b : i32
    linalg.yield %p : i32
  } -> tensor<1x12xi32>
  return %y : tensor<1x12xi32>
}

// -----

// Left alone: an op rescaling a convolution's result, which would then be materialized (as
// int32) in its place, and an op a non-linalg user reads (the function's return).
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-1: arith.shrsi
// CHECK-COUNT-1: arith.addi
// CHECK: return
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @left_alone(%x: tensor<1x1x1x8xi8>, %w: tensor<4x1x1x8xi8>, %init: tensor<1x1x1x4xi32>)
    -> (tensor<1x1x1x4xi32>, tensor<1x1x1x4xi32>, tensor<1x1x1x4xi32>) {
  %c = arith.constant 3 : i32
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x1x1x8xi8>, tensor<4x1x1x8xi8>) outs(%init : tensor<1x1x1x4xi32>) -> tensor<1x1x1x4xi32>
  %e0 = tensor.empty() : tensor<1x1x1x4xi32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : tensor<1x1x1x4xi32>) outs(%e0 : tensor<1x1x1x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %s = arith.shrsi %a, %c : i32
    linalg.yield %s : i32
  } -> tensor<1x1x1x4xi32>
  %e1 = tensor.empty() : tensor<1x1x1x4xi32>
  %u = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x1x4xi32>) outs(%e1 : tensor<1x1x1x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %t = arith.addi %a, %c : i32
    linalg.yield %t : i32
  } -> tensor<1x1x1x4xi32>
  %e2 = tensor.empty() : tensor<1x1x1x4xi32>
  %v = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x1x4xi32>) outs(%e2 : tensor<1x1x1x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %t = arith.muli %a, %c : i32
    linalg.yield %t : i32
  } -> tensor<1x1x1x4xi32>
  return %u, %v, %u : tensor<1x1x1x4xi32>, tensor<1x1x1x4xi32>, tensor<1x1x1x4xi32>
}
