// umac-prefetch-tynnp, the second step of tynnp's schedules (targets/tynnp/src/schedule/steps.rs): which
// kernel copies each kernel's constant record into DM ahead of it: in the order the kernels run,
// the kernel before (prefetch), or the one two before when it and the next hand their jobs on
// (prefetch_far); then, the largest records first, an earlier kernel up to four back (prefetch_far
// and `ahead`) with its far copy free, where that costs no kernel its tiles and every kernel from
// it on reads its input in place (the copy holds DMA channel 0). The kernel finding
// its record there is marked preloaded. The copy's token goes in a mailbox on the control unit's
// stack, so the kernels between need not hand anything on. Unit entries: decided, not placed yet.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp,umac-prefetch-tynnp)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp{attributes={-overlap=false}},umac-prefetch-tynnp{attributes={-overlap=false}})' | FileCheck %s --check-prefix=APART
// Without keeping anything, each record is copied by the kernel before.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-prefetch-tynnp)' | FileCheck %s --check-prefix=ALONE
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-keep-tynnp,umac-prefetch-tynnp{attributes={-prefetch=false}})' | FileCheck %s --check-prefix=OFF

// Three convolutions handing their jobs on: the first copies the second's record and, as the
// first two hand their jobs on, the third's too.
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

// -----

// Six convolutions over 16 channels (read in place, not folded), the last with the largest
// record. In order, each record is copied two kernels ahead (they hand their jobs on); then the
// largest, the last's, four kernels ahead by the second (ahead = 4), taking the second's far
// copy from the fourth's smaller record, which the third copies instead; the others are as large
// as each other: none takes another's.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {output}, prefetch, prefetch_far}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {ahead = 4 : i64, dm = {tokens}, kept = {input, output}, prefetch_far, preloaded}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {input, output}, prefetch, prefetch_far, preloaded}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {input, output}, preloaded}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {dm = {tokens}, kept = {input, output}, preloaded}}
// CHECK: = "tynnp.conv2d"(
// CHECK-SAME: tynnp.schedule = {kept = {input}, preloaded}}
// Apart (no jobs handed on), each is copied by the kernel before; then the last's four ahead by
// the second. None is copied by the first, which copies its input in on channel 0, where a copy
// ahead would hold up its tiles.
// APART-LABEL: func.func private @tynnp_0(
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {output}, prefetch}}
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {ahead = 4 : i64, kept = {input, output}, prefetch, prefetch_far, preloaded}}
// APART: = "tynnp.conv2d"(
// APART-SAME: tynnp.schedule = {kept = {input, output}, prefetch, preloaded}}
func.func @six(%x: tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8> {
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<16xi32>}> : () -> tensor<16xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<16xi8>}> : () -> tensor<16xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<16xi32>}> : () -> tensor<16xi32>
  %w0 = "tosa.const"() <{values = dense<1> : tensor<16x1x1x16xi8>}> : () -> tensor<16x1x1x16xi8>
  %c0 = tosa.conv2d %x, %w0, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %r0 = tosa.rescale %c0, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %k0 = tosa.clamp %r0 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %w1 = "tosa.const"() <{values = dense<2> : tensor<16x1x1x16xi8>}> : () -> tensor<16x1x1x16xi8>
  %c1 = tosa.conv2d %k0, %w1, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %r1 = tosa.rescale %c1, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %k1 = tosa.clamp %r1 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %w2 = "tosa.const"() <{values = dense<3> : tensor<16x1x1x16xi8>}> : () -> tensor<16x1x1x16xi8>
  %c2 = tosa.conv2d %k1, %w2, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %r2 = tosa.rescale %c2, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %k2 = tosa.clamp %r2 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %w3 = "tosa.const"() <{values = dense<1> : tensor<16x1x1x16xi8>}> : () -> tensor<16x1x1x16xi8>
  %c3 = tosa.conv2d %k2, %w3, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %r3 = tosa.rescale %c3, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %k3 = tosa.clamp %r3 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %w4 = "tosa.const"() <{values = dense<2> : tensor<16x1x1x16xi8>}> : () -> tensor<16x1x1x16xi8>
  %c4 = tosa.conv2d %k3, %w4, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %r4 = tosa.rescale %c4, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %k4 = tosa.clamp %r4 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %w5 = "tosa.const"() <{values = dense<3> : tensor<16x3x3x16xi8>}> : () -> tensor<16x3x3x16xi8>
  %c5 = tosa.conv2d %k4, %w5, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x3x3x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %r5 = tosa.rescale %c5, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %k5 = tosa.clamp %r5 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  return %k5 : tensor<1x8x8x16xi8>
}
