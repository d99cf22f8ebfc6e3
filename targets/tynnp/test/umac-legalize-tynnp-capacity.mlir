// umac-legalize-tynnp with a DM too small for a convolution's tensors (here -dm-kib=1): a
// compile error at the convolution naming every tensor's bytes and the capacity, exit code 1.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-legalize-tynnp{attributes="-dm-kib=1"})' 2>&1 | FileCheck %s
// CHECK: umac-legalize-tynnp-capacity.mlir:9:8: error: tynnp cannot lower tynnp.conv2d: the convolution's tensors need 1472 bytes of DM (input 256, filter 144, bias 16, multipliers 4, shifts 1, output 1024), DM has 1024 (-dm-kib=1); tiling is not done yet
func.func private @tynnp_1(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi32> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x4xi8>}> : () -> tensor<4x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  return %c : tensor<1x8x8x4xi32>
}
