// umac-schedule-tynnp and umac-legalize-tynnp on a convolution like KWS's first layer (one input
// channel, a 10x4 kernel, stride 2): its kernel columns folded into channels would still take ten
// NU passes of 4 channels a pixel; folding its kernel rows too (im2col) takes three of 40. The
// schedule says im2col, with a DM region for the whole input (490 bytes) staged there, and two
// tiles of output rows (each costs the control unit ten kernel rows of gather copies), whose
// buffers hold their 12 and 13 rows of 5 pixels of 40 bytes.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-schedule-tynnp)' | FileCheck %s --check-prefix=SCHEDULE
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-schedule-tynnp,umac-legalize-tynnp)' | FileCheck %s
// SCHEDULE: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 5712, 3136>, input = array<i64: 0, 2600>, input1 = array<i64: 2608, 2600>, output = array<i64: 8848, 4160>, output1 = array<i64: 13008, 4160>, stage = array<i64: 5216, 490>}, fold = false, im2col = true, tiles = array<i64: 0, 12, 25>}
// The tile table, 39 values a tile (its descriptor's values and copies, then per kernel row
// the first input row's offset in the staged input, where its output row's kernel row goes in
// the tile's buffer, and the output rows whose kernel row reads inside the input). Tile 0
// (output rows 0 to 11), 2400 bytes gathered, 3840 out; kernel row 0: input row 2y - 4 is
// inside from y = 2 (input row 0, to byte 2 x 200 of the buffer), ten rows; kernel row 1
// likewise (input row 1) to byte 404; kernel row 2 from y = 1 (input row 0, byte 208), eleven
// rows. Tile 1 (output rows 12 to 24) from input byte 120; its kernel row 0 reads input rows 20
// to 44 (from byte 200 of the staged input) for all thirteen rows.
// CHECK: arith.constant dense<[0, 12, 0, 12, 0, 0, 2400, 0, 3840, 0, 400, 10, 10, 404, 10, 0, 208, 11, {{.*}}, 0, 13, 0, 13, 0, 120, 2600, 3840, 4160, 200, 0, 13, {{.*}}]> : tensor<78xi32>
// The call: after the column fold's arguments, the staged input's bytes, a gathered pixel's
// bytes (40), the bytes between the input rows of adjacent output rows (2 x 10), a gathered
// row's (200), where each of the three copies' taps go in a pixel (the inner columns' four taps
// of pixel 1 at 40, pixel 0's taps 1 to 3 at 1, pixel 4's taps 0 to 2 at 160); then the tile
// buffers and the two tiles.
// CHECK: arith.constant 490 : i32
// CHECK-NEXT: arith.constant 40 : i32
// CHECK-NEXT: arith.constant 20 : i32
// CHECK-NEXT: arith.constant 200 : i32
// CHECK-NEXT: arith.constant 40 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 160 : i32
// CHECK: callee = @tynnp_conv2d_im2col_k3_r10
// The function stages the input (490 bytes to DM), then per tile fills its buffer with the input
// zero point and gathers ten kernel rows of three copies each, then the job.
// CHECK-LABEL: func.func private @tynnp_conv2d_im2col_k3_r10(
// CHECK: "tynnp.dma_copy"
// CHECK: "tynnp.dma_fill"
// CHECK-COUNT-30: "tynnp.dma_copy"
// CHECK-NOT: "tynnp.dma_copy"
// CHECK: "tynnp.nu_conv"
func.func @kws_first(%x: tensor<1x49x10x1xi8>) -> tensor<1x25x5x64xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<64x10x4x1xi8>}> : () -> tensor<64x10x4x1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<64xi32>}> : () -> tensor<64xi32>
  %zp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<64xi32>}> : () -> tensor<64xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<64xi8>}> : () -> tensor<64xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 4, 5, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x49x10x1xi8>, tensor<64x10x4x1xi8>, tensor<64xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x25x5x64xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x25x5x64xi32>, tensor<64xi32>, tensor<64xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x25x5x64xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x25x5x64xi8>) -> tensor<1x25x5x64xi8>
  return %k : tensor<1x25x5x64xi8>
}

// -----

// Its output kept in DM for a pooling, nothing goes out on the output channel (argument 23), so
// the gather's copies alternate between channel 0 and it: those on the output channel depend on
// the fill, the last on channel 0's last, and the job on the last.
// CHECK-LABEL: func.func private @tynnp_conv2d_im2col_k3_r10_wo_h(
// CHECK: %[[FILL:.*]] = "tynnp.dma_fill"
// CHECK: %[[C0:.*]] = "tynnp.dma_copy"(%{{[^,]*}}, %c0{{[^,]*}}, %[[FILL]],
// CHECK: "tynnp.dma_copy"(%{{[^,]*}}, %arg23, %[[FILL]],
// CHECK: "tynnp.dma_copy"(%{{[^,]*}}, %c0{{[^,]*}}, %[[C0]],
// CHECK-COUNT-25: "tynnp.dma_copy"
// CHECK: %[[L0:.*]] = "tynnp.dma_copy"(%{{[^,]*}}, %c0{{[^,]*}},
// CHECK: %[[LAST:.*]] = "tynnp.dma_copy"(%{{[^,]*}}, %arg23, %{{[^,]*}}, %[[L0]],
// CHECK: "tynnp.nu_conv"(%{{[^,]*}}, %{{[^,]*}}, %[[LAST]],
func.func @kws_first_pool(%x: tensor<1x49x10x1xi8>) -> tensor<1x12x2x64xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<64x10x4x1xi8>}> : () -> tensor<64x10x4x1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<64xi32>}> : () -> tensor<64xi32>
  %zp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<64xi32>}> : () -> tensor<64xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<64xi8>}> : () -> tensor<64xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 4, 5, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x49x10x1xi8>, tensor<64x10x4x1xi8>, tensor<64xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x25x5x64xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x25x5x64xi32>, tensor<64xi32>, tensor<64xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x25x5x64xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x25x5x64xi8>) -> tensor<1x25x5x64xi8>
  %p = tosa.max_pool2d %k {kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x25x5x64xi8>) -> tensor<1x12x2x64xi8>
  return %p : tensor<1x12x2x64xi8>
}
