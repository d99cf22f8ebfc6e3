// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-outline-operators)' | FileCheck %s

// Each computing op moves into its own private function; the public function becomes a list
// of calls. Buffers (identity layouts) become arguments; constants and strided views are
// rebuilt inside the operator function. Arguments no other argument can overlap (distinct
// buffers of the caller) are llvm.noalias.
#id = affine_map<(d0) -> (d0)>
memref.global "private" constant @weights : memref<8xi8> = dense<1>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[IN:.*]]: memref<8xi8>, %[[OUT:.*]]: memref<8xi8>, %[[WS:.*]]: memref<16xi8>)
// CHECK-NOT: memref.get_global
// CHECK: %[[T:.*]] = memref.view %[[WS]]
// CHECK-NEXT: call @main_op0_generic(%[[IN]], %[[T]]) : (memref<8xi8>, memref<8xi8>) -> ()
// CHECK-NEXT: call @main_op1_copy(%[[T]], %[[OUT]]) : (memref<8xi8>, memref<8xi8>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @main_op0_generic(%[[A:[a-z0-9]+]]: memref<8xi8> {llvm.noalias}, %[[B:[a-z0-9]+]]: memref<8xi8> {llvm.noalias})
// CHECK: %[[W:.*]] = memref.get_global @weights
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[W]] : memref<8xi8>, memref<8xi8>) outs(%[[B]] : memref<8xi8>)
// CHECK: func.func private @main_op1_copy(%[[X:[a-z0-9]+]]: memref<8xi8> {llvm.noalias}, %[[Y:[a-z0-9]+]]: memref<8xi8> {llvm.noalias})
// CHECK-DAG: %[[HALF:.*]] = memref.subview %[[X]][4] [4] [1]
// CHECK-DAG: %[[DST:.*]] = memref.subview %[[Y]][0] [4] [1]
// CHECK: linalg.copy ins(%[[HALF]] : {{.*}}) outs(%[[DST]] : {{.*}})
func.func @main(%in: memref<8xi8>, %out: memref<8xi8>, %ws: memref<16xi8>) {
  %c0 = arith.constant 0 : index
  %w = memref.get_global @weights : memref<8xi8>
  %t = memref.view %ws[%c0][] : memref<16xi8> to memref<8xi8>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
    ins(%in, %w : memref<8xi8>, memref<8xi8>) outs(%t : memref<8xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %s = arith.addi %a, %b : i8
    linalg.yield %s : i8
  }
  %half = memref.subview %t[4] [4] [1] : memref<8xi8> to memref<4xi8, strided<[1], offset: 4>>
  %dst = memref.subview %out[0] [4] [1] : memref<8xi8> to memref<4xi8, strided<[1]>>
  linalg.copy ins(%half : memref<4xi8, strided<[1], offset: 4>>) outs(%dst : memref<4xi8, strided<[1]>>)
  return
}

// -----

// A loop nest is one operator, named after the accumulating op inside it; private functions
// are left alone.
// CHECK-LABEL: func.func @net(
// CHECK: call @net_op0_matmul(
// CHECK: func.func private @net_op0_matmul(
// CHECK: scf.for
// CHECK: linalg.matmul
// CHECK: func.func private @helper(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: linalg.fill
func.func @net(%a: memref<4x4xi32>, %b: memref<4x4xi32>, %c: memref<4x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 4] [1, 1] : memref<4x4xi32> to memref<1x4xi32, strided<[4, 1], offset: ?>>
    %dst = memref.subview %c[%i, 0] [1, 4] [1, 1] : memref<4x4xi32> to memref<1x4xi32, strided<[4, 1], offset: ?>>
    linalg.matmul ins(%row, %b : memref<1x4xi32, strided<[4, 1], offset: ?>>, memref<4x4xi32>) outs(%dst : memref<1x4xi32, strided<[4, 1], offset: ?>>)
  }
  return
}
func.func private @helper(%x: memref<4xi32>) {
  %z = arith.constant 0 : i32
  linalg.fill ins(%z : i32) outs(%x : memref<4xi32>)
  return
}

// -----

// Views of one workspace at constant offsets are llvm.noalias where their bytes are disjoint
// (bytes 0..8 and 8..16), not where they overlap (0..8 and 4..12), nor beside the whole buffer.
// CHECK-LABEL: func.func @views(
// CHECK: func.func private @views_op0_copy(%{{.*}}: memref<8xi8>, %{{.*}}: memref<8xi8>) {
// CHECK: func.func private @views_op1_copy(%{{.*}}: memref<8xi8> {llvm.noalias}, %{{.*}}: memref<8xi8> {llvm.noalias}) {
// CHECK: func.func private @views_op2_copy(%{{.*}}: memref<8xi8>, %{{.*}}: memref<16xi8>) {
func.func @views(%ws: memref<16xi8>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = memref.view %ws[%c0][] : memref<16xi8> to memref<8xi8>
  %b = memref.view %ws[%c4][] : memref<16xi8> to memref<8xi8>
  %c = memref.view %ws[%c8][] : memref<16xi8> to memref<8xi8>
  linalg.copy ins(%a : memref<8xi8>) outs(%b : memref<8xi8>)
  linalg.copy ins(%a : memref<8xi8>) outs(%c : memref<8xi8>)
  %whole = memref.subview %ws[0] [8] [1] : memref<16xi8> to memref<8xi8, strided<[1]>>
  linalg.copy ins(%c : memref<8xi8>) outs(%whole : memref<8xi8, strided<[1]>>)
  return
}

// -----

// Control flow (TFLite's IF) stays in the executor; the operators in its regions are outlined
// in their place. A buffer a region gets from its op (a loop's carried buffer) may be any
// buffer: no llvm.noalias on it, nor on the arguments it may overlap.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @branches(
// CHECK: scf.if
// CHECK-NEXT: func.call @branches_op0_generic(
// CHECK: } else {
// CHECK-NEXT: func.call @branches_op1_copy(
// CHECK: scf.while
// CHECK: func.call @branches_op2_copy(
// CHECK: func.func private @branches_op0_generic(
// CHECK: func.func private @branches_op1_copy(
// CHECK: func.func private @branches_op2_copy(%{{[a-z0-9]+}}: memref<8xi8>, %{{[a-z0-9]+}}: memref<8xi8>) {
func.func @branches(%in: memref<8xi8>, %out: memref<8xi8>, %c: i1) {
  scf.if %c {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<8xi8>) outs(%out : memref<8xi8>) {
    ^bb0(%a: i8, %o: i8):
      %s = arith.addi %a, %a : i8
      linalg.yield %s : i8
    }
  } else {
    memref.copy %in, %out : memref<8xi8> to memref<8xi8>
  }
  %r = scf.while (%b = %in) : (memref<8xi8>) -> memref<8xi8> {
    scf.condition(%c) %b : memref<8xi8>
  } do {
  ^bb0(%b: memref<8xi8>):
    memref.copy %b, %out : memref<8xi8> to memref<8xi8>
    scf.yield %b : memref<8xi8>
  }
  return
}
