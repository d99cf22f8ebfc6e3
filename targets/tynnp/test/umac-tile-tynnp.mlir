// umac-tile-tynnp, the third step of tynnp's schedules (targets/tynnp/src/schedule/steps.rs): each
// kernel's tiles (output rows), bands, tile buffers (2: double-buffered), folds, and its own DM
// regions from offset 0, in the DM that what it shares (kept, prefetched: still unplaced) leaves
// it. umac-place-tynnp moves the regions to their places.
// Output pixels stay unpacked here (-pack-pixels=false; packing: umac-primitives-tynnp-pixels.mlir).
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp,umac-prefetch-tynnp,umac-tile-tynnp)' | FileCheck %s
// Tiled alone, nothing shared: every kernel's regions from offset 0 are its places (they never
// run at once), a schedule legalization takes as it is.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-tile-tynnp)' | FileCheck %s --check-prefix=ALONE
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-tile-tynnp,umac-legalize-tynnp)' | FileCheck %s --check-prefix=LOWERED

// Two convolutions, the first's output kept for the second, which it hands its jobs on to: the
// first in four tiles of two output rows (input buffers of the four input rows a tile reads, 128
// bytes each, its 84-byte record at 256, its token table at 352: four tokens, one a job), no
// output buffers (it writes in place); the second reads in place and writes its
// own output buffers, its record preloaded.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, tokens = array<i64: 352, 16>}, fold = false, kept = {output}, prefetch, tiles = array<i64: 0, 2, 4, 6, 8>}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {output = array<i64: 0, 64>, output1 = array<i64: 64, 64>}, fold = false, kept = {input}, preloaded, tiles = array<i64: 0, 2, 4, 6, 8>}}
// ALONE-LABEL: func.func private @tynnp_0(
// ALONE: = "tynnp.conv2d"(
// ALONE-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, output = array<i64: 352, 64>, output1 = array<i64: 416, 64>}, fold = false, tiles = array<i64: 0, 2, 4, 6, 8>}}
// ALONE: = "tynnp.conv2d"(
// ALONE-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 128, 52>, input = array<i64: 0, 64>, input1 = array<i64: 64, 64>, output = array<i64: 192, 64>, output1 = array<i64: 256, 64>}, fold = false, tiles = array<i64: 0, 2, 4, 6, 8>}}
// LOWERED-LABEL: func.func private @tynnp_0(
// LOWERED: callee = @tynnp_conv2d
// LOWERED: callee = @tynnp_conv2d
func.func @two(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %w0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %c0 = tosa.conv2d %x, %w0, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r0 = tosa.rescale %c0, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k0 = tosa.clamp %r0 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %w1 = "tosa.const"() <{values = dense<-2> : tensor<4x1x1x4xi8>}> : () -> tensor<4x1x1x4xi8>
  %c1 = tosa.conv2d %k0, %w1, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r1 = tosa.rescale %c1, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k1 = tosa.clamp %r1 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k1 : tensor<1x8x8x4xi8>
}

// -----

// A 1x1 convolution whose output the next, a 3x3 one over 4 channels, reads: the second folds
// its kernel columns into its channels, so it gathers its input from DM rather than reading it
// in place, and the first hands no jobs on to it (no token table; both tiled accordingly).
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 128, 52>, input = array<i64: 0, 64>, input1 = array<i64: 64, 64>}, fold = false, kept = {output}, prefetch, tiles = array<i64: 0, 2, 4, 6, 8>}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {input = array<i64: 0, 384>, input1 = array<i64: 384, 384>, output = array<i64: 768, 64>, output1 = array<i64: 832, 64>}, fold = true, kept = {input}, preloaded, tiles = array<i64: 0, 2, 4, 6, 8>}}
func.func @folded(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %w0 = "tosa.const"() <{values = dense<3> : tensor<4x1x1x4xi8>}> : () -> tensor<4x1x1x4xi8>
  %c0 = tosa.conv2d %x, %w0, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r0 = tosa.rescale %c0, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k0 = tosa.clamp %r0 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %w1 = "tosa.const"() <{values = dense<1> : tensor<4x3x3x4xi8>}> : () -> tensor<4x3x3x4xi8>
  %c1 = tosa.conv2d %k0, %w1, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r1 = tosa.rescale %c1, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k1 = tosa.clamp %r1 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k1 : tensor<1x8x8x4xi8>
}
