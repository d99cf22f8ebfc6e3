// umac-primitives-tynnp packs adjacent output pixels of a convolution with few output channels
// into the NU's columns (targets/tynnp/src/graph/pixels.rs): the primitive op is the job the NPU runs,
// its constants laid out at compile time as the job reads them.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp)' | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"})' | FileCheck %s --check-prefix=OFF
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-reference-tynnp)' | FileCheck %s --check-prefix=REFERENCE
// With fewer NU columns, two pixels of 8 channels do not fit: nothing is packed.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-nu-cols=8"})' | FileCheck %s --check-prefix=OFF

// 8 output channels fill half of the 16 columns: two pixels of a group fill them. Stride 2 and a
// 2-column window: the group's window is 4 columns (pixel 0's taps at columns 0 and 1, pixel 1's
// at 2 and 3), its stride 4. Output channel q·8 + o holds channel o's taps of pixel q, zeros (the
// filter zero point) elsewhere; the bias and the per-channel scales repeat. The result stays the
// model's 1x4x2x8, which the job writes as 1x4x1x16: the same bytes.
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x4x4x1xi8>) -> tensor<1x4x2x8xi8>
// CHECK-NEXT: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[}}[{{\[}}[1], [2], [0], [0]]], [{{\[}}[3], [4], [0], [0]]], [{{\[}}[5], [6], [0], [0]]], [{{\[}}[7], [8], [0], [0]]], [{{\[}}[9], [10], [0], [0]]], [{{\[}}[11], [12], [0], [0]]], [{{\[}}[13], [14], [0], [0]]], [{{\[}}[15], [16], [0], [0]]], [{{\[}}[0], [0], [1], [2]]], [{{\[}}[0], [0], [3], [4]]], [{{\[}}[0], [0], [5], [6]]], [{{\[}}[0], [0], [7], [8]]], [{{\[}}[0], [0], [9], [10]]], [{{\[}}[0], [0], [11], [12]]], [{{\[}}[0], [0], [13], [14]]], [{{\[}}[0], [0], [15], [16]]]]> : tensor<16x1x4x1xi8>}>
// CHECK-NEXT: %[[B:.*]] = "tosa.const"() <{values = dense<[10, 11, 12, 13, 14, 15, 16, 17, 10, 11, 12, 13, 14, 15, 16, 17]> : tensor<16xi32>}>
// CHECK-NEXT: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<16xi32>}>
// CHECK-NEXT: %[[S:.*]] = "tosa.const"() <{values = dense<[30, 31, 32, 33, 34, 35, 36, 37, 30, 31, 32, 33, 34, 35, 36, 37]> : tensor<16xi8>}>
// CHECK-NEXT: %[[C:.*]] = "tynnp.conv2d"(%arg0, %[[W]], %[[B]], %[[M]], %[[S]]) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = -1 : i64, max = 127 : i64, min = -128 : i64, out_flags = 3 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, pixels = 2 : i64, stride_x = 4 : i64, stride_y = 1 : i64} : (tensor<1x4x4x1xi8>, tensor<16x1x4x1xi8>, tensor<16xi32>, tensor<16xi32>, tensor<16xi8>) -> tensor<1x4x2x8xi8>
// CHECK-NEXT: return %[[C]]

// Unpacked: the model's filter, no pixels attribute, stride 2.
// OFF-LABEL: func.func private @tynnp_0
// OFF: "tynnp.conv2d"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {{{.*}}, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 1 : i64} : (tensor<1x4x4x1xi8>, tensor<8x1x2x1xi8>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>) -> tensor<1x4x2x8xi8>

// What the packed job computes: the convolution of the group at stride 4 (4 rows of one group
// of 16 channels), its output stage per channel, then the model's shape (a reshape: the same
// elements in the same order).
// REFERENCE-LABEL: func.func @first
// REFERENCE: %[[C:.*]] = tosa.conv2d %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 4>} : (tensor<1x4x4x1xi8>, tensor<16x1x4x1xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x1x16xi32>
// REFERENCE: %[[R:.*]] = tosa.rescale %[[C]], {{.*}} -> tensor<1x4x1x16xi8>
// REFERENCE: %[[K:.*]] = tosa.clamp %[[R]] {{.*}} -> tensor<1x4x1x16xi8>
// REFERENCE-NEXT: %[[SHAPE:.*]] = tosa.const_shape {values = dense<[1, 4, 2, 8]> : tensor<4xindex>}
// REFERENCE-NEXT: %[[V:.*]] = tosa.reshape %[[K]], %[[SHAPE]] : (tensor<1x4x1x16xi8>, !tosa.shape<4>) -> tensor<1x4x2x8xi8>
// REFERENCE-NEXT: return %[[V]]
func.func @first(%x: tensor<1x4x4x1xi8>) -> tensor<1x4x2x8xi8> {
  %w = "tosa.const"() <{values = dense<[[[[1], [2]]], [[[3], [4]]], [[[5], [6]]], [[[7], [8]]], [[[9], [10]]], [[[11], [12]]], [[[13], [14]]], [[[15], [16]]]]> : tensor<8x1x2x1xi8>}> : () -> tensor<8x1x2x1xi8>
  %b = "tosa.const"() <{values = dense<[10, 11, 12, 13, 14, 15, 16, 17]> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<[30, 31, 32, 33, 34, 35, 36, 37]> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 2>} : (tensor<1x4x4x1xi8>, tensor<8x1x2x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x2x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x2x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x2x8xi8>
  return %r : tensor<1x4x2x8xi8>
}
