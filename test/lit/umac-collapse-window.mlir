// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-collapse-window))' | FileCheck %s

#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#patch = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d5, d6)>
#filter = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// One pixel's window as umac-im2col gathers it ([5][2][1]): its dot products with the 32
// filters read the window and each filter as rows of 10 contiguous elements, one reduction.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[W2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pixel(
// CHECK-SAME: %[[X:.*]]: tensor<1x9x6x1xi8>, %[[W:.*]]: tensor<32x5x2x1xi8>, %[[ACC:.*]]: tensor<1x1x1x32xi32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} {umac.op = "im2col"}
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0], [1], [2], [3, 4, 5]] : tensor<1x1x1x5x2x1xi8> into tensor<1x1x1x10xi8>
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<32x5x2x1xi8> into tensor<32x10xi8>
// CHECK-NEXT: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[W2]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[R]], %[[F]] : tensor<1x1x1x10xi8>, tensor<32x10xi8>) outs(%[[ACC]] : tensor<1x1x1x32xi32>) attrs = {{ *}}{umac.op = "conv_2d_nhwc_fhwc"}
// CHECK: arith.extsi
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK: return %[[Y]]
func.func @pixel(%x: tensor<1x9x6x1xi8>, %w: tensor<32x5x2x1xi8>, %acc: tensor<1x1x1x32xi32>) -> tensor<1x1x1x32xi32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x1x1x5x2x1xi8>
  %p = linalg.generic {indexing_maps = [#window], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<1x1x1x5x2x1xi8>) attrs = {umac.op = "im2col"} {
  ^bb0(%o: i8):
    %kh = linalg.index 3 : index
    %kw = linalg.index 4 : index
    %v = tensor.extract %x[%c0, %kh, %kw, %c0] : tensor<1x9x6x1xi8>
    linalg.yield %v : i8
  } -> tensor<1x1x1x5x2x1xi8>
  %y = linalg.generic {indexing_maps = [#patch, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w : tensor<1x1x1x5x2x1xi8>, tensor<32x5x2x1xi8>) outs(%acc : tensor<1x1x1x32xi32>) attrs = {umac.op = "conv_2d_nhwc_fhwc"} {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %aw = arith.extsi %a : i8 to i32
    %bw = arith.extsi %b : i8 to i32
    %m = arith.muli %aw, %bw : i32
    %r = arith.addi %s, %m : i32
    linalg.yield %r : i32
  } -> tensor<1x1x1x32xi32>
  return %y : tensor<1x1x1x32xi32>
}

// -----

#patch = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d5, d6)>
#filter = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A window umac-im2col did not gather (it may be a view of something larger): left alone.
// CHECK-LABEL: func.func @not_gathered(
// CHECK-NOT: tensor.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @not_gathered(%p: tensor<1x1x1x5x2x1xi8>, %w: tensor<32x5x2x1xi8>, %acc: tensor<1x1x1x32xi32>) -> tensor<1x1x1x32xi32> {
  %y = linalg.generic {indexing_maps = [#patch, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w : tensor<1x1x1x5x2x1xi8>, tensor<32x5x2x1xi8>) outs(%acc : tensor<1x1x1x32xi32>) attrs = {umac.op = "conv_2d_nhwc_fhwc"} {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %aw = arith.extsi %a : i8 to i32
    %bw = arith.extsi %b : i8 to i32
    %m = arith.muli %aw, %bw : i32
    %r = arith.addi %s, %m : i32
    linalg.yield %r : i32
  } -> tensor<1x1x1x32xi32>
  return %y : tensor<1x1x1x32xi32>
}
