// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-im2col),canonicalize)' | FileCheck %s
// Fused per pixel, the window is one pixel's (10 bytes), gathered once for its 32 channels.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-im2col),canonicalize,umac-tile-and-fuse,canonicalize)' | FileCheck %s --check-prefix=FUSED
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-im2col{all-windows=true}),canonicalize)' | FileCheck %s --check-prefix=ALL

// A convolution over one input channel (a 5x2 window, stride 2, two rows of padding above and
// below) gathers each output pixel's window over the window's own loops into a [5][2][1]
// patch, reading the unpadded input in place (positions outside it take the pad value), then
// sums patch x filter over the window.
// CHECK-DAG: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[IH:.*]] = affine_map<()[s0, s1] -> (s0 * 2 + s1 - 2)>
// CHECK-DAG: #[[IW:.*]] = affine_map<()[s0, s1] -> (s0 * 2 + s1)>
// CHECK-DAG: #[[PATCH:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d5, d6)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @padded(
// CHECK-SAME: %[[X:.*]]: tensor<1x9x6x1xi8>, %[[W:.*]]: tensor<32x5x2x1xi8>
// CHECK-NOT: tensor.pad
// CHECK: %[[PAD:.*]] = arith.constant 83 : i8
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[WINDOW]]], {{.*}} outs(%{{.*}} : tensor<1x5x3x5x2x1xi8>) attrs = {{ *}}{umac.op = "im2col"}
// CHECK: %[[OH:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[OW:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[KH:.*]] = linalg.index 3 : index
// CHECK-NEXT: %[[KW:.*]] = linalg.index 4 : index
// CHECK-NEXT: %[[I:.*]] = affine.apply #[[IH]]()[%[[OH]], %[[KH]]]
// CHECK-NEXT: %[[J:.*]] = affine.apply #[[IW]]()[%[[OW]], %[[KW]]]
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[V:.*]] = tensor.extract %[[X]]
// CHECK-NEXT: %[[XV:.*]] = arith.select %[[IN]], %[[V]], %[[PAD]] : i8
// CHECK-NEXT: linalg.yield %[[XV]] : i8
// CHECK: linalg.generic {indexing_maps = [#[[PATCH]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %[[W]] : tensor<1x5x3x5x2x1xi8>, tensor<32x5x2x1xi8>) outs(%{{.*}} : tensor<1x5x3x32xi32>) attrs = {{ *}}{umac.op = "conv_2d_nhwc_fhwc"}
// CHECK-NEXT: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[ACC:.*]]: i32):
// CHECK-NEXT: %[[AW:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT: %[[BW:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT: %[[PR:.*]] = arith.muli %[[AW]], %[[BW]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[ACC]], %[[PR]] : i32
// CHECK-NEXT: linalg.yield %[[S]] : i32
// FUSED-LABEL: func.func @padded(
// FUSED: scf.for
// FUSED: scf.for
// FUSED-NOT: scf.for
// FUSED: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x1x5x2x1xi8>) attrs = {{ *}}{umac.op = "im2col"}
// FUSED: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x1x5x2x1xi8>, tensor<32x5x2x1xi8>) outs(%{{.*}} : tensor<1x1x1x32xi32>)
func.func @padded(%x: tensor<1x9x6x1xi8>, %w: tensor<32x5x2x1xi8>) -> tensor<1x5x3x32xi32> {
  %pv = arith.constant 83 : i8
  %c0 = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 2, 0, 0] high[0, 2, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %pv : i8
  } : tensor<1x9x6x1xi8> to tensor<1x13x6x1xi8>
  %e = tensor.empty() : tensor<1x5x3x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x5x3x32xi32>) -> tensor<1x5x3x32xi32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %w : tensor<1x13x6x1xi8>, tensor<32x5x2x1xi8>) outs(%f : tensor<1x5x3x32xi32>) -> tensor<1x5x3x32xi32>
  return %y : tensor<1x5x3x32xi32>
}

// -----

// Unpadded, three channels, a 3x3 window dilated by 2 across: read at (oh + kh, ow + kw * 2, c)
// with no bounds checks.
// CHECK-DAG: #[[IH:.*]] = affine_map<()[s0, s1] -> (s0 + s1)>
// CHECK-DAG: #[[IW:.*]] = affine_map<()[s0, s1] -> (s0 + s1 * 2)>
// CHECK-LABEL: func.func @dilated(
// CHECK-SAME: %[[X:.*]]: tensor<1x6x8x3xi8>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x4x3x3x3xi8>) attrs = {{ *}}{umac.op = "im2col"}
// CHECK-NOT: arith.cmpi
// CHECK: %[[C:.*]] = linalg.index 5 : index
// CHECK-NEXT: %[[I:.*]] = affine.apply #[[IH]]
// CHECK-NEXT: %[[J:.*]] = affine.apply #[[IW]]
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %[[I]], %[[J]], %[[C]]] : tensor<1x6x8x3xi8>
// CHECK-NEXT: linalg.yield %[[V]] : i8
func.func @dilated(%x: tensor<1x6x8x3xi8>, %w: tensor<32x3x3x3xi8>, %init: tensor<1x4x4x32xi32>) -> tensor<1x4x4x32xi32> {
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x8x3xi8>, tensor<32x3x3x3xi8>) outs(%init : tensor<1x4x4x32xi32>) -> tensor<1x4x4x32xi32>
  return %y : tensor<1x4x4x32xi32>
}

// -----

// Left alone: 8 input channels (the dot products take them along the channel loop), a window
// of fewer than 8 elements (nothing worth gathering), 4 output channels (fewer than 8 to share
// a patch), and zero points still in the op.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: im2col
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} tensor<32x3x3x8xi8>
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} tensor<32x1x7x1xi8>
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} tensor<4x3x3x1xi8>
// CHECK: linalg.conv_2d_nhwc_fhwc_q
func.func @left_alone(%x: tensor<1x6x8x8xi8>, %w: tensor<32x3x3x8xi8>, %i: tensor<1x4x6x32xi32>,
                      %x1: tensor<1x6x8x1xi8>, %w1: tensor<32x1x7x1xi8>, %i1: tensor<1x6x2x32xi32>,
                      %w3: tensor<4x3x3x1xi8>, %i3: tensor<1x4x6x4xi32>,
                      %w2: tensor<32x3x3x1xi8>, %i2: tensor<1x4x6x32xi32>, %zp: i32)
    -> (tensor<1x4x6x32xi32>, tensor<1x6x2x32xi32>, tensor<1x4x6x4xi32>, tensor<1x4x6x32xi32>) {
  %a = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x8x8xi8>, tensor<32x3x3x8xi8>) outs(%i : tensor<1x4x6x32xi32>) -> tensor<1x4x6x32xi32>
  %b = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x1, %w1 : tensor<1x6x8x1xi8>, tensor<32x1x7x1xi8>) outs(%i1 : tensor<1x6x2x32xi32>) -> tensor<1x6x2x32xi32>
  %d = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x1, %w3 : tensor<1x6x8x1xi8>, tensor<4x3x3x1xi8>) outs(%i3 : tensor<1x4x6x4xi32>) -> tensor<1x4x6x4xi32>
  %c = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x1, %w2, %zp, %zp : tensor<1x6x8x1xi8>, tensor<32x3x3x1xi8>, i32, i32) outs(%i2 : tensor<1x4x6x32xi32>) -> tensor<1x4x6x32xi32>
  return %a, %b, %d, %c : tensor<1x4x6x32xi32>, tensor<1x6x2x32xi32>, tensor<1x4x6x4xi32>, tensor<1x4x6x32xi32>
}

// -----

// With all-windows (the host engine) a window larger than 1x1 is gathered whatever its input
// channels (16 here); a 1x1 one is not (its window is one pixel's channels, contiguous already).
// Without, neither is.
// CHECK-LABEL: func.func @many_channels(
// CHECK-NOT: im2col
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} tensor<32x3x3x16xi8>
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} tensor<32x1x1x16xi8>
// ALL-LABEL: func.func @many_channels(
// ALL: outs(%{{.*}} : tensor<1x4x6x3x3x16xi8>) attrs = {{ *}}{umac.op = "im2col"}
// ALL: ins(%{{.*}}, %{{.*}} : tensor<1x4x6x3x3x16xi8>, tensor<32x3x3x16xi8>) {{.*}}{umac.op = "conv_2d_nhwc_fhwc"}
// ALL-NOT: im2col
// ALL: linalg.conv_2d_nhwc_fhwc {{.*}} tensor<32x1x1x16xi8>
func.func @many_channels(%x: tensor<1x6x8x16xi8>, %w: tensor<32x3x3x16xi8>, %i: tensor<1x4x6x32xi32>,
                         %w1: tensor<32x1x1x16xi8>, %i1: tensor<1x6x8x32xi32>)
    -> (tensor<1x4x6x32xi32>, tensor<1x6x8x32xi32>) {
  %a = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x8x16xi8>, tensor<32x3x3x16xi8>) outs(%i : tensor<1x4x6x32xi32>) -> tensor<1x4x6x32xi32>
  %b = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : tensor<1x6x8x16xi8>, tensor<32x1x1x16xi8>) outs(%i1 : tensor<1x6x8x32xi32>) -> tensor<1x6x8x32xi32>
  return %a, %b : tensor<1x4x6x32xi32>, tensor<1x6x8x32xi32>
}
