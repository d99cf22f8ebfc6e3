// umac-keep-tynnp, the first step of tynnp's schedules (targets/tynnp/src/schedule/steps.rs): which
// kernels' outputs stay in DM for the kernels reading them (kept), and which kernels hand their
// jobs on to the next, which reads that output in place, so that the two run at once (a token
// table, dm.tokens). What it decides is not placed yet: unit entries, which umac-place-tynnp
// gives offsets; nothing is tiled yet.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp{attributes={-overlap=false}})' | FileCheck %s --check-prefix=APART
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp{attributes={-fuse=false}})' | FileCheck %s --check-prefix=OFF
// A function already decided is left as it is: keeping twice changes nothing.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp)' > %t.once
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp,umac-keep-tynnp)' > %t.twice
// RUN: diff %t.once %t.twice
// A schedule edited to keep an output a caller reads is refused at the op by the next step.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp)' | sed '/@returned/,/"tynnp.conv2d"(/ s/{dilation_x/{tynnp.schedule = {kept = {output}}, dilation_x/' | not umac-opt --split-input-file --pass-pipeline='builtin.module(umac-prefetch-tynnp)' 2>&1 | FileCheck %s --check-prefix=EDITED
// EDITED: error: tynnp cannot schedule tynnp.conv2d: tynnp.schedule: kept.output is set, but no later kernel of the function alone reads it

// Three convolutions in a chain: each output stays in DM for the next, and the first two hand
// their jobs on (the second both reads its input and writes its output in place).
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {output}}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {input, output}}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {kept = {input}}}
// Without -overlap the outputs stay in DM but every kernel waits for its own jobs.
// APART-LABEL: func.func private @tynnp_0(
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {output}}}
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {input, output}}}
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {input}}}
// Without -fuse nothing stays.
// OFF-LABEL: func.func private @tynnp_0(
// OFF-COUNT-3: tynnp.schedule = {}}
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

// The first output is returned too (a caller reads it): it goes back to DDR.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {}}
func.func @returned(%x: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>) {
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
  return %k0, %k1 : tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>
}
