// umac-prefetch-tynnp, the second step of tynnp's schedules (targets/tynnp/src/schedule/steps.rs): which
// kernel copies each kernel's constant record into DM ahead of it: the kernel before (prefetch),
// or the one two before when it and the next hand their jobs on (prefetch_far), the kernel
// finding it there marked preloaded. Unit entries: decided, not placed yet.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp,umac-prefetch-tynnp)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp{attributes={-overlap=false}},umac-prefetch-tynnp{attributes={-overlap=false}})' | FileCheck %s --check-prefix=APART
// Without keeping anything, each record is copied by the kernel before.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-prefetch-tynnp)' | FileCheck %s --check-prefix=ALONE
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp,umac-prefetch-tynnp{attributes={-prefetch=false}})' | FileCheck %s --check-prefix=OFF

// Three convolutions handing their jobs on: the first copies the second's record and, as the
// first two hand their jobs on, the third's too (its copy's token goes from table to table).
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {output}, prefetch, prefetch_far}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {input, output}, preloaded}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {kept = {input}, preloaded}}
// When kernels wait for their own jobs, each copies the next one's record only.
// APART-LABEL: func.func private @tynnp_0(
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {output}, prefetch}}
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {input, output}, prefetch, preloaded}}
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {input}, preloaded}}
// ALONE-LABEL: func.func private @tynnp_0(
// ALONE: = "tynnp.conv2d"(
// ALONE-SAME: tynnp.schedule = {prefetch}}
// ALONE: = "tynnp.conv2d"(
// ALONE-SAME: tynnp.schedule = {prefetch, preloaded}}
// ALONE: = "tynnp.conv2d"(
// ALONE-SAME: tynnp.schedule = {preloaded}}
// OFF-LABEL: func.func private @tynnp_0(
// OFF: = "tynnp.conv2d"(
// OFF-SAME: tynnp.schedule = {dm = {tokens}, kept = {output}}}
// OFF: = "tynnp.conv2d"(
// OFF-SAME: tynnp.schedule = {dm = {tokens}, kept = {input, output}}}
// OFF: = "tynnp.conv2d"(
// OFF-SAME: tynnp.schedule = {kept = {input}}}
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
