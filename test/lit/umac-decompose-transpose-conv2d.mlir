// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-decompose-transpose-conv2d))' | FileCheck %s

// Stride 2, int16 input with int8 weights (the case MLIR 22's own decomposition gets wrong):
// zero insertion by reshape + pad with the input zero point, then a stride-1 conv2d with the
// kernel flipped and padded by K-1+out_pad.
// CHECK-LABEL: func.func @strided_i16(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x4x3xi16>
// CHECK-NOT: tosa.transpose_conv2d
// CHECK: %[[X6:.*]] = tosa.reshape %[[X]], %{{.*}} : (tensor<1x4x4x3xi16>, !tosa.shape<6>) -> tensor<1x4x1x4x1x3xi16>
// CHECK: %[[XP:.*]] = tosa.pad %[[X6]], %{{.*}}, %[[IZP:.*]] : (tensor<1x4x1x4x1x3xi16>, !tosa.shape<12>, tensor<1xi16>) -> tensor<1x4x2x4x2x3xi16>
// CHECK: %[[XF:.*]] = tosa.reshape %[[XP]], %{{.*}} -> tensor<1x8x8x3xi16>
// CHECK: %[[XD:.*]] = tosa.slice %[[XF]], %{{.*}}, %{{.*}} -> tensor<1x7x7x3xi16>
// CHECK: %[[W1:.*]] = tosa.reverse %{{.*}} {axis = 1 : i32} : (tensor<2x3x3x3xi8>) -> tensor<2x3x3x3xi8>
// CHECK: %[[W2:.*]] = tosa.reverse %[[W1]] {axis = 2 : i32}
// CHECK: tosa.conv2d %[[XD]], %[[W2]], %{{.*}}, %[[IZP]], %{{.*}} {acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 2, 1, 3, 3>, stride = array<i64: 1, 1>} : ({{.*}}) -> tensor<1x8x11x2xi48>
func.func @strided_i16(%x: tensor<1x4x4x3xi16>) -> tensor<1x8x11x2xi48> {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x3x3x3xi8>}> : () -> tensor<2x3x3x3xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<1xi48>}> : () -> tensor<1xi48>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %wzp = "tosa.const"() <{values = dense<91> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.transpose_conv2d %x, %w, %b, %izp, %wzp {acc_type = i48, out_pad = array<i64: 0, -1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x4x3xi16>, tensor<2x3x3x3xi8>, tensor<1xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x8x11x2xi48>
  return %y : tensor<1x8x11x2xi48>
}

// -----

// Stride 1 needs no zero insertion.
// CHECK-LABEL: func.func @unit_stride(
// CHECK-NOT: tosa.pad
// CHECK: tosa.reverse
// CHECK: tosa.conv2d {{.*}}pad = array<i64: 0, 0, 2, 2>, stride = array<i64: 1, 1>{{.*}} -> tensor<1x5x7x1xi32>
func.func @unit_stride(%x: tensor<1x5x5x3xi8>) -> tensor<1x5x7x1xi32> {
  %w = "tosa.const"() <{values = dense<2> : tensor<1x1x3x3xi8>}> : () -> tensor<1x1x3x3xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = i32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x3xi8>, tensor<1x1x3x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x7x1xi32>
  return %y : tensor<1x5x7x1xi32>
}

// -----

// Dynamic shapes are left to MLIR's own decomposition.
// CHECK-LABEL: func.func @dynamic(
// CHECK: tosa.transpose_conv2d
func.func @dynamic(%x: tensor<?x5x5x3xi8>) -> tensor<?x5x7x1xi32> {
  %w = "tosa.const"() <{values = dense<2> : tensor<1x1x3x3xi8>}> : () -> tensor<1x1x3x3xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = i32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x5x5x3xi8>, tensor<1x1x3x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<?x5x7x1xi32>
  return %y : tensor<?x5x7x1xi32>
}
