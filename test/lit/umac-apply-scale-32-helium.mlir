// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-apply-scale-32{helium=true}))' | FileCheck %s

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
// The per-channel rescale of a depthwise convolution (whose channel loops are vectorized), with
// constant multipliers (none i32::MIN) and shifts of 33 or more: the Helium form. The doubling
// high multiply with rounding in 64-bit integers, its truncation marked umac.doubling_high
// (vqrdmulh once vectorized), minus one for a negative value, then the rounding right shift by
// s - 31 as ((h >> (s - 32)) + 1) >> 1 (vrshl once vectorized).
// (driver/tests/apply_scale.rs checks its values against the 64-bit definition.)
// CHECK-LABEL: func.func @depthwise(
// CHECK-NOT: tosa.apply_scale
// CHECK: ^bb0(%[[V:.*]]: i32, %[[M:.*]]: i32, %[[S:.*]]: i8, %{{.*}}: i32):
// CHECK: %[[V64:.*]] = arith.extsi %[[V]] : i32 to i64
// CHECK: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK: %[[P:.*]] = arith.muli %[[V64]], %[[M64]] : i64
// CHECK: %[[R:.*]] = arith.addi %[[P]], %c1073741824_i64 : i64
// CHECK: %[[HI:.*]] = arith.shrsi %[[R]], %c31_i64 : i64
// CHECK: %[[D:.*]] = arith.trunci %[[HI]] {umac.doubling_high} : i64 to i32
// CHECK: %[[B:.*]] = arith.shrsi %[[V]], %c31_i32 : i32
// CHECK: %[[H:.*]] = arith.addi %[[D]], %[[B]] : i32
// CHECK: %[[S32:.*]] = arith.extui %[[S]] : i8 to i32
// CHECK: %[[Q:.*]] = arith.subi %[[S32]], %c32_i32 : i32
// CHECK: %[[DOWN:.*]] = arith.shrsi %[[H]], %[[Q]] : i32
// CHECK: %[[UP:.*]] = arith.addi %[[DOWN]], %c1_i32 overflow<nsw> : i32
// CHECK: %[[Y:.*]] = arith.shrsi %[[UP]], %c1_i32 : i32
// CHECK: linalg.yield %[[Y]] : i32
func.func @depthwise(%x: tensor<1x4x4x3xi8>, %f: tensor<3x3x3xi8>) -> tensor<1x2x2x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x3xi32>
  %init = linalg.fill ins(%z : i32) outs(%e : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %acc = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<1x4x4x3xi8>, tensor<3x3x3xi8>) outs(%init : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %m = arith.constant dense<[1359514674, 1510897544, -5]> : tensor<3xi32>
  %s = arith.constant dense<[37, 33, 62]> : tensor<3xi8>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #channel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m, %s : tensor<1x2x2x3xi32>, tensor<3xi32>, tensor<3xi8>) outs(%e : tensor<1x2x2x3xi32>) {
  ^bb0(%a: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %a, %mm, %ss {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  } -> tensor<1x2x2x3xi32>
  return %r : tensor<1x2x2x3xi32>
}

// -----

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
// A multiplier i32::MIN (vqrdmulh would saturate): the 32-bit form.
// CHECK-LABEL: func.func @min_multiplier(
// CHECK-NOT: umac.doubling_high
// CHECK: arith.mulsi_extended
// CHECK-NOT: umac.doubling_high
// CHECK: return
func.func @min_multiplier(%x: tensor<1x4x4x3xi8>, %f: tensor<3x3x3xi8>) -> tensor<1x2x2x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x3xi32>
  %init = linalg.fill ins(%z : i32) outs(%e : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %acc = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<1x4x4x3xi8>, tensor<3x3x3xi8>) outs(%init : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %m = arith.constant dense<[1359514674, -2147483648, 5]> : tensor<3xi32>
  %s = arith.constant dense<[37, 33, 62]> : tensor<3xi8>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #channel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m, %s : tensor<1x2x2x3xi32>, tensor<3xi32>, tensor<3xi8>) outs(%e : tensor<1x2x2x3xi32>) {
  ^bb0(%a: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %a, %mm, %ss {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  } -> tensor<1x2x2x3xi32>
  return %r : tensor<1x2x2x3xi32>
}

// -----

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
// A shift of 32 (r = 1, where ((h >> 0) + 1) >> 1 could overflow): the 32-bit form.
// CHECK-LABEL: func.func @shift_32(
// CHECK-NOT: umac.doubling_high
// CHECK: arith.mulsi_extended
// CHECK-NOT: umac.doubling_high
// CHECK: return
func.func @shift_32(%x: tensor<1x4x4x3xi8>, %f: tensor<3x3x3xi8>) -> tensor<1x2x2x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x3xi32>
  %init = linalg.fill ins(%z : i32) outs(%e : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %acc = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<1x4x4x3xi8>, tensor<3x3x3xi8>) outs(%init : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %m = arith.constant dense<[1359514674, 1510897544, 5]> : tensor<3xi32>
  %s = arith.constant dense<[37, 32, 62]> : tensor<3xi8>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #channel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m, %s : tensor<1x2x2x3xi32>, tensor<3xi32>, tensor<3xi8>) outs(%e : tensor<1x2x2x3xi32>) {
  ^bb0(%a: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %a, %mm, %ss {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  } -> tensor<1x2x2x3xi32>
  return %r : tensor<1x2x2x3xi32>
}

// -----

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
// Multipliers not known at compile time: the 32-bit form.
// CHECK-LABEL: func.func @unknown_multipliers(
// CHECK-NOT: umac.doubling_high
// CHECK: arith.mulsi_extended
// CHECK-NOT: umac.doubling_high
// CHECK: return
func.func @unknown_multipliers(%x: tensor<1x4x4x3xi8>, %f: tensor<3x3x3xi8>, %m: tensor<3xi32>) -> tensor<1x2x2x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x3xi32>
  %init = linalg.fill ins(%z : i32) outs(%e : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %acc = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<1x4x4x3xi8>, tensor<3x3x3xi8>) outs(%init : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %s = arith.constant dense<[37, 33, 62]> : tensor<3xi8>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #channel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m, %s : tensor<1x2x2x3xi32>, tensor<3xi32>, tensor<3xi8>) outs(%e : tensor<1x2x2x3xi32>) {
  ^bb0(%a: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %a, %mm, %ss {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  } -> tensor<1x2x2x3xi32>
  return %r : tensor<1x2x2x3xi32>
}

// -----

// The rescale of a convolution over 16 input channels (its dot products, then the rescale one
// output at a time, scalar code): the 32-bit form, an instruction or so cheaper there.
#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @convolution(
// CHECK-NOT: umac.doubling_high
// CHECK: arith.mulsi_extended
// CHECK-NOT: umac.doubling_high
// CHECK: return
func.func @convolution(%x: tensor<1x4x4x16xi8>, %f: tensor<3x3x3x16xi8>) -> tensor<1x2x2x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x3xi32>
  %init = linalg.fill ins(%z : i32) outs(%e : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<1x4x4x16xi8>, tensor<3x3x3x16xi8>) outs(%init : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %m = arith.constant dense<[1359514674, 1510897544, 5]> : tensor<3xi32>
  %s = arith.constant dense<[37, 33, 62]> : tensor<3xi8>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #channel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m, %s : tensor<1x2x2x3xi32>, tensor<3xi32>, tensor<3xi8>) outs(%e : tensor<1x2x2x3xi32>) {
  ^bb0(%a: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %a, %mm, %ss {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  } -> tensor<1x2x2x3xi32>
  return %r : tensor<1x2x2x3xi32>
}
