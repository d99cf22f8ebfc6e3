// umac-place-tynnp, the last step of tynnp's schedules (targets/tynnp/src/schedule/steps.rs): static DM
// allocation by lifetime (umac-plan-memory's algorithm: greedy by size, then hill climbing).
// A kernel's own regions live while it runs (until the kernel waiting for its jobs ends, when
// it hands them on), a kept output from its writer to its last reader, a record from the
// kernel copying it to its own. Running every step is umac-schedule-tynnp.
// Output pixels stay unpacked here (-pack-pixels=false; packing: umac-primitives-tynnp-pixels.mlir).
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp,umac-prefetch-tynnp,umac-tile-tynnp,umac-place-tynnp)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp,umac-prefetch-tynnp,umac-tile-tynnp,umac-place-tynnp)' > %t.steps
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-schedule-tynnp)' > %t.schedule
// RUN: diff %t.steps %t.schedule
// In 2 KiB of DM the second function's kernels cannot run at once beside the kept activation:
// the first hands no jobs on, and the activation stays in DM.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp{attributes={-dm-kib=2}},umac-prefetch-tynnp{attributes={-dm-kib=2}},umac-tile-tynnp{attributes={-dm-kib=2}})' | FileCheck %s --check-prefix=TILED
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp{attributes={-dm-kib=2}},umac-prefetch-tynnp{attributes={-dm-kib=2}},umac-tile-tynnp{attributes={-dm-kib=2}},umac-place-tynnp{attributes={-dm-kib=2}})' | FileCheck %s --check-prefix=SMALL
// Placing what is not tiled yet changes nothing; legalization refuses a schedule not placed or
// not tiled, at the op.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp)' > %t.kept
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp,umac-place-tynnp)' > %t.kept-placed
// RUN: diff %t.kept %t.kept-placed
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp,umac-prefetch-tynnp,umac-tile-tynnp,umac-legalize-tynnp)' 2>&1 | FileCheck %s --check-prefix=UNPLACED
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-keep-tynnp,umac-legalize-tynnp)' 2>&1 | FileCheck %s --check-prefix=UNTILED

// Three convolutions, the first two handing their jobs on, so all three run at once: their own
// regions apart (the first's [0, 368), the second's token table at 1168, the third's output
// buffers at 880 and 944), the outputs kept at 368 (first to second) and 624 (second to third),
// the second's record at 1104 and the third's at 1008 (96 bytes each), both copied by the first.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, tokens = array<i64: 352, 16>}, fold = false, kept = {output = 368 : i64}, prefetch = 1104 : i64, prefetch_far = 1008 : i64, tiles = array<i64: 0, 2, 4, 6, 8>}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {tokens = array<i64: 1168, 12>}, fold = false, kept = {input = 368 : i64, output = 624 : i64}, preloaded = 1104 : i64, tiles = array<i64: 0, 2, 5, 8>}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {output = array<i64: 880, 64>, output1 = array<i64: 944, 64>}, fold = false, kept = {input = 624 : i64}, preloaded = 1008 : i64, tiles = array<i64: 0, 2, 4, 6, 8>}}
// UNPLACED: error: tynnp cannot lower tynnp.conv2d: tynnp.schedule: kept.output is not placed in DM (umac-place-tynnp places it)
// UNTILED: error: tynnp cannot lower tynnp.conv2d: tynnp.schedule: the kernel is not tiled (umac-tile-tynnp tiles it)
func.func @three(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
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
  %w2 = "tosa.const"() <{values = dense<1> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %c2 = tosa.conv2d %k1, %w2, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r2 = tosa.rescale %c2, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k2 = tosa.clamp %r2 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k2 : tensor<1x8x8x4xi8>
}

// -----

// Two convolutions over 16x16x4 (1 KiB activations). Tiled in 2 KiB with the activation kept:
// the first's own regions need [0, 852) and the second's output buffers 512 bytes. Were the
// first to hand its jobs on, its regions would live on while the second runs, beside the kept
// 1 KiB: more than 2 KiB, so the second would not fit what they leave (umac-tile-tynnp tiles
// a kernel in what the regions of those running beside it leave). So the first waits for its
// jobs (no token table) and the activation stays in DM.
// TILED-LABEL: func.func @large(
// TILED: = "tynnp.conv2d"(
// TILED-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 768, 84>, input = array<i64: 0, 384>, input1 = array<i64: 384, 384>}, fold = false, kept = {output}, prefetch, tiles = array<i64: 0, 4, 8, 12, 16>}}
// TILED: = "tynnp.conv2d"(
// TILED-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {output = array<i64: 0, 256>, output1 = array<i64: 256, 256>}, fold = false, kept = {input}, preloaded, tiles = array<i64: 0, 4, 8, 12, 16>}}
// Placed: the kept activation at 0, each kernel's regions above it, the record above the
// first's.
// SMALL-LABEL: func.func @large(
// SMALL: = "tynnp.conv2d"(
// SMALL-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 1792, 84>, input = array<i64: 1024, 384>, input1 = array<i64: 1408, 384>}, fold = false, kept = {output = 0 : i64}, prefetch = 1888 : i64, tiles = array<i64: 0, 4, 8, 12, 16>}}
// SMALL: = "tynnp.conv2d"(
// SMALL-SAME: tynnp.schedule = {buffers = 2 : i64, dm = {output = array<i64: 1024, 256>, output1 = array<i64: 1280, 256>}, fold = false, kept = {input = 0 : i64}, preloaded = 1888 : i64, tiles = array<i64: 0, 4, 8, 12, 16>}}
func.func @large(%x: tensor<1x16x16x4xi8>) -> tensor<1x16x16x4xi8> {
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %w0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %c0 = tosa.conv2d %x, %w0, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x16x16x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x16x16x4xi32>
  %r0 = tosa.rescale %c0, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x16x16x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x16x16x4xi8>
  %k0 = tosa.clamp %r0 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x16x16x4xi8>) -> tensor<1x16x16x4xi8>
  %w1 = "tosa.const"() <{values = dense<-2> : tensor<4x1x1x4xi8>}> : () -> tensor<4x1x1x4xi8>
  %c1 = tosa.conv2d %k0, %w1, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x16x16x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x16x16x4xi32>
  %r1 = tosa.rescale %c1, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x16x16x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x16x16x4xi8>
  %k1 = tosa.clamp %r1 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x16x16x4xi8>) -> tensor<1x16x16x4xi8>
  return %k1 : tensor<1x16x16x4xi8>
}
