// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-channels-innermost),canonicalize)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-channels-innermost{dot-products=true}),canonicalize)' | FileCheck %s --check-prefix=DOTS

// A depthwise convolution tiled one pixel at a time: the window loops go outside, the channel
// loop is innermost (unit loops folded away by canonicalize) and kept rolled.
// CHECK: #[[KEEP:.*]] = #llvm.loop_annotation<unroll = #{{.*}}>
// CHECK-LABEL: func.func @depthwise(
// CHECK-NOT: linalg.
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: scf.for %[[KW:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.load %arg0[%c0, %[[KH]], %[[KW]], %[[C]]] : memref<1x3x3x8xi8>
// CHECK-NEXT: memref.load %arg1[%[[KH]], %[[KW]], %[[C]], %c0] : memref<3x3x8x1xi8>
// CHECK-NEXT: memref.load %arg2[%c0, %c0, %c0, %[[C]], %c0] : memref<1x1x1x8x1xi32>
// CHECK: memref.store %{{.*}}, %arg2[%c0, %c0, %c0, %[[C]], %c0] : memref<1x1x1x8x1xi32>
// CHECK-NEXT: } {loop_annotation = #[[KEEP]]}
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @depthwise(%x: memref<1x3x3x8xi8>, %w: memref<3x3x8x1xi8>, %acc: memref<1x1x1x8x1xi32>) {
  linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x3x8xi8>, memref<3x3x8x1xi8>) outs(%acc : memref<1x1x1x8x1xi32>)
  return
}

// -----

// Pooling: the same, with one channel loop.
// CHECK-LABEL: func.func @pool(
// CHECK: scf.for %[[KH:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[KW:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: memref.load %arg0[%c0, %[[KH]], %[[KW]], %[[C]]] : memref<1x2x2x16xi8>
// CHECK: } {loop_annotation =
func.func @pool(%x: memref<1x2x2x16xi8>, %w: memref<2x2xi32>, %acc: memref<1x1x1x16xi32>) {
  linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x2x2x16xi8>, memref<2x2xi32>) outs(%acc : memref<1x1x1x16xi32>)
  return
}

// -----

// The generic `umac-fold-padding` writes for a padded depthwise convolution (bounds-checked
// reads through `linalg.index`): interchanged the same way, the indices follow their loops.
#x = affine_map<(n, h, w, c, m, kh, kw) -> (n, 0, 0, c)>
#f = affine_map<(n, h, w, c, m, kh, kw) -> (kh, kw, c, m)>
#o = affine_map<(n, h, w, c, m, kh, kw) -> (n, h, w, c, m)>
// CHECK-LABEL: func.func @padded(
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: scf.for %[[KW:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c4 step %c1 {
// CHECK: arith.addi %[[KH]], %[[KW]] : index
// CHECK: memref.load %arg0[%c0, %{{.*}}, %{{.*}}, %[[C]]] : memref<1x2x2x4xi8>
// CHECK: } {loop_annotation =
func.func @padded(%x: memref<1x2x2x4xi8>, %w: memref<3x3x4x1xi8>, %acc: memref<1x1x1x4x1xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant -128 : i8
  linalg.generic {indexing_maps = [#x, #f, #o],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"],
                  umac.op = "depthwise_conv_2d_nhwc_hwcm"}
      ins(%x, %w : memref<1x2x2x4xi8>, memref<3x3x4x1xi8>) outs(%acc : memref<1x1x1x4x1xi32>) {
  ^bb0(%unused: i8, %f: i8, %a: i32):
    %n = linalg.index 0 : index
    %c = linalg.index 3 : index
    %kh = linalg.index 5 : index
    %kw = linalg.index 6 : index
    %s = arith.addi %kh, %kw : index
    %inside = arith.cmpi ult, %s, %c2 : index
    %i = arith.select %inside, %s, %c0 : index
    %v = memref.load %x[%n, %i, %i, %c] : memref<1x2x2x4xi8>
    %p = arith.select %inside, %v, %pad : i8
    %xe = arith.extsi %p : i8 to i32
    %fe = arith.extsi %f : i8 to i32
    %m = arith.muli %xe, %fe : i32
    %r = arith.addi %a, %m : i32
    linalg.yield %r : i32
  }
  return
}

// -----

// One channel per tile (a CPU without vectors tiles by element): nothing to gain, left alone.
// CHECK-LABEL: func.func @one_channel(
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm
func.func @one_channel(%x: memref<1x3x3x1xi8>, %w: memref<3x3x1x1xi8>, %acc: memref<1x1x1x1x1xi32>) {
  linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x3x1xi8>, memref<3x3x1x1xi8>) outs(%acc : memref<1x1x1x1x1xi32>)
  return
}

// -----

// A convolution tile of two output channels (umac-tile-and-fuse{output-channels}): with
// dot-products its output-channel loop goes inside the window and input-channel loops, not marked
// (umac-vectorize-dot-products{dsp} rewrites the input-channel loop around it); without, and for
// a tile of eight channels (more than four sums to carry), it is left alone.
// DOTS-LABEL: func.func @conv_pair(
// DOTS-NOT: linalg.
// DOTS: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 {
// DOTS-NEXT: scf.for %[[KW:.*]] = %c0 to %c3 step %c1 {
// DOTS-NEXT: scf.for %[[C:.*]] = %c0 to %c8 step %c1 {
// DOTS-NEXT: scf.for %[[F:.*]] = %c0 to %c2 step %c1 {
// DOTS-NEXT: memref.load %arg0[%c0, %[[KH]], %[[KW]], %[[C]]] : memref<1x3x3x8xi8>
// DOTS-NEXT: memref.load %arg1[%[[F]], %[[KH]], %[[KW]], %[[C]]] : memref<2x3x3x8xi8>
// DOTS-NEXT: memref.load %arg2[%c0, %c0, %c0, %[[F]]] : memref<1x1x1x2xi32>
// DOTS-NOT: loop_annotation
// DOTS: return
// DOTS-LABEL: func.func @conv_eight(
// DOTS: linalg.conv_2d_nhwc_fhwc
// CHECK-LABEL: func.func @conv_pair(
// CHECK: linalg.conv_2d_nhwc_fhwc
func.func @conv_pair(%x: memref<1x3x3x8xi8>, %w: memref<2x3x3x8xi8>, %acc: memref<1x1x1x2xi32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x3x8xi8>, memref<2x3x3x8xi8>) outs(%acc : memref<1x1x1x2xi32>)
  return
}
func.func @conv_eight(%x: memref<1x3x3x8xi8>, %w: memref<8x3x3x8xi8>, %acc: memref<1x1x1x8xi32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x3x8xi8>, memref<8x3x3x8xi8>) outs(%acc : memref<1x1x1x8xi32>)
  return
}
