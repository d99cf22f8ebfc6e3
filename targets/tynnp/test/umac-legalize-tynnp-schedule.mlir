// umac-legalize-tynnp lowers each primitive op as its tynnp.schedule says (umac-schedule-tynnp
// decides one; a compiler engineer may write or edit it), and refuses, at the op, a schedule that
// the job cannot run by: tiles that do not cover its output or do not fit their buffers, more
// bands than a tile's output rows (or, pooling, than its channels' vectors), regions
// outside DM or overlapping, kept tensors or prefetched records the kernels around it do not hand
// on, token tables too small, handing jobs on to a kernel that may overwrite what they use, or
// a kernel's regions over a tensor kept across it.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp)' | FileCheck %s

// An edited schedule: the convolution in three tiles of 3, 3 and 2 output rows (each reading up
// to 5 input rows, 160 bytes) in one input buffer, its output written in place where it is kept
// for the pooling (at 192 KiB); the pooling unchanged (it reads that in place). The function's
// DM is three buffers: the convolution's own regions (244 bytes), the kept tensor and the
// pooling's output tiles; every DM address is an address in one of them (the convolution's
// [%[[OWN]]], the kept tensor's [%[[KEPT]]]), which umac-allocate-dm-tynnp places.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK-NEXT: %[[OWNB:.*]] = memref.alloc() {alignment = 16 : i64} : memref<244xi8, "tynnp.dm">
// CHECK-NEXT: %[[KEPTB:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256xi8, "tynnp.dm">
// CHECK-NEXT: memref.alloc() {alignment = 16 : i64} : memref<64xi8, "tynnp.dm">
// CHECK: %[[OWNP:.*]] = memref.extract_aligned_pointer_as_index %[[OWNB]]
// CHECK-NEXT: %[[OWN:.*]] = arith.index_cast %[[OWNP]] : index to i32
// CHECK-NEXT: %[[KEPTP:.*]] = memref.extract_aligned_pointer_as_index %[[KEPTB]]
// CHECK-NEXT: %[[KEPT:.*]] = arith.index_cast %[[KEPTP]] : index to i32
// The tile table. The first tile: from the input buffer (offset 0), 4 input rows under one row
// of padding, 3 output rows to the kept tensor's first rows (offset 0); the copy of input bytes
// [0, 128) (the output offsets and bytes, [0, 96), are not copied). The second: input rows 2..6
// (5 rows, 160 bytes from byte 64), output rows 3..5 (96 bytes on). The last: input rows 5..7
// (3 rows) above one row of padding, output rows 6 and 7 (192 on).
// CHECK: arith.constant dense<[0, 4, 1, 3, 0, 0, 128, 0, 96, 0, 5, 0, 3, 96, 64, 160, 96, 96, 0, 3, 0, 2, 192, 160, 96, 192, 64]> : tensor<27xi32>
// The output is written where it is kept, at the start of the kept tensor's buffer; after the
// record's 84 bytes, the input's one tile buffer (twice), three tiles.
// CHECK: arith.constant 127 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %[[KEPT]], %{{.*}} : i32
// CHECK: arith.constant 84 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %[[OWN]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %[[OWN]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK: callee = @tynnp_conv2d_single_wo
// CHECK: callee = @tynnp_max_pool2d_x4_rx
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 1 : i64, dm = {constants = array<i64: 160, 84>, input = array<i64: 0, 160>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 3, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// Three tiles whose input needs 160 bytes in 128-byte buffers.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: a tile needs 160 bytes of dm.input, which holds 128}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 3, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// Tiles that leave the last output rows out.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: tiles [0, 2, 4, 6] do not split [0, 8) into tiles in order}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// The second input buffer over the record.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.constants [256, 340) overlaps dm.input1 [200, 328)}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 200, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// An input buffer past DM's end.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.input1 at 262100 (128 bytes) lies outside DM's 262144 bytes}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 262100, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// An input buffer whose end overflows 64 bits.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.input1 at 9223372036854775807 (128 bytes) lies outside DM's 262144 bytes}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 9223372036854775807, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// A tile buffer over the activation kept for the pooling.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.input1 [196600, 196728) overlaps kept.output [196608, 196864)}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 196600, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// Double-buffered tiles without their second buffers.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm has regions [constants, input]; this schedule needs [constants, input, input1]}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// The convolution keeps its output where the pooling does not look for it.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: kept.output is 196608, but the next kernel does not read it from there}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 131072 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// The pooling looks for its input in DM, but the convolution writes it to DDR.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, output = array<i64: 352, 64>, output1 = array<i64: 416, 64>}, fold = false, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.max_pool2d: tynnp.schedule: keeps input 0 at 196608, but the kernel writing it does not leave it there}}
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// A record preloaded by no kernel before.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: preloaded is 98304, but no kernel before copies the record there}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, preloaded = 98304 : i64, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// Bands on the NU; more bands than vector units; folding a pooling.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: bands is 2; the convolution runs on the NU, in no bands}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {bands = 2 : i64, buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.max_pool2d: tynnp.schedule: bands is 5; the pooling needs 1 to 4 (-vu=4)}}
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 5 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.max_pool2d: tynnp.schedule: fold or im2col is set, but a pooling has no kernel to fold}}
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, fold = true, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// A misspelt entry, and an entry of the wrong kind.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: unknown entry 'tile'}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tile = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: 'buffers' is neither an integer, an array<i64>, a unit nor a dictionary}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = "two", dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// An im2col convolution whose staged input would not fit its region (490 bytes into 16).
func.func @main(%x: tensor<1x49x10x1xi8>) -> tensor<1x25x5x64xi8> {
  %r = call @tynnp_0(%x) : (tensor<1x49x10x1xi8>) -> tensor<1x25x5x64xi8>
  return %r : tensor<1x25x5x64xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x49x10x1xi8>) -> tensor<1x25x5x64xi8> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<64x10x4x1xi8>}> : () -> tensor<64x10x4x1xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<64xi32>}> : () -> tensor<64xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<64xi32>}> : () -> tensor<64xi32>
  %3 = "tosa.const"() <{values = dense<38> : tensor<64xi8>}> : () -> tensor<64xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: the input needs 490 bytes of dm.stage, which holds 16}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = -5 : i64, max = 127 : i64, min = -128 : i64, out_flags = 3 : i64, output_zp = -128 : i64, pad_left = 1 : i64, pad_top = 4 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 5712, 3136>, input = array<i64: 0, 2600>, input1 = array<i64: 2608, 2600>, output = array<i64: 8848, 4160>, output1 = array<i64: 13008, 4160>, stage = array<i64: 5216, 16>}, fold = false, im2col = true, tiles = array<i64: 0, 12, 25>}} : (tensor<1x49x10x1xi8>, tensor<64x10x4x1xi8>, tensor<64xi32>, tensor<64xi32>, tensor<64xi8>) -> tensor<1x25x5x64xi8>
  return %4 : tensor<1x25x5x64xi8>
}

// -----
// A token table too small for the convolution's four jobs.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.tokens has 12 bytes; the 4 jobs' tokens need 16}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, tokens = array<i64: 512, 12>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 1024, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----
// The convolution hands its jobs on to the pooling, which may write its output buffer over the
// convolution's input buffer while the convolution's jobs still read it.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.tokens hands the jobs on, but dm.input [0, 128) overlaps the next kernel's dm.output [0, 64), which it may write while they run}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, tokens = array<i64: 352, 24>}, fold = false, kept = {output = 196608 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 64>}, kept = {input = 196608 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----
// A token table on a convolution writing its output to DDR: nothing is handed on.
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8> {
  %r:2 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>)
  return %r#1 : tensor<1x4x4x4xi8>
}
func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.max_pool2d", umac.target = "tynnp"} {
  %0 = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %1 = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %2 = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %3 = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: dm.tokens hands the jobs on, but the output is not kept in DM for the next kernel}}
  %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>, input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, output = array<i64: 352, 64>, output1 = array<i64: 416, 64>, tokens = array<i64: 480, 16>}, fold = false, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  %5 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {input = array<i64: 2048, 256>, output = array<i64: 1024, 64>}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %4, %5 : tensor<1x8x8x4xi8>, tensor<1x4x4x4xi8>
}

// -----

// The convolution's output is kept in DM until the second pooling reads it, but the first
// pooling, which runs between them, has its input buffer over it.
module {
  func.func private @tynnp_2(%arg0: tensor<1x8x8x4xi8>, %arg1: tensor<1x8x8x8xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
    %0 = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
    %1 = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
    %2 = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
    %3 = "tosa.const"() <{values = dense<36> : tensor<8xi8>}> : () -> tensor<8xi8>
    // expected-error@+1 {{tynnp cannot lower tynnp.conv2d: tynnp.schedule: kept.output [1136, 1648) lives until kernel 2 of the function, but kernel 1's dm.input [1000, 1512) lies over it}}
    %4 = "tynnp.conv2d"(%arg0, %0, %1, %2, %3) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 3 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64, tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 768, 360>, input = array<i64: 0, 384>, input1 = array<i64: 384, 384>}, fold = true, kept = {output = 1136 : i64}, tiles = array<i64: 0, 2, 4, 6, 8>}} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>) -> tensor<1x8x8x8xi8>
    %5 = "tynnp.max_pool2d"(%arg1) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {input = array<i64: 1000, 512>, output = array<i64: 512, 128>}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
    %6 = "tynnp.max_pool2d"(%4) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64, tynnp.schedule = {bands = 4 : i64, buffers = 2 : i64, dm = {output = array<i64: 0, 128>}, kept = {input = 1136 : i64}, tiles = array<i64: 0, 4>}} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
    return %5, %6 : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>
  }
}


// -----

// Three bands of a pooling whose one tile has two output rows and whose 8 channels are one
// vector: neither its rows nor its channels split three ways.
module {
  func.func private @tynnp_3(%arg0: tensor<1x8x8x8xi8>) -> tensor<1x2x2x8xi8> attributes {umac.composite = "tynnp.max_pool2d", umac.target = "tynnp"} {
    // expected-error@+1 {{tynnp cannot lower tynnp.max_pool2d: tynnp.schedule: 3 bands, but a tile has 2 output rows and too few channels}}
    %0 = "tynnp.max_pool2d"(%arg0) {input_zp = 0 : i64, kh = 4 : i64, kw = 4 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 4 : i64, stride_y = 4 : i64, tynnp.schedule = {bands = 3 : i64, buffers = 1 : i64, dm = {input = array<i64: 0, 512>, output = array<i64: 512, 32>}, tiles = array<i64: 0, 2>}} : (tensor<1x8x8x8xi8>) -> tensor<1x2x2x8xi8>
    return %0 : tensor<1x2x2x8xi8>
  }
}
