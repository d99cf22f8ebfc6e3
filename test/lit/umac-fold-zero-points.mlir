// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-fold-zero-points))' | FileCheck %s

// Σ (x - izp)·w = Σ x·w - izp·Σw: with izp = -128 and the filters' sums 1+2+3+4 = 10 and
// -1-1-1-1 = -4, the accumulator starts 1280 and -512 higher, and the convolution is plain.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x4x2xi8>, %[[INIT:.*]]: tensor<1x3x3x2xi32>)
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<2x1x2x2xi8>
// CHECK: %[[C:.*]] = arith.constant dense<[1280, -512]> : tensor<2xi32>
// CHECK: %[[START:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2xi32>) outs(%[[INIT]] : tensor<1x3x3x2xi32>)
// CHECK: arith.addi
// CHECK: linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x4x4x2xi8>, tensor<2x1x2x2xi8>) outs(%[[START]] : tensor<1x3x3x2xi32>)
// CHECK-NOT: _q
func.func @conv(%x: tensor<1x4x4x2xi8>, %init: tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32> {
  %w = arith.constant dense<[[[[1, 2], [3, 4]]], [[[-1, -1], [-1, -1]]]]> : tensor<2x1x2x2xi8>
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 0 : i32
  %y = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w, %izp, %wzp : tensor<1x4x4x2xi8>, tensor<2x1x2x2xi8>, i32, i32) outs(%init : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
  return %y : tensor<1x3x3x2xi32>
}

// -----

// A constant bias broadcast into the accumulator (as tosa-to-linalg writes it) takes the
// correction at compile time: the accumulator starts at bias + correction, 5 + 1280 and
// -7 - 512, broadcast into the bias's own destination; nothing is added at run time.
// CHECK-LABEL: func.func @conv_bias(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x4x2xi8>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x3x3x2xi32>
// CHECK: %[[C:.*]] = arith.constant dense<[1285, -519]> : tensor<2xi32>
// CHECK: %[[START:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2xi32>) outs(%[[E]] : tensor<1x3x3x2xi32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%[[START]] : tensor<1x3x3x2xi32>)
func.func @conv_bias(%x: tensor<1x4x4x2xi8>) -> tensor<1x3x3x2xi32> {
  %w = arith.constant dense<[[[[1, 2], [3, 4]]], [[[-1, -1], [-1, -1]]]]> : tensor<2x1x2x2xi8>
  %bias = arith.constant dense<[5, -7]> : tensor<2xi32>
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x3x3x2xi32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<2xi32>) outs(%e : tensor<1x3x3x2xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  } -> tensor<1x3x3x2xi32>
  %y = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w, %izp, %wzp : tensor<1x4x4x2xi8>, tensor<2x1x2x2xi8>, i32, i32) outs(%init : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
  return %y : tensor<1x3x3x2xi32>
}

// -----

// Depthwise: one sum per (channel, multiplier) over the window; izp = 3, sums 2 and 6.
// CHECK-LABEL: func.func @depthwise(
// CHECK: arith.constant dense<{{\[}}[-6], [-18]]> : tensor<2x1xi32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm {
func.func @depthwise(%x: tensor<1x3x3x2xi8>, %init: tensor<1x2x2x2x1xi32>) -> tensor<1x2x2x2x1xi32> {
  %w = arith.constant dense<[[[[1], [2]], [[1], [2]]], [[[0], [1]], [[0], [1]]]]> : tensor<2x2x2x1xi8>
  %izp = arith.constant 3 : i32
  %wzp = arith.constant 0 : i32
  %y = linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w, %izp, %wzp : tensor<1x3x3x2xi8>, tensor<2x2x2x1xi8>, i32, i32) outs(%init : tensor<1x2x2x2x1xi32>) -> tensor<1x2x2x2x1xi32>
  return %y : tensor<1x2x2x2x1xi32>
}

// -----

// A non-zero weight zero point, or weights that are not constants, keep the quantized op.
// CHECK-LABEL: func.func @kept(
// CHECK: linalg.conv_2d_nhwc_fhwc_q
// CHECK: linalg.conv_2d_nhwc_fhwc_q
func.func @kept(%x: tensor<1x4x4x2xi8>, %w: tensor<2x1x2x2xi8>, %init: tensor<1x3x3x2xi32>) -> (tensor<1x3x3x2xi32>, tensor<1x3x3x2xi32>) {
  %cw = arith.constant dense<1> : tensor<2x1x2x2xi8>
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 2 : i32
  %zero = arith.constant 0 : i32
  %a = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %cw, %izp, %wzp : tensor<1x4x4x2xi8>, tensor<2x1x2x2xi8>, i32, i32) outs(%init : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
  %b = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w, %izp, %zero : tensor<1x4x4x2xi8>, tensor<2x1x2x2xi8>, i32, i32) outs(%init : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
  return %a, %b : tensor<1x3x3x2xi32>, tensor<1x3x3x2xi32>
}
