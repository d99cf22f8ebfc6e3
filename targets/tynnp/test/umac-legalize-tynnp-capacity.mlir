// umac-legalize-tynnp with a DM too small for a convolution's tensors (here -dm-kib=1): a
// convolution is tiled by output rows, double-buffered, so the error comes when even tiles of one
// output row do not fit (two input tiles of three 1024-byte rows, two output tiles of one
// 1024-byte row): a compile error at the convolution naming every region's bytes and the
// capacity, exit code 1. So for a depthwise convolution (tiled on the vector units).
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes="-dm-kib=1"})' 2>&1 | FileCheck %s
// Scheduled first (as every compile is), the schedule gives the error.
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp{attributes="-dm-kib=1"})' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: umac-legalize-tynnp-capacity.mlir:15:8: error: tynnp cannot schedule tynnp.conv2d: the convolution's tensors need 8816 bytes of DM even in tiles of one output row, double-buffered (input tile 1 3072, input tile 2 3072, filter 576, bias 16, multipliers 4, shifts 1, output tile 1 1024, output tile 2 1024), DM has 1024 (-dm-kib=1)
// CHECK: umac-legalize-tynnp-capacity.mlir:15:8: error: tynnp cannot lower tynnp.conv2d: the convolution's tensors need 8816 bytes of DM even in tiles of one output row, double-buffered (input tile 1 3072, input tile 2 3072, filter 576, bias 16, multipliers 4, shifts 1, output tile 1 1024, output tile 2 1024), DM has 1024 (-dm-kib=1)
func.func private @tynnp_1(%x: tensor<1x8x64x16xi8>) -> tensor<1x8x64x4xi32> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x16xi8>}> : () -> tensor<4x3x3x16xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x64x16xi8>, tensor<4x3x3x16xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x64x4xi32>
  return %c : tensor<1x8x64x4xi32>
}

// -----

// CHECK: umac-legalize-tynnp-capacity.mlir:26:8: error: tynnp cannot lower tynnp.depthwise_conv2d: the depthwise convolution's tensors need 1040 bytes of DM even in tiles of one output row, double-buffered (input tile 1 192, input tile 2 192, filter 72, bias 32, multipliers 4, shifts 1, output tile 1 256, output tile 2 256), DM has 1024 (-dm-kib=1)
func.func private @tynnp_2(%x: tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi32> attributes {umac.composite = "tynnp.depthwise_conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  return %c : tensor<1x8x8x8xi32>
}

