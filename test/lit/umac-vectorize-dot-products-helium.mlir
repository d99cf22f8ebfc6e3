// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products{helium=true}))' | FileCheck %s
// Through LLVM for Cortex-M55: vmlava.s8 on the 16-lane steps, vmlava.s16 on the 8-lane one.
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products{helium=true}),expand-strided-metadata,convert-scf-to-cf,finalize-memref-to-llvm{index-bitwidth=32},convert-func-to-llvm{index-bitwidth=32},convert-arith-to-llvm{index-bitwidth=32},convert-cf-to-llvm{index-bitwidth=32},convert-index-to-llvm{index-bitwidth=32},convert-to-llvm,reconcile-unrealized-casts)' | mlir-translate --mlir-to-llvmir | llc -O2 -mtriple=thumbv8.1m.main-none-eabihf -mcpu=cortex-m55 | FileCheck %s --check-prefix=ASM

// An int8 dot product over 203 channels with Helium (no length limit: the loop is Helium's
// instruction, nothing left for LLVM's vectorizer): 12 steps of 16 lanes, each vmladava on the
// loaded bytes; one step of 8 lanes on the bytes sign-extended to halfwords (channels 192..200);
// the 3 channels left in a scalar loop.
// CHECK-LABEL: func.func @dot(
// CHECK-DAG: %[[VEND:.*]] = arith.constant 192 : index
// CHECK-DAG: %[[HEND:.*]] = arith.constant 200 : index
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK: %[[V:.*]] = scf.for %{{.*}} = %{{.*}} to %[[VEND]] step %[[SIXTEEN]] iter_args(%[[S:.*]] = %[[INIT]]) -> (i32) {
// CHECK: %[[X:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: %[[T:.*]] = llvm.call_intrinsic "llvm.arm.mve.vmldava.v16i8"(%[[Z:.*]], %[[Z]], %[[Z]], %[[S]], %[[X]], %[[Y]]) : (i32, i32, i32, i32, vector<16xi8>, vector<16xi8>) -> i32
// CHECK: scf.yield %[[T]] : i32
// CHECK: %[[H:.*]] = scf.for %{{.*}} = %[[VEND]] to %[[HEND]] step %[[EIGHT]] iter_args(%[[S8:.*]] = %[[V]]) -> (i32) {
// CHECK: %[[X8:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xi8>
// CHECK: %[[XH:.*]] = arith.extsi %[[X8]] : vector<8xi8> to vector<8xi16>
// CHECK: %[[Y8:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xi8>
// CHECK: %[[YH:.*]] = arith.extsi %[[Y8]] : vector<8xi8> to vector<8xi16>
// CHECK: llvm.call_intrinsic "llvm.arm.mve.vmldava.v8i16"(%{{.*}}, %{{.*}}, %{{.*}}, %[[S8]], %[[XH]], %[[YH]])
// CHECK: scf.for %{{.*}} = %[[HEND]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[H]]) -> (i32) {
// CHECK: arith.muli {{.*}} : i32
// CHECK: memref.store
// ASM-LABEL: dot:
// ASM: vmlava.s8
// ASM: vmlava.s16
// ASM: .fnend
func.func @dot(%a: memref<3x203xi8>, %b: memref<3x203xi8>, %acc: memref<i32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c203 = arith.constant 203 : index
  scf.for %i = %c0 to %c203 step %c1 {
    %x = memref.load %a[%k, %i] : memref<3x203xi8>
    %y = memref.load %b[%k, %i] : memref<3x203xi8>
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  return
}

// A padded input: inside the input, the product as above; where the check fails, the padding
// times the filter's sum (vector.reduction), a different shape.
// CHECK-LABEL: func.func @padded(
// CHECK: scf.if
// CHECK: llvm.call_intrinsic "llvm.arm.mve.vmldava.v16i8"
// CHECK: } else {
// CHECK: vector.reduction <add>
func.func @padded(%a: memref<3x16xi8>, %b: memref<3x16xi8>, %acc: memref<i32>, %k: index, %inside: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant -128 : i8
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%k, %i] : memref<3x16xi8>
    %xs = arith.select %inside, %x, %pad : i8
    %y = memref.load %b[%k, %i] : memref<3x16xi8>
    %xe = arith.extsi %xs : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  return
}
