// umac-reference-tynnp: each tynnp op becomes the TOSA ops computing what its job computes
// (targets/tynnp/docs/isa.md, section 5), and tynnp's functions are inlined back into their callers, so
// the host runs a partitioned model as the NPU will.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-reference-tynnp)' | FileCheck %s

// The convolution with its output stage: out_flags 3 is a per-channel DOUBLE_ROUND rescale,
// then the clamp to [min, max]. Reading rows -1 to 8 of 8 (pad_top 1, kernel 3, 8 output rows)
// makes TOSA's bottom padding 1; the kernel is one column wide, so no column padding.
// CHECK-LABEL: func.func @main(%arg0: tensor<1x8x8x4xi8>)
// CHECK-NOT: call
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<7> : tensor<4xi32>}>
// CHECK-DAG: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}>
// CHECK-DAG: %[[S:.*]] = "tosa.const"() <{values = dense<36> : tensor<4xi8>}>
// CHECK-DAG: %[[IZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
// CHECK-DAG: %[[FZP:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK: %[[C:.*]] = tosa.conv2d %arg0, %[[W]], %[[B]], %[[IZP]], %[[FZP]] {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>}
// CHECK-DAG: %[[Z32:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-DAG: %[[OZP:.*]] = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
// CHECK: %[[R:.*]] = tosa.rescale %[[C]], %[[M]], %[[S]], %[[Z32]], %[[OZP]] {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true}
// CHECK-NEXT: %[[K:.*]] = tosa.clamp %[[R]] {max_val = 127 : i8, min_val = 0 : i8}
// CHECK-NEXT: return %[[K]]
// CHECK-NOT: func.func private @tynnp_0
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %0 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %0 : tensor<1x8x8x4xi8>
}
func.func private @tynnp_0(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = 0 : i64, out_flags = 3 : i64, output_zp = -3 : i64, pad_left = 0 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x4xi8>
  return %c : tensor<1x8x8x4xi8>
}

// -----

// A 1x1 stride-2 convolution with 2x2 outputs reads rows and columns 0 and 2 of a 4x4 input:
// TOSA's exact output size needs the input sliced to 3x3. Raw accumulators (out_flags 4): no
// rescale, no clamp.
// CHECK-LABEL: func.func @slice(
// CHECK-DAG: %[[START:.*]] = tosa.const_shape {values = dense<0> : tensor<4xindex>}
// CHECK-DAG: %[[SIZE:.*]] = tosa.const_shape {values = dense<[1, 3, 3, 8]> : tensor<4xindex>}
// CHECK: %[[X:.*]] = tosa.slice %arg0, %[[START]], %[[SIZE]] : (tensor<1x4x4x8xi8>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x3x8xi8>
// CHECK: %[[C:.*]] = tosa.conv2d %[[X]], {{.*}} {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : {{.*}} -> tensor<1x2x2x4xi32>
// CHECK-NEXT: return %[[C]]
func.func @slice(%x: tensor<1x4x4x8xi8>) -> tensor<1x2x2x4xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<4x1x1x8xi8>}> : () -> tensor<4x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 4 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x4x4x8xi8>, tensor<4x1x1x8xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x2x2x4xi32>
  return %c : tensor<1x2x2x4xi32>
}

// -----

// vu.eltwise sub: each input's (x - zp) exactly (a rescale by 2^30 >> 30), shifted left, x then
// rescaled by its own multiplier (DOUBLE_ROUND: out_flags bit 1), y not (its shift is 0); the
// int32 difference; the output rescale and clamp.
// CHECK-LABEL: func.func @add(
// CHECK-DAG: %[[OM:.*]] = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}>
// CHECK-DAG: %[[OS:.*]] = "tosa.const"() <{values = dense<48> : tensor<1xi8>}>
// CHECK-DAG: %[[ONE:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-DAG: %[[THIRTY:.*]] = "tosa.const"() <{values = dense<30> : tensor<1xi8>}>
// CHECK-DAG: %[[XZP:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}>
// CHECK: %[[XC:.*]] = tosa.rescale %arg0, %[[ONE]], %[[THIRTY]], %[[XZP]], %{{.*}} {{{.*}}rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, {{.*}}) -> tensor<1x4x4x8xi32>
// CHECK-NEXT: %[[XL:.*]] = "tosa.const"() <{values = dense<20> : tensor<1x1x1x1xi32>}>
// CHECK-NEXT: %[[XS:.*]] = tosa.logical_left_shift %[[XC]], %[[XL]]
// CHECK-NEXT: %[[XM:.*]] = "tosa.const"() <{values = dense<1623821475> : tensor<1xi32>}>
// CHECK-NEXT: %[[XSH:.*]] = "tosa.const"() <{values = dense<33> : tensor<1xi8>}>
// CHECK: %[[X:.*]] = tosa.rescale %[[XS]], %[[XM]], %[[XSH]], {{.*}} {{{.*}}rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, {{.*}}) -> tensor<1x4x4x8xi32>
// CHECK: %[[YC:.*]] = tosa.rescale %arg1, {{.*}} -> tensor<1x4x4x8xi32>
// CHECK-NEXT: %[[YL:.*]] = "tosa.const"() <{values = dense<19> : tensor<1x1x1x1xi32>}>
// CHECK-NEXT: %[[Y:.*]] = tosa.logical_left_shift %[[YC]], %[[YL]]
// CHECK-NEXT: %[[D:.*]] = tosa.sub %[[X]], %[[Y]]
// CHECK: %[[R:.*]] = tosa.rescale %[[D]], %[[OM]], %[[OS]], {{.*}} {{{.*}}rounding_mode = DOUBLE_ROUND, scale32 = true} : {{.*}} -> tensor<1x4x4x8xi8>
// CHECK-NEXT: tosa.clamp %[[R]] {max_val = 127 : i8, min_val = -128 : i8}
func.func @add(%x: tensor<1x4x4x8xi8>, %y: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %m = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<48> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = "tynnp.sub"(%x, %y, %m, %s) {max = 127 : i64, min = -128 : i64, out_flags = 2 : i64, output_zp = -128 : i64, x_left_shift = 20 : i64, x_multiplier = 1623821475 : i64, x_shift = 33 : i64, x_zp = -128 : i64, y_left_shift = 19 : i64, y_multiplier = 0 : i64, y_shift = 0 : i64, y_zp = 4 : i64} : (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %r : tensor<1x4x4x8xi8>
}

// -----

// Poolings: the maximum reads rows -1 to 5 of 6 (no bottom padding) and needs no clamp over
// all of int8; the average keeps its zero points and clamps to [0, 100].
// CHECK-LABEL: func.func @pools(
// CHECK-NEXT: %[[P:.*]] = tosa.max_pool2d %arg0 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>}
// CHECK-NEXT: %[[IZP:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}>
// CHECK-NEXT: %[[OZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
// CHECK-NEXT: %[[A:.*]] = tosa.avg_pool2d %[[P]], %[[IZP]], %[[OZP]] {acc_type = i32, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 3, 3>}
// CHECK-NEXT: %[[K:.*]] = tosa.clamp %[[A]] {max_val = 100 : i8, min_val = 0 : i8}
// CHECK-NEXT: return %[[K]]
func.func @pools(%x: tensor<1x6x6x8xi8>) -> tensor<1x1x1x8xi8> {
  %p = "tynnp.max_pool2d"(%x) {input_zp = 0 : i64, kh = 3 : i64, kw = 3 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
  %a = "tynnp.avg_pool2d"(%p) {input_zp = -128 : i64, kh = 3 : i64, kw = 3 : i64, max = 100 : i64, min = 0 : i64, output_zp = 5 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 3 : i64, stride_y = 3 : i64} : (tensor<1x3x3x8xi8>) -> tensor<1x1x1x8xi8>
  return %a : tensor<1x1x1x8xi8>
}

// -----

// vu.table is TOSA's table.
// CHECK-LABEL: func.func @table(
// CHECK: tosa.table %arg0, %{{.*}} : (tensor<80xi8>, tensor<256xi8>) -> tensor<80xi8>
func.func @table(%x: tensor<80xi8>) -> tensor<80xi8> {
  %t = "tosa.const"() <{values = dense<7> : tensor<256xi8>}> : () -> tensor<256xi8>
  %y = "tynnp.table"(%x, %t) : (tensor<80xi8>, tensor<256xi8>) -> tensor<80xi8>
  return %y : tensor<80xi8>
}
