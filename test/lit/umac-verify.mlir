// umac-verify accepts valid umac IR unchanged, wherever it is placed in a pipeline.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-verify)' | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-verify))' | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-verify,canonicalize,umac-verify)' | FileCheck %s

// CHECK-LABEL: func.func private @k(memref<1x4xi8>, memref<4xi32>, memref<1x4xi8>)
// CHECK-LABEL: func.func @npu_0(
// CHECK-SAME: attributes {umac.composite = "conv2d_rescale_clamp", umac.target = "npu"}
// CHECK: "umac.call_extern"(%arg0, %arg1, %arg2) {callee = @k, operandSegmentSizes = array<i32: 2, 1>}
// CHECK: "umac.call_extern"(%arg0, %arg2) {callee = @undeclared_c_symbol, operandSegmentSizes = array<i32: 1, 1>}
// CHECK: "umac.call_extern"(%arg3, %arg2) {callee = @k2, operandSegmentSizes = array<i32: 1, 1>} : (memref<?x4xi8, strided<[4, 1], offset: ?>>, memref<1x4xi8>)
func.func private @k(memref<1x4xi8>, memref<4xi32>, memref<1x4xi8>)

func.func @npu_0(%in: memref<1x4xi8>, %bias: memref<4xi32>, %out: memref<1x4xi8>, %view: memref<?x4xi8, strided<[4, 1], offset: ?>>) attributes {umac.target = "npu", umac.composite = "conv2d_rescale_clamp"} {
  "umac.call_extern"(%in, %bias, %out) {callee = @k, operandSegmentSizes = array<i32: 2, 1>} : (memref<1x4xi8>, memref<4xi32>, memref<1x4xi8>) -> ()
  "umac.call_extern"(%in, %out) {callee = @undeclared_c_symbol, operandSegmentSizes = array<i32: 1, 1>} : (memref<1x4xi8>, memref<1x4xi8>) -> ()
  "umac.call_extern"(%view, %out) {callee = @k2, operandSegmentSizes = array<i32: 1, 1>} : (memref<?x4xi8, strided<[4, 1], offset: ?>>, memref<1x4xi8>) -> ()
  return
}
