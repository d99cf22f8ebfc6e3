// umac-profile-hooks: each call of the executor (one per operator) is bracketed by calls of the
// weak, empty hooks @<entry>_op_begin(k) and @<entry>_op_end(k), k counting the operators from 0.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-profile-hooks{entry=kws})' | FileCheck %s
// Through the LLVM lowering the hooks keep their weak linkage.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-profile-hooks{entry=kws},convert-to-llvm)' | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @kws(
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @kws_op_begin(%[[C0]]) : (i32) -> ()
// CHECK-NEXT: call @kws_op0_conv(%arg0, %arg1)
// CHECK-NEXT: call @kws_op_end(%[[C0]]) : (i32) -> ()
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @kws_op_begin(%[[C1]]) : (i32) -> ()
// CHECK-NEXT: call @kws_op1_add(%arg1, %arg2)
// CHECK-NEXT: call @kws_op_end(%[[C1]]) : (i32) -> ()
// CHECK-NEXT: return
// CHECK: func.func @kws_op_begin(%{{.*}}: i32) attributes {llvm.linkage = #llvm.linkage<weak>} {
// CHECK-NEXT: return
// CHECK: func.func @kws_op_end(%{{.*}}: i32) attributes {llvm.linkage = #llvm.linkage<weak>} {
// CHECK-NEXT: return
// LLVM: llvm.func weak @kws_op_begin(
// LLVM: llvm.func weak @kws_op_end(
func.func @kws(%in: memref<4xi8>, %mid: memref<4xi8>, %out: memref<4xi8>) {
  call @kws_op0_conv(%in, %mid) : (memref<4xi8>, memref<4xi8>) -> ()
  call @kws_op1_add(%mid, %out) : (memref<4xi8>, memref<4xi8>) -> ()
  return
}
func.func private @kws_op0_conv(%a: memref<4xi8>, %b: memref<4xi8>) {
  return
}
func.func private @kws_op1_add(%a: memref<4xi8>, %b: memref<4xi8>) {
  return
}

// -----

// A model that already has a function named like a hook is refused at the entry.
// expected-error @+1 {{umac-profile-hooks: the model already has a function @kws_op_begin}}
func.func @kws() {
  return
}
func.func @kws_op_begin(%op: i32) {
  return
}
