// umac-specialize-tynnp: the calls of a kernel function (tynnp.tile_arguments names its tile
// table's and tile count's arguments) that pass the same constant table and count share a copy
// of the function, @<function>_t<tiles> (then _t<tiles>_2, ... for other tables of as many
// tiles), whose table is a constant of its body and whose count an arith.constant: its tile
// loop's trip count is static. The function goes once no call is left to it; a call whose table
// or count is not a constant keeps it. (A test op stands for the tile's work.)
// RUN: umac-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --pass-pipeline='builtin.module(umac-specialize-tynnp)' | FileCheck %s
// With -specialize=false (to measure what it earns) nothing changes.
// RUN: umac-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(umac-specialize-tynnp{attributes="-specialize=false"})' | FileCheck %s --check-prefix=OFF
// The kernels of a compiled convolution, end to end: umac-legalize-tynnp.mlir.

// OFF-LABEL: func.func private @k(
// OFF-SAME: tynnp.tile_arguments = array<i64: 1, 2>
// OFF-NOT: @k_t
// OFF: {callee = @k,
// OFF: {callee = @k,
// OFF: {callee = @k,
// OFF: {callee = @k,

// The copy for the two calls of table [0, 4] and two tiles: the count and the table replace the
// arguments; the marker goes with the general function.
// CHECK-LABEL: func.func private @k_t2(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %{{.*}}: i32, %{{.*}}: index) {
// CHECK-NEXT: %[[COUNT:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant dense<[0, 4]> : tensor<2xi32>
// CHECK-NEXT: %[[TABLE:.*]] = bufferization.to_buffer %[[ROWS]] read_only : tensor<2xi32> to memref<2xi32>
// CHECK-NEXT: %[[AT:.*]] = memref.extract_aligned_pointer_as_index %[[TABLE]]
// CHECK: %[[N:.*]] = arith.index_cast %[[COUNT]] : i32 to index
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[AT]] : index to i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step
// Another table of two tiles: a copy of its own.
// CHECK-LABEL: func.func private @k_t2_2(
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: arith.constant dense<[8, 12]> : tensor<2xi32>
// Three tiles.
// CHECK-LABEL: func.func private @k_t3(
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant dense<[0, 4, 8]> : tensor<3xi32>
// CHECK-NOT: func.func private @k(
// CHECK-LABEL: func.func @main(
// CHECK: {callee = @k_t2,
// CHECK: {callee = @k_t2_2,
// CHECK: {callee = @k_t2,
// CHECK: {callee = @k_t3,
// CHECK-NOT: tynnp.tile_arguments
func.func private @k(%x: index, %tiles: index, %count: i32, %out: index) attributes {tynnp.tile_arguments = array<i64: 1, 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %count : i32 to index
  %at = arith.index_cast %tiles : index to i32
  %p = llvm.inttoptr %at : i32 to !llvm.ptr
  scf.for %t = %c0 to %n step %c1 {
    %i = arith.index_cast %t : index to i32
    %q = llvm.getelementptr %p[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i32
    %v = llvm.load %q : !llvm.ptr -> i32
    "test.tile"(%v) : (i32) -> ()
  }
  return
}
func.func @main(%x: memref<8xi8>, %out: memref<8xi8>) {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %a = arith.constant dense<[0, 4]> : tensor<2xi32>
  %ta = bufferization.to_buffer %a read_only : tensor<2xi32> to memref<2xi32>
  "umac.call_extern"(%x, %ta, %c2, %out) {callee = @k, operandSegmentSizes = array<i32: 3, 1>} : (memref<8xi8>, memref<2xi32>, i32, memref<8xi8>) -> ()
  %b = arith.constant dense<[8, 12]> : tensor<2xi32>
  %tb = bufferization.to_buffer %b read_only : tensor<2xi32> to memref<2xi32>
  "umac.call_extern"(%x, %tb, %c2, %out) {callee = @k, operandSegmentSizes = array<i32: 3, 1>} : (memref<8xi8>, memref<2xi32>, i32, memref<8xi8>) -> ()
  %a2 = arith.constant dense<[0, 4]> : tensor<2xi32>
  %ta2 = bufferization.to_buffer %a2 read_only : tensor<2xi32> to memref<2xi32>
  "umac.call_extern"(%x, %ta2, %c2, %out) {callee = @k, operandSegmentSizes = array<i32: 3, 1>} : (memref<8xi8>, memref<2xi32>, i32, memref<8xi8>) -> ()
  %c = arith.constant dense<[0, 4, 8]> : tensor<3xi32>
  %tc = bufferization.to_buffer %c read_only : tensor<3xi32> to memref<3xi32>
  "umac.call_extern"(%x, %tc, %c3, %out) {callee = @k, operandSegmentSizes = array<i32: 3, 1>} : (memref<8xi8>, memref<3xi32>, i32, memref<8xi8>) -> ()
  return
}

// -----

// A count that is not a constant keeps the general function for its call (and its marker, so a
// later run may still specialize it); the constant call gets its copy.
// CHECK-LABEL: func.func private @g(
// CHECK-SAME: tynnp.tile_arguments = array<i64: 1, 2>
// CHECK-LABEL: func.func private @g_t1(
// CHECK-LABEL: func.func @caller(
// CHECK: {callee = @g_t1,
// CHECK: {callee = @g,
func.func private @g(%x: index, %tiles: index, %count: i32, %out: index) attributes {tynnp.tile_arguments = array<i64: 1, 2>} {
  "test.tiles"(%tiles, %count) : (index, i32) -> ()
  return
}
func.func @caller(%x: memref<8xi8>, %out: memref<8xi8>, %n: i32) {
  %c1 = arith.constant 1 : i32
  %a = arith.constant dense<[5]> : tensor<1xi32>
  %ta = bufferization.to_buffer %a read_only : tensor<1xi32> to memref<1xi32>
  "umac.call_extern"(%x, %ta, %c1, %out) {callee = @g, operandSegmentSizes = array<i32: 3, 1>} : (memref<8xi8>, memref<1xi32>, i32, memref<8xi8>) -> ()
  "umac.call_extern"(%x, %ta, %n, %out) {callee = @g, operandSegmentSizes = array<i32: 3, 1>} : (memref<8xi8>, memref<1xi32>, i32, memref<8xi8>) -> ()
  return
}

// -----

// A marker that does not name a table (index) and a count (i32) among the arguments is refused.
// expected-error @+1 {{umac-specialize-tynnp: @bad has a tynnp.tile_arguments that is not array<i64: table, count> of two of its 4 arguments}}
func.func private @bad(%x: index, %tiles: index, %count: i32, %out: index) attributes {tynnp.tile_arguments = array<i64: 1, 7>} {
  return
}

// -----

// expected-error @+1 {{umac-specialize-tynnp: @swapped's tile table (argument 2) is not an index or its tile count (argument 1) not an i32}}
func.func private @swapped(%x: index, %tiles: index, %count: i32, %out: index) attributes {tynnp.tile_arguments = array<i64: 2, 1>} {
  return
}

// -----

// Arguments the calls of a copy pass as constants that differ between calls, each equal in
// every call to an earlier such argument plus one offset (the DM address of a region at a fixed
// distance from another, a token word after the kernel's own), become that argument plus the
// offset in the body: unused, LLVM drops them, and fewer arguments go on the stack. A DM address
// is a view of tynnp.dm at a constant offset. An argument every call passes the same constant,
// or one that no earlier argument matches, keeps its uses.
// CHECK-LABEL: func.func private @r_t1(
// CHECK-SAME: %[[X:[^:]*]]: index, %{{.*}}: index, %{{.*}}: i32, %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32, %[[C:[^:]*]]: i32, %[[D:[^:]*]]: i32, %[[E:[^:]*]]: i32, %[[F:[^:]*]]: i32, %[[OUT:[^:]*]]: index)
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK-NEXT: %[[B2:.*]] = arith.addi %[[A]], %[[EIGHT]] : i32
// CHECK-NEXT: %[[K:.*]] = arith.constant 9216 : i32
// CHECK-NEXT: %[[F2:.*]] = arith.addi %[[E]], %[[K]] : i32
// CHECK: "test.use"(%[[A]], %[[B2]], %[[C]], %[[D]], %[[E]], %[[F2]])
func.func private @r(%x: index, %tiles: index, %count: i32, %a: i32, %b: i32, %c: i32, %d: i32, %e: i32, %f: i32, %out: index) attributes {tynnp.tile_arguments = array<i64: 1, 2>} {
  "test.use"(%a, %b, %c, %d, %e, %f) : (i32, i32, i32, i32, i32, i32) -> ()
  return
}
func.func @calls(%x: memref<8xi8>, %out: memref<8xi8>) {
  %c1 = arith.constant 1 : i32
  %t = arith.constant dense<[0]> : tensor<1xi32>
  %table = bufferization.to_buffer %t read_only : tensor<1xi32> to memref<1xi32>
  %c5 = arith.constant 5 : i32
  %dm = "tynnp.dm"() : () -> memref<32768xi8, "tynnp.dm">
  // The first call: a = 40, b = 48, d = 1, e and f at DM bytes 512 and 9728.
  %a0 = arith.constant 40 : i32
  %b0 = arith.constant 48 : i32
  %d0 = arith.constant 1 : i32
  %o0 = arith.constant 512 : index
  %v0 = memref.view %dm[%o0][] : memref<32768xi8, "tynnp.dm"> to memref<64xi8, "tynnp.dm">
  %p0 = memref.extract_aligned_pointer_as_index %v0 : memref<64xi8, "tynnp.dm"> -> index
  %e0 = arith.index_cast %p0 : index to i32
  %k = arith.constant 9216 : i32
  %f0 = arith.addi %e0, %k : i32
  "umac.call_extern"(%x, %table, %c1, %a0, %b0, %c5, %d0, %e0, %f0, %out) {callee = @r, operandSegmentSizes = array<i32: 9, 1>} : (memref<8xi8>, memref<1xi32>, i32, i32, i32, i32, i32, i32, i32, memref<8xi8>) -> ()
  // The second: a = 44, b = 52, d = 3, e and f at DM bytes 9872 and 19088.
  %a1 = arith.constant 44 : i32
  %b1 = arith.constant 52 : i32
  %d1 = arith.constant 3 : i32
  %o1 = arith.constant 9872 : index
  %v1 = memref.view %dm[%o1][] : memref<32768xi8, "tynnp.dm"> to memref<64xi8, "tynnp.dm">
  %p1 = memref.extract_aligned_pointer_as_index %v1 : memref<64xi8, "tynnp.dm"> -> index
  %e1 = arith.index_cast %p1 : index to i32
  %f1 = arith.addi %e1, %k : i32
  "umac.call_extern"(%x, %table, %c1, %a1, %b1, %c5, %d1, %e1, %f1, %out) {callee = @r, operandSegmentSizes = array<i32: 9, 1>} : (memref<8xi8>, memref<1xi32>, i32, i32, i32, i32, i32, i32, i32, memref<8xi8>) -> ()
  return
}
