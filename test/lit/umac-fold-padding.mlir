// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-fold-padding),canonicalize)' | FileCheck %s
// Without vectors or the DSP extension (RV32IM, Cortex-M3) a convolution over 16 or more input
// channels records no interior; every other op still does.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-fold-padding{wide-interiors=false}),canonicalize)' | FileCheck %s --check-prefix=NARROW

// A quantized depthwise convolution over a padded input reads the input in place: positions
// outside it take the pad value, and the arithmetic is the named op's. Output rows and columns
// 1..3 read no padding (umac.interior).
// CHECK-LABEL: func.func @depthwise(
// NARROW-LABEL: func.func @depthwise(
// NARROW: umac.interior = array<i64: 1, 4, 1, 4>, umac.op = "depthwise_conv_2d_nhwc_hwcm_q"
// CHECK-SAME: %[[X:.*]]: tensor<1x5x5x4xi8>, %[[W:.*]]: tensor<3x3x4x1xi8>, %[[IZP:.*]]: i32, %[[WZP:.*]]: i32
// CHECK-NOT: tensor.pad
// CHECK: %[[PAD:.*]] = arith.constant -128 : i8
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[W]] : tensor<3x3x4x1xi8>) outs(%{{.*}} : tensor<1x5x5x4x1xi32>) attrs = {{ *}}{umac.interior = array<i64: 1, 4, 1, 4>, umac.op = "depthwise_conv_2d_nhwc_hwcm_q"}
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi ult
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[V:.*]] = tensor.extract %[[X]]
// CHECK: arith.select %[[IN]], %[[V]], %[[PAD]] : i8
// CHECK: arith.subi %{{.*}}, %[[IZP]] : i32
// CHECK: arith.subi %{{.*}}, %[[WZP]] : i32
// CHECK: arith.muli
// CHECK: arith.addi
func.func @depthwise(%x: tensor<1x5x5x4xi8>, %w: tensor<3x3x4x1xi8>, %izp: i32, %wzp: i32) -> tensor<1x5x5x4x1xi32> {
  %pv = arith.constant -128 : i8
  %c0 = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : i8
  } : tensor<1x5x5x4xi8> to tensor<1x7x7x4xi8>
  %e = tensor.empty() : tensor<1x5x5x4x1xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x5x5x4x1xi32>) -> tensor<1x5x5x4x1xi32>
  %y = linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w, %izp, %wzp : tensor<1x7x7x4xi8>, tensor<3x3x4x1xi8>, i32, i32) outs(%f : tensor<1x5x5x4x1xi32>) -> tensor<1x5x5x4x1xi32>
  return %y : tensor<1x5x5x4x1xi32>
}

// -----

// Strides and padding enter the input index: ih = oh * 2 + kh - 1.
// CHECK-LABEL: func.func @strided_conv(
// CHECK: umac.op = "conv_2d_nhwc_fhwc_q"
// CHECK: affine.apply #{{.*}}()[%{{.*}}, %{{.*}}]
func.func @strided_conv(%x: tensor<1x8x8x2xi8>, %w: tensor<4x3x3x2xi8>) -> tensor<1x4x4x4xi32> {
  %pv = arith.constant 5 : i8
  %izp = arith.constant 5 : i32
  %wzp = arith.constant 0 : i32
  %c0 = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : i8
  } : tensor<1x8x8x2xi8> to tensor<1x9x9x2xi8>
  %e = tensor.empty() : tensor<1x4x4x4xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %y = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %w, %izp, %wzp : tensor<1x9x9x2xi8>, tensor<4x3x3x2xi8>, i32, i32) outs(%f : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  return %y : tensor<1x4x4x4xi32>
}

// -----

// Max pooling: the window operand keeps the loop bounds; the pad value competes in the max.
// CHECK-LABEL: func.func @max_pool(
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x2xi32>)
// CHECK-SAME: umac.op = "pooling_nhwc_max"
// CHECK: arith.maxsi
func.func @max_pool(%x: tensor<1x3x3x1xi32>) -> tensor<1x2x2x1xi32> {
  %pv = arith.constant -2147483648 : i32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : i32
  } : tensor<1x3x3x1xi32> to tensor<1x4x4x1xi32>
  %window = tensor.empty() : tensor<2x2xi32>
  %e = tensor.empty() : tensor<1x2x2x1xi32>
  %f = linalg.fill ins(%pv : i32) outs(%e : tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xi32>
  %y = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%p, %window : tensor<1x4x4x1xi32>, tensor<2x2xi32>) outs(%f : tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xi32>
  return %y : tensor<1x2x2x1xi32>
}

// -----

// Padding of the channels is not foldable this way: the pad stays.
// CHECK-LABEL: func.func @channel_padding(
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nhwc_fhwc
func.func @channel_padding(%x: tensor<1x4x4x1xi8>, %w: tensor<2x1x1x2xi8>) -> tensor<1x4x4x2xi32> {
  %pv = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : i8
  } : tensor<1x4x4x1xi8> to tensor<1x4x4x2xi8>
  %e = tensor.empty() : tensor<1x4x4x2xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>) outs(%f : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  return %y : tensor<1x4x4x2xi32>
}

// -----

// A convolution over 16 input channels records its interior too: its dot products run on
// vectors or the DSP extension, and the interior's need no bounds check.
// CHECK-LABEL: func.func @wide_conv(
// CHECK: umac.interior = array<i64: 1, 3, 1, 3>, umac.op = "conv_2d_nhwc_fhwc_q"
// NARROW-LABEL: func.func @wide_conv(
// NARROW-NOT: umac.interior
// NARROW: umac.op = "conv_2d_nhwc_fhwc_q"
func.func @wide_conv(%x: tensor<1x4x4x16xi8>, %w: tensor<4x3x3x16xi8>) -> tensor<1x4x4x4xi32> {
  %pv = arith.constant -128 : i8
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 0 : i32
  %c0 = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : i8
  } : tensor<1x4x4x16xi8> to tensor<1x6x6x16xi8>
  %e = tensor.empty() : tensor<1x4x4x4xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %y = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w, %izp, %wzp : tensor<1x6x6x16xi8>, tensor<4x3x3x16xi8>, i32, i32) outs(%f : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  return %y : tensor<1x4x4x4xi32>
}

// -----

// Float convolutions and poolings read their padded input in place too, with the named op's
// arithmetic (mulf, addf; maximumf for max pooling) and no identity arithmetic on the values
// (-0.0 + 0.0 would be +0.0): a float residual network's stride-2 convolution with asymmetric
// padding, whose ReLU producer was fused into each pixel's window, left a dynamically sized
// window behind that no static memory plan could place.
// CHECK-LABEL: func.func @float_conv(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x8x4xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: umac.interior = array<i64: 0, 3, 0, 3>, umac.op = "conv_2d_nhwc_fhwc"
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[V:.*]] = tensor.extract %[[X]]
// CHECK: %[[XV:.*]] = arith.select %[[IN]], %[[V]], %[[PAD]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XV]], %{{.*}} : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %{{.*}}, %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @float_conv(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<1x4x4x8xf32> {
  %pv = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : f32
  } : tensor<1x8x8x4xf32> to tensor<1x9x9x4xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %f = linalg.fill ins(%pv : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %w : tensor<1x9x9x4xf32>, tensor<8x3x3x4xf32>) outs(%f : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @float_max_pool(
// CHECK-NOT: tensor.pad
// CHECK: umac.op = "pooling_nhwc_max"
// CHECK: arith.maximumf
func.func @float_max_pool(%x: tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32> {
  %pv = arith.constant -3.40282347E+38 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : f32
  } : tensor<1x5x5x2xf32> to tensor<1x7x7x2xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x5x5x2xf32>
  %f = linalg.fill ins(%pv : f32) outs(%e : tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
  %y = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %k : tensor<1x7x7x2xf32>, tensor<3x3xf32>) outs(%f : tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
  return %y : tensor<1x5x5x2xf32>
}
