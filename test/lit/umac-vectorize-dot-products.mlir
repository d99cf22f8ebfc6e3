// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products))' | FileCheck %s
// Lowered to the llvm dialect as for the host (64-bit index): byte loads of vectors, their
// products added lane by lane in the loop, LLVM's add reduction after it (x86: vpmaddwd).
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products),expand-strided-metadata,convert-scf-to-cf,finalize-memref-to-llvm{index-bitwidth=64},convert-func-to-llvm{index-bitwidth=64},convert-arith-to-llvm{index-bitwidth=64},convert-cf-to-llvm{index-bitwidth=64},convert-index-to-llvm{index-bitwidth=64},convert-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// An int8 dot product over 40 channels (a convolution's reduction after convert-linalg-to-loops:
// its accumulator in memory): two vectors of 16 products summed lane by lane in a vector the loop
// carries, reduced once into the accumulator's value, one vector of the 8 left, a scalar loop
// for any left after that (none), then one store. Each vector is loaded from the memref's aligned
// pointer, offset and strides at the loop's indices.
// CHECK-LABEL: func.func @dot(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<3x40xi8>, %[[B:[a-z0-9]+]]: memref<3x40xi8>, %[[ACC:[a-z0-9]+]]: memref<i32>, %[[K:[a-z0-9]+]]: index)
// CHECK-DAG: %[[VEND:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[LANES:.*]] = arith.constant 16 : index
// CHECK: %[[INIT:.*]] = memref.load %[[ACC]][] : memref<i32>
// CHECK: memref.extract_strided_metadata %[[A]]
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: memref.extract_strided_metadata %[[B]]
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0> : vector<16xi32>
// CHECK: %[[L:.*]] = scf.for %[[C:.*]] = %{{.*}} to %[[VEND]] step %[[LANES]] iter_args(%[[S:.*]] = %[[ZEROS]]) -> (vector<16xi32>) {
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: arith.extsi %{{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: %[[T:.*]] = arith.addi %[[S]], %[[P]] : vector<16xi32>
// CHECK: scf.yield %[[T]] : vector<16xi32>
// CHECK: %[[V:.*]] = vector.reduction <add>, %[[L]], %[[INIT]] : vector<16xi32> into i32
// CHECK: %[[H:.*]] = scf.for %{{.*}} = %[[VEND]] to %[[HEND:.*]] step %{{.*}} iter_args(%[[S8:.*]] = %[[V]]) -> (i32) {
// CHECK: arith.extsi %{{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: vector.reduction <add>, %{{.*}}, %[[S8]] : vector<8xi32> into i32
// CHECK: %[[TOTAL:.*]] = scf.for %{{.*}} = %[[HEND]] to %{{.*}} step %{{.*}} iter_args(%[[R:.*]] = %[[H]]) -> (i32) {
// CHECK: memref.load %[[A]][%[[K]], %{{.*}}] : memref<3x40xi8>
// CHECK: arith.addi %[[R]], %{{.*}} : i32
// CHECK: memref.store %[[TOTAL]], %[[ACC]][] : memref<i32>
// CHECK-NOT: scf.for
// CHECK: return
// LLVM-LABEL: llvm.func @dot(
// LLVM: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// LLVM: llvm.sext %{{.*}} : vector<16xi8> to vector<16xi32>
// LLVM: llvm.mul %{{.*}}, %{{.*}} : vector<16xi32>
// LLVM: llvm.add %{{.*}}, %{{.*}} : vector<16xi32>
// LLVM: llvm.cond_br
// LLVM: "llvm.intr.vector.reduce.add"(%{{.*}}) : (vector<16xi32>) -> i32
// LLVM-NOT: unrealized_conversion_cast
func.func @dot(%a: memref<3x40xi8>, %b: memref<3x40xi8>, %acc: memref<i32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  scf.for %i = %c0 to %c40 step %c1 {
    %x = memref.load %a[%k, %i] : memref<3x40xi8>
    %y = memref.load %b[%k, %i] : memref<3x40xi8>
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  return
}

// -----

// The input read through umac-fold-padding's bounds check (the padding value where the window
// leaves the input, the condition the same for the whole loop), 32 channels: two vectors of 16,
// each in two branches: the input's products added lane by lane, or the padding value times the
// filter's sum added into lane 0 (a branch of another shape: LLVM would merge two of the same
// into a product of a select, which x86 no longer takes as vpmaddwd); the channels left over,
// none here, still select.
// CHECK-LABEL: func.func @padded(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: i1, %[[PAD:[a-z0-9]+]]: i8)
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0> : vector<16xi32>
// CHECK: %[[L:.*]] = scf.for %{{.*}} iter_args(%[[S:.*]] = %[[ZEROS]]) -> (vector<16xi32>) {
// CHECK: scf.if %[[IN]] -> (vector<16xi32>) {
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK: arith.muli %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: arith.addi %[[S]], %{{.*}} : vector<16xi32>
// CHECK: } else {
// CHECK: %[[W:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK: %[[WIDE:.*]] = arith.extsi %[[W]] : vector<16xi8> to vector<16xi32>
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %[[WIDE]] : vector<16xi32> into i32
// CHECK: %[[P:.*]] = arith.extsi %[[PAD]] : i8 to i32
// CHECK: %[[PP:.*]] = arith.muli %[[SUM]], %[[P]] : i32
// CHECK: %[[LANE:.*]] = vector.insert %[[PP]], %{{.*}} [0] : i32 into vector<16xi32>
// CHECK: arith.addi %[[S]], %[[LANE]] : vector<16xi32>
// CHECK: vector.reduction <add>, %[[L]], %{{.*}} : vector<16xi32> into i32
// CHECK: scf.for
// CHECK: arith.select %[[IN]], %{{.*}}, %[[PAD]] : i8
func.func @padded(%a: memref<1x4x4x32xi8>, %w: memref<32xi8>, %acc: memref<1x1x1x1xi32>, %h: index, %inside: i1, %pad: i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %a[%c0, %h, %h, %i] : memref<1x4x4x32xi8>
    %xs = arith.select %inside, %x, %pad : i8
    %y = memref.load %w[%i] : memref<32xi8>
    %xe = arith.extsi %xs : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[%c0, %c0, %c0, %c0] : memref<1x1x1x1xi32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[%c0, %c0, %c0, %c0] : memref<1x1x1x1xi32>
  }
  return
}

// -----

// One step (8 padded channels, a vector of 8): reduced into the sum as it is, in two branches:
// the input's dot product, or the padding value times the filter's sum.
// CHECK-LABEL: func.func @one_step(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: i1, %[[PAD:[a-z0-9]+]]: i8)
// CHECK-NOT: dense<0>
// CHECK: scf.for %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (i32) {
// CHECK: scf.if %[[IN]] -> (i32) {
// CHECK: vector.reduction <add>, %{{.*}}, %[[S]] : vector<8xi32> into i32
// CHECK: } else {
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %{{.*}} : vector<8xi32> into i32
// CHECK: %[[P:.*]] = arith.extsi %[[PAD]] : i8 to i32
// CHECK: arith.muli %[[SUM]], %[[P]] : i32
func.func @one_step(%a: memref<1x4x4x8xi8>, %w: memref<8xi8>, %acc: memref<1x1x1x1xi32>, %h: index, %inside: i1, %pad: i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%c0, %h, %h, %i] : memref<1x4x4x8xi8>
    %xs = arith.select %inside, %x, %pad : i8
    %y = memref.load %w[%i] : memref<8xi8>
    %xe = arith.extsi %xs : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[%c0, %c0, %c0, %c0] : memref<1x1x1x1xi32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[%c0, %c0, %c0, %c0] : memref<1x1x1x1xi32>
  }
  return
}

// -----

// Left as they are: int16 activations (16x8 models), int32 products, values zero-extended, a
// loop of 4 iterations (no vector pays), one loading along a strided dimension (a depthwise
// window's columns), one whose index depends on the loop otherwise.
// CHECK-LABEL: func.func @kinds(
// CHECK-NOT: vector
// CHECK: return
func.func @kinds(%a: memref<32xi16>, %b: memref<32xi8>, %c: memref<32xi32>, %d: memref<32x4xi8>, %acc: memref<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %a[%i] : memref<32xi16>
    %y = memref.load %b[%i] : memref<32xi8>
    %xe = arith.extsi %x : i16 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %c[%i] : memref<32xi32>
    %y = memref.load %b[%i] : memref<32xi8>
    %ye = arith.extui %y : i8 to i32
    %p = arith.muli %x, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<32xi16>
    %y = memref.load %b[%i] : memref<32xi8>
    %xe = arith.extsi %x : i16 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %d[%i, %c0] : memref<32x4xi8>
    %y = memref.load %b[%i] : memref<32xi8>
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %j = arith.subi %c32, %i : index
    %x = memref.load %b[%j] : memref<32xi8>
    %y = memref.load %b[%i] : memref<32xi8>
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  return
}

// -----

// A long loop (a fully connected layer over 128 inputs) is rewritten too: eight vectors of 16
// products summed lane by lane, reduced once per output channel. (LLVM's own loop vectorizer
// left such loops scalar on x86 where the accumulator's place might alias an operand.)
// CHECK-LABEL: func.func @long(
// CHECK: scf.for
// CHECK: %[[SUMS:.*]] = scf.for %{{.*}} = %{{.*}} to %[[END:.*]] step %{{.*}} iter_args(%{{.*}}) -> (vector<16xi32>)
// CHECK: vector.reduction <add>, %[[SUMS]], %{{.*}} : vector<16xi32> into i32
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @long(%a: memref<128xi8>, %b: memref<8x128xi8>, %acc: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  scf.for %o = %c0 to %c8 step %c1 {
    scf.for %i = %c0 to %c128 step %c1 {
      %x = memref.load %a[%i] : memref<128xi8>
      %y = memref.load %b[%o, %i] : memref<8x128xi8>
      %xe = arith.extsi %x : i8 to i32
      %ye = arith.extsi %y : i8 to i32
      %p = arith.muli %xe, %ye : i32
      %s = memref.load %acc[%o] : memref<8xi32>
      %t = arith.addi %s, %p : i32
      memref.store %t, %acc[%o] : memref<8xi32>
    }
  }
  return
}
