// umac-primitives-tynnp: each composite becomes the tynnp op of the job it runs as, its operands
// the tensors the job copies in tile by tile and then its constants as the job reads them in DM,
// its attributes the descriptor's fields the types do not give (targets/tynnp/docs/isa.md, section 5).
// Output pixels stay unpacked here (-pack-pixels=false; packing: umac-primitives-tynnp-pixels.mlir).
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"})' | FileCheck %s
// The primitive level is mandatory: the legalization (and each step of the schedule) takes
// primitive ops only, and a composite of TOSA ops left is an error at it, exit code 1.
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-legalize-tynnp)' 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-tile-tynnp)' 2>&1 | FileCheck %s --check-prefix=RAW-STEP
// RAW: umac-primitives-tynnp.mlir:[[# @LINE + 22]]:8: error: tynnp cannot lower tynnp.conv2d: tynnp.conv2d is still a composite of TOSA ops: the schedule and the legalization take tynnp's primitive ops (run umac-primitives-tynnp first)
// RAW-STEP: umac-primitives-tynnp.mlir:[[# @LINE + 21]]:8: error: tynnp cannot schedule tynnp.conv2d: tynnp.conv2d is still a composite of TOSA ops

// A convolution, its per-channel DOUBLE_ROUND rescale and its clamp: out_flags 3 (per channel,
// double round), the clamp's [0, 127], the zero points, pads and strides; the composite's
// constants (its TOSA zero points and the rescale's own zero points) are gone.
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
// CHECK-NEXT: %[[W:.*]] = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}>
// CHECK-NEXT: %[[B:.*]] = "tosa.const"() <{values = dense<7> : tensor<4xi32>}>
// CHECK-NEXT: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}>
// CHECK-NEXT: %[[S:.*]] = "tosa.const"() <{values = dense<36> : tensor<4xi8>}>
// CHECK-NEXT: %[[C:.*]] = "tynnp.conv2d"(%arg0, %[[W]], %[[B]], %[[M]], %[[S]]) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
// CHECK-NEXT: return %[[C]]
func.func @conv(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
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
  return %k : tensor<1x8x8x4xi8>
}

// -----

// A depthwise convolution whose filter the converter reshapes from [1, kh, kw, c] to HWCM: the
// reshape joins the composite and the op takes the filter as HWCM, element for element in the
// same order (the last tap negated); SINGLE_ROUND per channel: out_flags 1; the bottom and right
// padding implicit.
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
// CHECK-NEXT: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1], [2], [3], [4], [5], [6], [7], [8]], {{.*}}, {{\[\[}}-1], [-2], [-3], [-4], [-5], [-6], [-7], [-8]]]]> : tensor<3x3x8x1xi8>}>
// CHECK-NEXT: %[[B:.*]] = "tosa.const"() <{values = dense<[9, -9, 9, -9, 9, -9, 9, -9]> : tensor<8xi32>}>
// CHECK-NEXT: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}>
// CHECK-NEXT: %[[S:.*]] = "tosa.const"() <{values = dense<[33, 33, 33, 33, 34, 34, 34, 34]> : tensor<8xi8>}>
// CHECK-NEXT: "tynnp.depthwise_conv2d"(%arg0, %[[W]], %[[B]], %[[M]], %[[S]]) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = -2 : i64, max = 127 : i64, min = -128 : i64, out_flags = 1 : i64, output_zp = 4 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x6x6x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<8xi32>, tensor<8xi8>) -> tensor<1x3x3x8xi8>
func.func @depthwise(%x: tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8> {
  %f = "tosa.const"() <{values = dense<[[[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]], [[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]], [[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [-1, -2, -3, -4, -5, -6, -7, -8]]]]> : tensor<1x3x3x8xi8>}> : () -> tensor<1x3x3x8xi8>
  %shape = tosa.const_shape {values = dense<[3, 3, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %w = tosa.reshape %f, %shape : (tensor<1x3x3x8xi8>, !tosa.shape<4>) -> tensor<3x3x8x1xi8>
  %b = "tosa.const"() <{values = dense<[9, -9, 9, -9, 9, -9, 9, -9]> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<-2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<[33, 33, 33, 33, 34, 34, 34, 34]> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<4> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.depthwise_conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x6x6x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x3x3x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x3x3x8xi8>
  return %r : tensor<1x3x3x8xi8>
}

// -----

// A leading slice joins the convolution: the op reads the whole 4x4 input (rows and columns 0
// and 2 only). Without a rescale the job writes raw int32 accumulators (out_flags 4) and the
// output scales are zeros the unit does not read.
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x4x4x8xi8>) -> tensor<1x2x2x4xi32>
// CHECK-NOT: tosa.slice
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT: %[[S:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK-NEXT: "tynnp.conv2d"(%arg0, %{{.*}}, %{{.*}}, %[[M]], %[[S]]) {{{.*}} out_flags = 4 : i64, {{.*}} stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x4x4x8xi8>, tensor<4x1x1x8xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x2x2x4xi32>
func.func @slice(%x: tensor<1x4x4x8xi8>) -> tensor<1x2x2x4xi32> {
  %start = tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 3, 3, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s = tosa.slice %x, %start, %size : (tensor<1x4x4x8xi8>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x3x8xi8>
  %w = "tosa.const"() <{values = dense<1> : tensor<4x1x1x8xi8>}> : () -> tensor<4x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %s, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x3x3x8xi8>, tensor<4x1x1x8xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x4xi32>
  return %c : tensor<1x2x2x4xi32>
}

// -----

// TFLite's quantized ADD as the converter writes it (six ops): x's left shift 20 from its
// rescale by 2^30 >> 10 and its multiplier, y's left shift 19 from 2^30 >> 11 and no
// multiplier (0, 0), the output scale as the job's constants, DOUBLE_ROUND (out_flags 2).
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x4x4x8xi8>, %arg1: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
// CHECK-NEXT: %[[M:.*]] = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}>
// CHECK-NEXT: %[[S:.*]] = "tosa.const"() <{values = dense<48> : tensor<1xi8>}>
// CHECK-NEXT: "tynnp.add"(%arg0, %arg1, %[[M]], %[[S]]) {max = 127 : i64, min = -128 : i64, out_flags = 2 : i64, output_zp = -128 : i64, x_left_shift = 20 : i64, x_multiplier = 1623821475 : i64, x_shift = 33 : i64, x_zp = -128 : i64, y_left_shift = 19 : i64, y_multiplier = 0 : i64, y_shift = 0 : i64, y_zp = 4 : i64}
func.func @add(%x: tensor<1x4x4x8xi8>, %y: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %pow = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s10 = "tosa.const"() <{values = dense<10> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s11 = "tosa.const"() <{values = dense<11> : tensor<1xi8>}> : () -> tensor<1xi8>
  %xm = "tosa.const"() <{values = dense<1623821475> : tensor<1xi32>}> : () -> tensor<1xi32>
  %xs = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %om = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}> : () -> tensor<1xi32>
  %os = "tosa.const"() <{values = dense<48> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %xzp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %yzp = "tosa.const"() <{values = dense<4> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a0 = tosa.rescale %x, %pow, %s10, %xzp, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %a1 = tosa.rescale %a0, %xm, %xs, %z32, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %b0 = tosa.rescale %y, %pow, %s11, %yzp, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %a1, %b0 : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %r = tosa.rescale %sum, %om, %os, %z32, %xzp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
  return %k : tensor<1x4x4x8xi8>
}

// -----

// A max pooling (its zero points 0, unread) feeding an average pooling, one function of two
// ops; the kernel sizes are attributes (no filter gives them).
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x6x6x8xi8>) -> (tensor<1x3x3x8xi8>, tensor<1x1x1x8xi8>)
// CHECK-NEXT: %[[P:.*]] = "tynnp.max_pool2d"(%arg0) {input_zp = 0 : i64, kh = 3 : i64, kw = 3 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
// CHECK-NEXT: %[[A:.*]] = "tynnp.avg_pool2d"(%[[P]]) {input_zp = -128 : i64, kh = 3 : i64, kw = 3 : i64, max = 127 : i64, min = -128 : i64, output_zp = 5 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 3 : i64, stride_y = 3 : i64} : (tensor<1x3x3x8xi8>) -> tensor<1x1x1x8xi8>
// CHECK-NEXT: return %[[P]], %[[A]]
func.func @pools(%x: tensor<1x6x6x8xi8>) -> tensor<1x1x1x8xi8> {
  %izp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
  %a = tosa.avg_pool2d %m, %izp, %ozp {acc_type = i32, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 3, 3>} : (tensor<1x3x3x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x8xi8>
  return %a : tensor<1x1x1x8xi8>
}

// -----

// An int16 table: 513 i16 entries, int32 results; no attributes.
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<40xi16>) -> tensor<40xi32>
// CHECK-NEXT: %[[T:.*]] = "tosa.const"() <{values = dense<7> : tensor<513xi16>}>
// CHECK-NEXT: "tynnp.table"(%arg0, %[[T]]) : (tensor<40xi16>, tensor<513xi16>) -> tensor<40xi32>
func.func @table16(%x: tensor<40xi16>) -> tensor<40xi32> {
  %t = "tosa.const"() <{values = dense<7> : tensor<513xi16>}> : () -> tensor<513xi16>
  %y = tosa.table %x, %t : (tensor<40xi16>, tensor<513xi16>) -> tensor<40xi32>
  return %y : tensor<40xi32>
}

// -----

// An add whose output only the pooling after it reads: one function of two primitive ops, and
// (by the diff above) the add's output stays in DM for the pooling as it does from the
// composites.
// CHECK-LABEL: func.func private @tynnp_0(%arg0: tensor<1x4x4x8xi8>, %arg1: tensor<1x4x4x8xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x1x1x8xi8>)
// CHECK: %[[S:.*]] = "tynnp.add"(%arg0, %arg1,
// CHECK-NEXT: %[[P:.*]] = "tynnp.avg_pool2d"(%[[S]]) {input_zp = -128 : i64, kh = 4 : i64, kw = 4 : i64,
// CHECK-NEXT: return %[[S]], %[[P]]
func.func @add_pool(%x: tensor<1x4x4x8xi8>, %y: tensor<1x4x4x8xi8>) -> tensor<1x1x1x8xi8> {
  %pow = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s10 = "tosa.const"() <{values = dense<10> : tensor<1xi8>}> : () -> tensor<1xi8>
  %om = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}> : () -> tensor<1xi32>
  %os = "tosa.const"() <{values = dense<48> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %xzp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a0 = tosa.rescale %x, %pow, %s10, %xzp, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %b0 = tosa.rescale %y, %pow, %s10, %xzp, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %a0, %b0 : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %r = tosa.rescale %sum, %om, %os, %z32, %xzp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
  %p = tosa.avg_pool2d %k, %xzp, %xzp {acc_type = i32, kernel = array<i64: 4, 4>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 4, 4>} : (tensor<1x4x4x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x8xi8>
  return %p : tensor<1x1x1x8xi8>
}
