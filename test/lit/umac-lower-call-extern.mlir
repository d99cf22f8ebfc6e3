// umac-lower-call-extern: extern C calls become calls of declared functions; memrefs are passed
// as the address of their first element, scalars as themselves.
// The last two cases are rejected, so the tool exits with 1 after printing the others.
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-lower-call-extern)' 2>/dev/null | FileCheck %s
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-lower-call-extern)' > /dev/null

// CHECK-LABEL: func.func @two_calls(
// CHECK-SAME: %[[IN:.*]]: memref<4xi8>, %[[OUT:.*]]: memref<4xi8>, %[[N:.*]]: i32)
// CHECK: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[IN]] : memref<4xi8> -> index
// CHECK: %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]] : memref<4xi8> -> index
// CHECK: call @k(%[[P0]], %[[N]], %[[P1]]) : (index, i32, index) -> ()
// CHECK: call @k({{.*}}) : (index, i32, index) -> ()
// CHECK-NOT: umac.call_extern
// One declaration serves every call.
// CHECK: func.func private @k(index, i32, index)
// CHECK-NOT: func.func private @k
func.func @two_calls(%in: memref<4xi8>, %out: memref<4xi8>, %n: i32) {
  "umac.call_extern"(%in, %n, %out) {callee = @k, operandSegmentSizes = array<i32: 2, 1>} : (memref<4xi8>, i32, memref<4xi8>) -> ()
  "umac.call_extern"(%out, %n, %in) {callee = @k, operandSegmentSizes = array<i32: 2, 1>} : (memref<4xi8>, i32, memref<4xi8>) -> ()
  return
}

// -----

// An existing declaration of the right type is reused.
// CHECK-LABEL: func.func private @declared(index, f32, index)
// CHECK: call @declared({{.*}}) : (index, f32, index) -> ()
// CHECK-NOT: func.func private @declared
func.func private @declared(index, f32, index)
func.func @g(%in: memref<2x3xf32>, %x: f32, %out: memref<6xi32>) {
  "umac.call_extern"(%in, %x, %out) {callee = @declared, operandSegmentSizes = array<i32: 2, 1>} : (memref<2x3xf32>, f32, memref<6xi32>) -> ()
  return
}

// -----

func.func private @other(index)
func.func @mismatch(%in: memref<4xi8>, %out: memref<4xi8>) {
  // The verifier rejects it before the pass runs (the pass checks the same for IR built in memory).
  // expected-error @+1 {{callee @other is declared as '(index) -> ()' but called as '(memref<4xi8>, memref<4xi8>) -> ()' (C form '(index, index) -> ()')}}
  "umac.call_extern"(%in, %out) {callee = @other, operandSegmentSizes = array<i32: 1, 1>} : (memref<4xi8>, memref<4xi8>) -> ()
  return
}

// -----

func.func @strided(%in: memref<4x4xi8>, %out: memref<4xi8>) {
  %v = memref.subview %in[0, 1] [4, 1] [1, 1] : memref<4x4xi8> to memref<4xi8, strided<[4], offset: 1>>
  // expected-error @+1 {{operand #0 of @k is a 'memref<4xi8, strided<[4], offset: 1>>': a C kernel takes a contiguous buffer (identity layout)}}
  "umac.call_extern"(%v, %out) {callee = @k, operandSegmentSizes = array<i32: 1, 1>} : (memref<4xi8, strided<[4], offset: 1>>, memref<4xi8>) -> ()
  return
}
