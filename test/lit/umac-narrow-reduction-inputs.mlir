// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-narrow-reduction-inputs),canonicalize)' | FileCheck %s

// A mean over rows as TOSA lowers it after fusion: the sum reads a convolution's int32 accumulators through
// a unit expansion, requantizes each to int8 (the per-channel scale a constant input) and widens
// it again. Split at the int8 value: an elementwise op over the unexpanded accumulators computes
// it (4x2x8 int8, 64 bytes instead of the accumulators' 256), the sum widens each as it adds it.
// The sum keeps the scale as an input it no longer reads.
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#ch6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d5)>
#out6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d4, d5)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH4:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @mean(
// CHECK: %[[ACC:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x2x8xi8>
// CHECK: %[[Q:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[CH4]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]], %{{.*}} : tensor<1x4x2x8xi32>, tensor<8xi32>) outs(%[[EMPTY]] : tensor<1x4x2x8xi8>)
// CHECK: ^bb0(%[[A:.*]]: i32, %[[S:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[A]], %[[S]] : i32
// CHECK-NEXT: %[[T:.*]] = arith.trunci %[[M]] : i32 to i8
// CHECK-NEXT: linalg.yield %[[T]] : i8
// CHECK: %[[QE:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 1, 2, 1, 8] : tensor<1x4x2x8xi8> into tensor<1x4x1x2x1x8xi8>
// CHECK: linalg.generic {{.*}} ins(%[[QE]], %{{.*}} : tensor<1x4x1x2x1x8xi8>, tensor<8xi32>)
// CHECK: ^bb0(%[[N:.*]]: i8, %{{.*}}: i32, %[[OUT:.*]]: i32):
// CHECK-NEXT: %[[W:.*]] = arith.extsi %[[N]] : i8 to i32
// CHECK-NEXT: %[[Z:.*]] = arith.subi %[[W]], %c-128_i32 : i32
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[Z]], %[[OUT]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
func.func @mean(%x: tensor<1x6x4x3xi8>, %f: tensor<8x3x3x3xi8>) -> tensor<1x1x2x1x8xi32> {
  %scale = arith.constant dense<3> : tensor<8xi32>
  %zp = arith.constant -128 : i32
  %zero = arith.constant 0 : i32
  %acc_init = tensor.empty() : tensor<1x4x2x8xi32>
  %acc_zero = linalg.fill ins(%zero : i32) outs(%acc_init : tensor<1x4x2x8xi32>) -> tensor<1x4x2x8xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f : tensor<1x6x4x3xi8>, tensor<8x3x3x3xi8>) outs(%acc_zero : tensor<1x4x2x8xi32>) -> tensor<1x4x2x8xi32>
  %e = tensor.expand_shape %acc [[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 1, 2, 1, 8]
    : tensor<1x4x2x8xi32> into tensor<1x4x1x2x1x8xi32>
  %empty = tensor.empty() : tensor<1x1x2x1x8xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x1x2x1x8xi32>) -> tensor<1x1x2x1x8xi32>
  %sum = linalg.generic {indexing_maps = [#id6, #ch6, #out6],
                         iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %scale : tensor<1x4x1x2x1x8xi32>, tensor<8xi32>) outs(%init : tensor<1x1x2x1x8xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %m = arith.muli %a, %s : i32
    %t = arith.trunci %m : i32 to i8
    %w = arith.extsi %t : i8 to i32
    %z = arith.subi %w, %zp : i32
    %r = arith.addi %z, %out : i32
    linalg.yield %r : i32
  } -> tensor<1x1x2x1x8xi32>
  return %sum : tensor<1x1x2x1x8xi32>
}

// -----

// Left alone: the narrow value depends on the accumulator (a running maximum narrowed); a
// reduction that reads int8 already (its narrow values would take as many bytes); one that reads
// a function argument (read where it is: the narrow values would be a new buffer).
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @kept(%x: tensor<4x8xi32>, %y: tensor<4x8xi8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<4xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<4xi32>) -> tensor<4xi32>
  %max = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%a: i32, %out: i32):
    %m = arith.maxsi %a, %out : i32
    %t = arith.trunci %m : i32 to i8
    %w = arith.extsi %t : i8 to i32
    linalg.yield %w : i32
  } -> tensor<4xi32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x8xi8>) outs(%init : tensor<4xi32>) {
  ^bb0(%a: i8, %out: i32):
    %w = arith.extsi %a : i8 to i32
    %v = arith.trunci %w : i32 to i8
    %u = arith.extsi %v : i8 to i32
    %r = arith.addi %u, %out : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  %arg = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%a: i32, %out: i32):
    %t = arith.trunci %a : i32 to i8
    %w = arith.extsi %t : i8 to i32
    %r = arith.addi %w, %out : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  return %max, %sum, %arg : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
