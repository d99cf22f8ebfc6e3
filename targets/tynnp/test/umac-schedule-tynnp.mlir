// umac-schedule-tynnp: the schedule of each kernel, decided before legalization and attached to
// its primitive op as tynnp.schedule (targets/tynnp/src/schedule/attribute.rs): its tiles' bounds (output
// rows), its bands over the vector units, its tile buffers (2: double-buffered), whether its
// kernel columns are folded, its DM regions as [offset, bytes] (the constants as the one record
// a copy brings in), the tensors it keeps in DM for the kernel after or finds there, the record
// the kernel before preloaded and the one it prefetches for the kernel after, and the token
// table of a kernel that hands its jobs on to the kernel after.
// Output pixels stay unpacked here (-pack-pixels=false; packing: umac-primitives-tynnp-pixels.mlir).
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp{attributes={-fuse=false -double-buffer=false}})' | FileCheck %s --check-prefix=OFF
// The schedule holds every decision legalization makes: lowering the scheduled ops gives the
// calls legalization gives when it decides alone. Scheduling twice changes nothing.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp,umac-legalize-tynnp)' > %t.scheduled
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp)' > %t.decided
// RUN: diff %t.scheduled %t.decided
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp)' > %t.once
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp,umac-schedule-tynnp)' > %t.twice
// RUN: diff %t.once %t.twice

// A convolution (3x1, 8 rows of 32 bytes) in four tiles of two output rows, double-buffered:
// input buffers of the four input rows a tile reads (128 bytes), the 84-byte record at 256; its
// output kept in DM for the pooling (at 368, after the convolution's own regions:
// umac-plan-memory's algorithm places the function's DM), written there in place, so it has no
// output buffers. It hands its jobs on to the pooling (their four tokens in its table at 352),
// which starts while they run: the convolution's regions live until the pooling ends, which
// places the pooling's apart from them. The pooling reads its input in place in one tile of
// its four output rows (it copies nothing in), one band a vector unit, and has one output
// buffer.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, tokens = array<i64: 352, 16>}, fold = false, kept = {output = 368 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}
// CHECK: = "tynnp.max_pool2d"(
// CHECK-SAME: tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 624, 64>}, kept = {input = 368 : i64}, tiles = array<i64: 0, 4>}
// Nothing kept, one buffer each (the record then comes right after the one input buffer).
// OFF-LABEL: func.func private @tynnp_0(
// OFF: = "tynnp.conv2d"(
// OFF-SAME: tynnp.schedule = {buffers = 1 : i64, dm = {constants = array<i64: 128, 84>, input = array<i64: 0, 128>, output = array<i64: 224, 64>}, fold = false, tiles = array<i64: 0, 2, 4, 6, 8>}
// OFF: = "tynnp.max_pool2d"(
// OFF-SAME: tynnp.schedule = {bands = 4 : i64, buffers = 1 : i64, dm = {input = array<i64: 0, 256>, output = array<i64: 256, 64>}, tiles = array<i64: 0, 4>}
func.func @conv_pool(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %p = tosa.max_pool2d %k {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %p : tensor<1x4x4x4xi8>
}

// -----

// Two convolutions: the first copies the second's record into DM (at 752) while its last tiles
// run (prefetch), the second finds it there (preloaded) and so has no constants region of its
// own; the activation between them stays in DM (at 368), written and read in place, the first
// handing its jobs on to the second.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, tokens = array<i64: 352, 16>}, fold = false, kept = {output = 368 : i64}, prefetch = 752 : i64, tiles = array<i64: 0, 2, 4, 6, 8>}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {output = array<i64: 624, 64>, output1 = array<i64: 688, 64>}, fold = false, kept = {input = 368 : i64}, preloaded = 752 : i64, tiles = array<i64: 0, 2, 4, 6, 8>}
// OFF-LABEL: func.func private @tynnp_0(
// OFF: = "tynnp.conv2d"(
// OFF-SAME: tynnp.schedule = {buffers = 1 : i64, dm = {constants = array<i64: 128, 84>, input = array<i64: 0, 128>, output = array<i64: 224, 64>}, fold = false, prefetch = 288 : i64, tiles = array<i64: 0, 2, 4, 6, 8>}
// OFF: = "tynnp.conv2d"(
// OFF-SAME: tynnp.schedule = {buffers = 1 : i64, dm = {input = array<i64: 0, 64>, output = array<i64: 64, 64>}, fold = false, preloaded = 288 : i64, tiles = array<i64: 0, 2, 4, 6, 8>}
func.func @conv_conv(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %w2 = "tosa.const"() <{values = dense<-2> : tensor<4x1x1x4xi8>}> : () -> tensor<4x1x1x4xi8>
  %b2 = "tosa.const"() <{values = dense<100> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp2 = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c2 = tosa.conv2d %k, %w2, %b2, %zp2, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r2 = tosa.rescale %c2, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %r2 : tensor<1x8x8x4xi8>
}
