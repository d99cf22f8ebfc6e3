// umac-legalize-tynnp on a convolution with one input channel (8x8x1, sixteen 3x3 filters, pad
// 1): its three kernel columns fold into three input channels, so the NU makes one pass over a
// 3-channel input instead of three over a 1-channel one. The call is @tynnp_conv2d_folded_k3_t4
// (@tynnp_conv2d_folded_k3 specialized for its four tiles)
// with the folded descriptor (iw 8, ic 3, kw 1, stride 1 across, no left padding), the gather's
// pitches and one (source, destination, pixels, bytes a pixel) per copy: the six inner output
// columns' three taps at once, each border column's two taps inside the input; each tile's
// input is a dma.fill with the input zero point, then those three strided dma.copy, then the
// job (in the loop over the tiles).
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s

// CHECK-LABEL: func.func private @tynnp_0(
// The tile table, nine values a tile: the input's offset in its tile buffer, input rows, top
// padding, output rows, the output's offset in its tile buffer, the input's offset and bytes,
// the output's.
// Tile 0: 3 input rows under 1 row of padding, 2 output rows, from input byte 0 (8 bytes a row
// in DDR), 72 bytes gathered (24 a row), to output byte 0, 1024 bytes (2 rows of 8 x 16 int32);
// tile 1 from input row 1 (byte 8), 4 rows (96 bytes).
// CHECK: arith.constant dense<[0, 3, 1, 2, 0, 0, 72, 0, 1024, 0, 4, 0, 2, 0, 8, 96, 1024, 1024, 0, 4, 0, 2, 0, 24, 96, 2048, 1024, 0, 3, 0, 2, 0, 40, 72, 3072, 1024]> : tensor<36xi32>
// ih, iw (the output's 8 columns), ic (3 taps x 1 channel), input zero point, oc, kh, kw 1,
// filter zero point, oh, ow, strides 1, 1, dilations 1, 1, pad top 1, pad left 0.
// CHECK: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant -7 : i32
// CHECK-NEXT: arith.constant 16 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// The output stage (raw int32: flags 4, zero point 0, int8 bounds), the output channel 1, the
// DM addresses of the filter (after two input tiles of up to 4 gathered rows, 96 bytes each),
// bias, multiplier and shift, and their record's bytes: the filter's 144, the bias's 64 from
// byte 144, the unused multiplier and shift from bytes 208 and 224.
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant -128 : i32
// CHECK-NEXT: arith.constant 127 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 192 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 336 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 400 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 416 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 225 : i32
// Then the pitches: an input row 8 bytes, 1 between the columns of adjacent output columns, a
// gathered row 8 x 3 bytes, 3 bytes a pixel's taps; output columns 1 to 6 read input columns 0
// to 7, three bytes each to byte 3 on; column 0 its taps 1 and 2 (input columns 0 and 1, to
// byte 1), column 7 its taps 0 and 1 (input columns 6 and 7, to byte 21).
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 24 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 21 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 2 : i32
// The two input tile buffers (0, 96), the two output tile buffers (432, 1456: 2 rows of 8 x 16
// int32 each), four tiles.
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 96 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 432 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 1456 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_conv2d_folded_k3_t4,
// CHECK: func.func private @tynnp_conv2d_folded_k3_t4(
// The record's copy, then per tile its fill and three gathers, the job and the copy out.
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: scf.for
// CHECK: ".insn r CUSTOM_0, 1, 0, $0, $1, $2"
// CHECK-COUNT-3: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK-NOT: CUSTOM_0
// CHECK: ".insn r CUSTOM_1, 0, 0, $0, $1, $2"
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK-NEXT: scf.yield
// CHECK-NOT: CUSTOM_0
// CHECK: ".insn r CUSTOM_3, 0, 0, x0, $0, x0"
func.func private @tynnp_0(%x: tensor<1x8x8x1xi8>) -> tensor<1x8x8x16xi32> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x3x3x1xi8>}> : () -> tensor<16x3x3x1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp = "tosa.const"() <{values = dense<-7> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x1xi8>, tensor<16x3x3x1xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  return %c : tensor<1x8x8x16xi32>
}
