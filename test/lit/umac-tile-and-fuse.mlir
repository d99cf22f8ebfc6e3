// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-tile-and-fuse)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-tile-and-fuse{vectors=true})' | FileCheck %s --check-prefix=VECTORS
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-tile-and-fuse{vectors=true pixels=true})' | FileCheck %s --check-prefix=PIXELS
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-tile-and-fuse{output-channels=2})' | FileCheck %s --check-prefix=PAIRS

// Padding, accumulator initialization, convolution and the requantizing consumer are computed
// one output pixel at a time (a materialized pad is built once per pixel, not per channel): the
// int32 accumulator and the padded input exist only as tiles.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_pad_rescale(
// CHECK-NOT: tensor<1x4x4x3xi32>
// CHECK-NOT: tensor<1x6x6x2xi8>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.pad
// CHECK: linalg.fill {{.*}} -> tensor<1x1x1x3xi32>
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x3xi32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x1x3xi32>)
// CHECK: } -> tensor<1x1x1x3xi8>
// CHECK: tensor.insert_slice {{.*}} into tensor<1x4x4x3xi8>
// CHECK-NOT: tensor<1x4x4x3xi32>
func.func @conv_pad_rescale(%x: tensor<1x4x4x2xi8>, %w: tensor<3x3x3x2xi8>) -> tensor<1x4x4x3xi8> {
  %c0 = arith.constant 0 : i32
  %pv = arith.constant 0 : i8
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pv : i8
  } : tensor<1x4x4x2xi8> to tensor<1x6x6x2xi8>
  %e = tensor.empty() : tensor<1x4x4x3xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%padded, %w : tensor<1x6x6x2xi8>, tensor<3x3x3x2xi8>) outs(%f : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  %e8 = tensor.empty() : tensor<1x4x4x3xi8>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%acc : tensor<1x4x4x3xi32>) outs(%e8 : tensor<1x4x4x3xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x3xi8>
  return %y : tensor<1x4x4x3xi8>
}

// -----

// Without a padded input, each output element is its own tile (the accumulator is a scalar).
// A convolution whose result is used twice keeps its whole result (the consumers need it all).
// CHECK-LABEL: func.func @shared_result(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x1xi32>
// CHECK: tensor.insert_slice {{.*}} into tensor<1x4x4x3xi32>
func.func @shared_result(%x: tensor<1x4x4x2xi8>, %w: tensor<3x1x1x2xi8>) -> (tensor<1x4x4x3xi32>, tensor<1x4x4x3xi32>) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x3xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>) outs(%f : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  return %acc, %acc : tensor<1x4x4x3xi32>, tensor<1x4x4x3xi32>
}

// -----

// Elementwise ops alone are left to linalg's elementwise fusion: nothing to tile here.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elementwise_only(
// CHECK-NOT: scf.for
// CHECK: linalg.generic
func.func @elementwise_only(%x: tensor<4x4xi8>) -> tensor<4x4xi8> {
  %e = tensor.empty() : tensor<4x4xi8>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : tensor<4x4xi8>) outs(%e : tensor<4x4xi8>) {
  ^bb0(%a: i8, %o: i8):
    %t = arith.addi %a, %a : i8
    linalg.yield %t : i8
  } -> tensor<4x4xi8>
  return %y : tensor<4x4xi8>
}

// -----

// A producer fusion cannot tile (a call of a partitioned function) is not pulled into the loop
// nest of the pooling and its consumer: the call runs once, before it. Tiled by pixel (vectors),
// the one-pixel loop nest is folded away, and the clone with it: the call still runs once.
// VECTORS-LABEL: func.func @called_producer(
// VECTORS: call @accelerated
// VECTORS-NOT: call @accelerated
// VECTORS: linalg.pooling_nhwc_sum
// CHECK-LABEL: func.func @called_producer(
// CHECK: %[[Y:.*]] = call @accelerated(%{{.*}})
// CHECK-NOT: call @accelerated
// CHECK: scf.for
// CHECK-NOT: call @accelerated
// CHECK: tensor.extract_slice %[[Y]]
// CHECK: linalg.pooling_nhwc_sum
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @accelerated(tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
func.func @called_producer(%x: tensor<1x4x4x8xi32>) -> tensor<1x1x1x8xi32> {
  %y = call @accelerated(%x) : (tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %k = tensor.empty() : tensor<4x4xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x1x1x8xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x1x1x8xi32>) -> tensor<1x1x1x8xi32>
  %p = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<4> : vector<2xi64>} ins(%y, %k : tensor<1x4x4x8xi32>, tensor<4x4xi32>) outs(%f : tensor<1x1x1x8xi32>) -> tensor<1x1x1x8xi32>
  %e2 = tensor.empty() : tensor<1x1x1x8xi32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x1x1x8xi32>) outs(%e2 : tensor<1x1x1x8xi32>) {
  ^bb0(%in: i32, %out: i32):
    %s = arith.addi %in, %in : i32
    linalg.yield %s : i32
  } -> tensor<1x1x1x8xi32>
  return %g : tensor<1x1x1x8xi32>
}

// -----

// A depthwise convolution and its rescale: one element per tile, or, for a CPU with vectors, one
// pixel and four of its 8 channels per tile (one vector of int32 accumulators, the lanes); a
// regular convolution stays one element per tile either way, but for pixels (the host), which
// tiles it one pixel at a time with its channels whole.
// CHECK-LABEL: func.func @depthwise_rescale(
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} -> tensor<1x1x1x1x1xi32>
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x1xi32>
// VECTORS-LABEL: func.func @depthwise_rescale(
// VECTORS: scf.for
// VECTORS: scf.for
// VECTORS: scf.for %{{.*}} = %{{.*}} to %c8 step %c4
// VECTORS-NOT: scf.for
// VECTORS: linalg.fill {{.*}} -> tensor<1x1x1x4x1xi32>
// VECTORS: linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} -> tensor<1x1x1x4x1xi32>
// VECTORS: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x1x4x1xi32>)
// VECTORS: } -> tensor<1x1x1x4x1xi8>
// VECTORS: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x1xi32>
// PIXELS-LABEL: func.func @depthwise_rescale(
// PIXELS: linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} -> tensor<1x1x1x4x1xi32>
// PIXELS: scf.for %{{.*}} = %c0 to %c4 step %c1
// PIXELS: scf.for %{{.*}} = %c0 to %c4 step %c1
// PIXELS-NOT: scf.for
// PIXELS: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x2xi32>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @depthwise_rescale(%x: tensor<1x4x4x8xi8>, %w: tensor<3x3x8x1xi8>, %w2: tensor<2x1x1x8xi8>) -> (tensor<1x2x2x8x1xi8>, tensor<1x4x4x2xi32>) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x8x1xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x2x2x8x1xi32>) -> tensor<1x2x2x8x1xi32>
  %acc = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x4x8xi8>, tensor<3x3x8x1xi8>) outs(%f : tensor<1x2x2x8x1xi32>) -> tensor<1x2x2x8x1xi32>
  %e8 = tensor.empty() : tensor<1x2x2x8x1xi8>
  %y = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
    ins(%acc : tensor<1x2x2x8x1xi32>) outs(%e8 : tensor<1x2x2x8x1xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x2x2x8x1xi8>
  %e2 = tensor.empty() : tensor<1x4x4x2xi32>
  %f2 = linalg.fill ins(%c0 : i32) outs(%e2 : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %acc2 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w2 : tensor<1x4x4x8xi8>, tensor<2x1x1x8xi8>) outs(%f2 : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  return %y, %acc2 : tensor<1x2x2x8x1xi8>, tensor<1x4x4x2xi32>
}

// -----

// With vectors, a depthwise convolution over 6 channels (not a multiple of four) keeps its pixel's
// channels whole.
// VECTORS-LABEL: func.func @depthwise_six(
// VECTORS: scf.for
// VECTORS: scf.for
// VECTORS-NOT: scf.for
// VECTORS: linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} -> tensor<1x1x1x6x1xi32>
#six = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @depthwise_six(%x: tensor<1x4x4x6xi8>, %w: tensor<3x3x6x1xi8>) -> tensor<1x2x2x6x1xi8> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x6x1xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x2x2x6x1xi32>) -> tensor<1x2x2x6x1xi32>
  %acc = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x4x6xi8>, tensor<3x3x6x1xi8>) outs(%f : tensor<1x2x2x6x1xi32>) -> tensor<1x2x2x6x1xi32>
  %e8 = tensor.empty() : tensor<1x2x2x6x1xi8>
  %y = linalg.generic {indexing_maps = [#six, #six], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
    ins(%acc : tensor<1x2x2x6x1xi32>) outs(%e8 : tensor<1x2x2x6x1xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x2x2x6x1xi8>
  return %y : tensor<1x2x2x6x1xi8>
}

// -----

// With output-channels (the DSP extension), a convolution tiled by element takes two output
// channels per tile where its dot products run side by side with a gain: a 3x3 window over 8
// input channels. The tile is the add's, which both convolutions feed: the pointwise one (over 8
// channels at 16 pixels, whose input LLVM would extend once per pixel anyway) asks for one
// channel, the 3x3 one for two, and the add takes the larger. A pointwise convolution alone keeps
// one channel a tile; over few input channels (4, below the dot products' shortest) so does a
// 3x3 one.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// PAIRS-LABEL: func.func @pairs(
// PAIRS: scf.for %{{.*}} = %c0 to %c4 step %c2
// PAIRS: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x2xi32>
// PAIRS: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x2xi32>
// PAIRS: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x1x2xi32>, tensor<1x1x1x2xi32>)
// PAIRS: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x1xi32>
// PAIRS: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x1xi32>
// PAIRS-NOT: linalg.conv_2d_nhwc_fhwc
// CHECK-LABEL: func.func @pairs(
// CHECK-NOT: 1x1x1x2
// CHECK: return
func.func @pairs(%x: tensor<1x6x6x8xi8>, %w: tensor<4x3x3x8xi8>, %p: tensor<1x4x4x8xi8>, %wp: tensor<4x1x1x8xi8>,
                 %few: tensor<1x6x6x4xi8>, %wf: tensor<4x3x3x4xi8>)
    -> (tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x4xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %a = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x6x8xi8>, tensor<4x3x3x8xi8>) outs(%f : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %b = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %wp : tensor<1x4x4x8xi8>, tensor<4x1x1x8xi8>) outs(%f : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %sum = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%a, %b : tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>) outs(%e : tensor<1x4x4x4xi32>) {
  ^bb0(%l: i32, %r: i32, %o: i32):
    %t = arith.addi %l, %r : i32
    linalg.yield %t : i32
  } -> tensor<1x4x4x4xi32>
  %alone = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %wp : tensor<1x4x4x8xi8>, tensor<4x1x1x8xi8>) outs(%f : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %short = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%few, %wf : tensor<1x6x6x4xi8>, tensor<4x3x3x4xi8>) outs(%f : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  return %sum, %alone, %short : tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>
}
