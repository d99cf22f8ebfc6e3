// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-strided-copy-to-linalg))' | FileCheck %s
// Then the loop lowering leaves no memref.copy that would need MLIR's memrefCopy runtime call.
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-strided-copy-to-linalg,convert-linalg-to-loops),finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// A copy into a strided window (what bufferizing a padded tensor produces) becomes linalg.copy.
// CHECK-LABEL: func.func @into_window(
// CHECK-SAME: %[[SRC:.*]]: memref<1x4x4x2xi8>, %[[DST:.*]]: memref<1x6x6x2xi8>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[DST]]
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[SRC]] : memref<1x4x4x2xi8>) outs(%[[VIEW]] : memref<1x4x4x2xi8, strided<[72, 12, 2, 1], offset: 14>>)
func.func @into_window(%src: memref<1x4x4x2xi8>, %dst: memref<1x6x6x2xi8>) {
  %view = memref.subview %dst[0, 1, 1, 0] [1, 4, 4, 2] [1, 1, 1, 1] : memref<1x6x6x2xi8> to memref<1x4x4x2xi8, strided<[72, 12, 2, 1], offset: 14>>
  memref.copy %src, %view : memref<1x4x4x2xi8> to memref<1x4x4x2xi8, strided<[72, 12, 2, 1], offset: 14>>
  return
}

// A copy between identity layouts stays a memref.copy: it lowers to memcpy.
// CHECK-LABEL: func.func @contiguous(
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8xi32> to memref<8xi32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<8xi32>, %b: memref<8xi32>) {
  memref.copy %a, %b : memref<8xi32> to memref<8xi32>
  return
}

// LLVM-NOT: memrefCopy
// LLVM: llvm.func @into_window
// LLVM: llvm.load
// LLVM: llvm.store
// LLVM: llvm.func @contiguous
// LLVM: "llvm.intr.memcpy"
