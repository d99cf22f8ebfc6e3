// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops),canonicalize,cse)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops{bits=256}),canonicalize,cse)' | FileCheck %s --check-prefix=WIDE
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops{channel-offsets=true}),canonicalize,cse)' | FileCheck %s --check-prefix=OFFSETS
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops{bits=512 max-element-bits=64}),canonicalize,cse)' | FileCheck %s --check-prefix=WIDE64
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops),expand-strided-metadata,convert-scf-to-cf,finalize-memref-to-llvm{index-bitwidth=32},convert-func-to-llvm{index-bitwidth=32},convert-arith-to-llvm{index-bitwidth=32},convert-cf-to-llvm{index-bitwidth=32},convert-index-to-llvm{index-bitwidth=32},convert-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// A rescale of a pixel's channels (the 32-bit form: the high half of the product from
// `mulsi_extended`) into a strided output: 10 channels are two vectors of 4 int32 lanes, then a
// scalar loop for the last 2. The memory is read and written at each element's address; values
// from outside the loop are broadcast; the low half of the product is a 32-bit multiply; the
// loop's attributes (keep it rolled) stay on both loops.
// CHECK-LABEL: func.func @rescale(
// CHECK-DAG: %[[MIN:.*]] = arith.constant dense<-128> : vector<4xi32>
// CHECK-DAG: %[[ZP:.*]] = vector.broadcast %arg3 : i32 to vector<4xi32>
// CHECK-DAG: %[[OFFSET:.*]] = arith.addi %{{.*}}, %offset : index
// CHECK-DAG: %[[OUTI:.*]] = arith.index_cast %[[OFFSET]] : index to i64
// CHECK-DAG: %[[OUT:.*]] = llvm.inttoptr %[[OUTI]] : i64 to !llvm.ptr
// CHECK: scf.for %[[C:.*]] = %c0 to %c8 step %c4 {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK-NEXT: %[[PA:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: %[[A:.*]] = llvm.load %[[PA]] {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK-NEXT: %[[PB:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: %[[B:.*]] = llvm.load %[[PB]] {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK-NEXT: %{{.*}}, %[[HI:.*]] = arith.mulsi_extended %[[A]], %[[B]] : vector<4xi32>
// CHECK-NEXT: %[[LO:.*]] = arith.muli %[[A]], %[[B]] : vector<4xi32>
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[LO]], %[[HI]] : vector<4xi32>
// CHECK-NEXT: %[[Z:.*]] = arith.addi %[[S]], %[[ZP]] : vector<4xi32>
// CHECK-NEXT: %[[M:.*]] = arith.maxsi %[[Z]], %[[MIN]] : vector<4xi32>
// CHECK-NEXT: %[[N:.*]] = arith.minsi %[[M]], %{{.*}} : vector<4xi32>
// CHECK-NEXT: %[[T:.*]] = arith.trunci %[[N]] : vector<4xi32> to vector<4xi8>
// CHECK-NEXT: %[[PO:.*]] = llvm.getelementptr %[[OUT]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.store %[[T]], %[[PO]] {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr
// CHECK-NEXT: } {loop_annotation = #{{.*}}}
// CHECK-NEXT: scf.for %[[R:.*]] = %c8 to %c10 step %c1 {
// CHECK: arith.mulsi_extended %{{.*}}, %{{.*}} : i32
// CHECK: memref.store %{{.*}}, %arg2[%c0, %c0, %c0, %[[R]], %c0]
// CHECK: } {loop_annotation = #{{.*}}}
// 256-bit vectors: one vector of 8 lanes (its one-iteration loop folded away), then 2 left.
// WIDE-LABEL: func.func @rescale(
// WIDE-NOT: scf.for
// WIDE: arith.mulsi_extended %{{.*}}, %{{.*}} : vector<8xi32>
// WIDE: scf.for %{{.*}} = %c8 to %c10 step %c1 {
// LLVM-LABEL: llvm.func @rescale(
// LLVM: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr
func.func @rescale(%acc: memref<1x1x1x10x1xi32>, %multiplier: memref<10x1xi32>,
                   %out: memref<1x1x1x10x1xi8, strided<[8000, 320, 64, 1, 1], offset: ?>>, %zp: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %min = arith.constant -128 : i32
  %max = arith.constant 127 : i32
  scf.for %c = %c0 to %c10 step %c1 {
    %a = memref.load %acc[%c0, %c0, %c0, %c, %c0] : memref<1x1x1x10x1xi32>
    %b = memref.load %multiplier[%c, %c0] : memref<10x1xi32>
    %lo, %hi = arith.mulsi_extended %a, %b : i32
    %s = arith.addi %lo, %hi : i32
    %z = arith.addi %s, %zp : i32
    %m = arith.maxsi %z, %min : i32
    %n = arith.minsi %m, %max : i32
    %t = arith.trunci %n : i32 to i8
    memref.store %t, %out[%c0, %c0, %c0, %c, %c0] : memref<1x1x1x10x1xi8, strided<[8000, 320, 64, 1, 1], offset: ?>>
  } {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
  return
}

// -----

// One window element into every channel's accumulator (a depthwise convolution's channel loop):
// int8 lanes widened to int32, so 4 lanes; 16 channels leave no scalar loop. The row of the input
// (%h, from outside the loop) is part of the address computed in front of the loop.
// CHECK-LABEL: func.func @accumulate(
// CHECK: %[[ROW:.*]] = arith.muli %arg3, %c64 : index
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c4 {
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<4xi8>
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<4xi8>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: arith.extsi %{{.*}} : vector<4xi8> to vector<4xi32>
// CHECK: arith.muli %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<4xi32>, !llvm.ptr
// CHECK-NOT: scf.for
// CHECK: return
func.func @accumulate(%x: memref<4x64xi8>, %w: memref<16xi8>, %acc: memref<16xi32>, %h: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %c = %c0 to %c16 step %c1 {
    %xv = memref.load %x[%h, %c] : memref<4x64xi8>
    %wv = memref.load %w[%c] : memref<16xi8>
    %a = memref.load %acc[%c] : memref<16xi32>
    %xe = arith.extsi %xv : i8 to i32
    %we = arith.extsi %wv : i8 to i32
    %p = arith.muli %xe, %we : i32
    %s = arith.addi %a, %p : i32
    memref.store %s, %acc[%c] : memref<16xi32>
  }
  return
}

// -----

// A depthwise tile of 8 channels at %ch reading the window through umac-fold-padding's check in
// place in the whole input (the channel index %ch + %c, the value the padding where %inside
// fails). Left alone by default; with channel-offsets the accesses start at the tile's offset
// and the select picks whole vectors on the scalar condition.
// CHECK-LABEL: func.func @padded_tile(
// CHECK-NOT: vector
// CHECK: return
// OFFSETS-LABEL: func.func @padded_tile(
// OFFSETS-SAME: %[[X:[a-z0-9]+]]: memref<1x4x4x16xi8>, %{{.*}}: memref<16xi8>, %{{.*}}: memref<8xi32>, %[[H:[a-z0-9]+]]: index, %[[CH:[a-z0-9]+]]: index, %[[IN:[a-z0-9]+]]: i1
// OFFSETS: memref.extract_aligned_pointer_as_index %[[X]]
// OFFSETS: arith.addi %[[CH]], %{{.*}} : index
// OFFSETS: scf.for %{{.*}} = %c0 to %c8 step %c4 {
// OFFSETS: %[[V:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<4xi8>
// OFFSETS: arith.select %[[IN]], %[[V]], %{{.*}} : vector<4xi8>
// OFFSETS: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<4xi32>, !llvm.ptr
// OFFSETS-NOT: affine.apply
// OFFSETS: return
func.func @padded_tile(%x: memref<1x4x4x16xi8>, %w: memref<16xi8>, %acc: memref<8xi32>, %h: index, %ch: index, %inside: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant -128 : i8
  scf.for %c = %c0 to %c8 step %c1 {
    %i = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%ch, %c)
    %xv = memref.load %x[%c0, %h, %h, %i] : memref<1x4x4x16xi8>
    %xs = arith.select %inside, %xv, %pad : i8
    %wv = memref.load %w[%i] : memref<16xi8>
    %a = memref.load %acc[%c] : memref<8xi32>
    %xe = arith.extsi %xs : i8 to i32
    %we = arith.extsi %wv : i8 to i32
    %p = arith.muli %xe, %we : i32
    %s = arith.addi %a, %p : i32
    memref.store %s, %acc[%c] : memref<8xi32>
  }
  return
}

// -----

// A rescale in 64-bit arithmetic (the host's form) over 16 channels: scalar by default; with
// 512-bit registers and 64-bit lanes, two vectors of 8 lanes. A loop of 4 int32 elements, shorter
// than a 512-bit register's 16 lanes, takes 4 (down to 128 bits): one step, no loop left.
// CHECK-LABEL: func.func @rescale_64(
// CHECK-NOT: vector<{{.*}}xi64>
// CHECK: return
// WIDE64-LABEL: func.func @rescale_64(
// WIDE64: scf.for %{{.*}} = %c0 to %c16 step %c8 {
// WIDE64: arith.extsi %{{.*}} : vector<8xi32> to vector<8xi64>
// WIDE64: arith.muli %{{.*}}, %{{.*}} : vector<8xi64>
// WIDE64: arith.shrsi %{{.*}}, %{{.*}} : vector<8xi64>
// WIDE64: arith.trunci %{{.*}} : vector<8xi64> to vector<8xi32>
// WIDE64-NOT: scf.for
// WIDE64: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// WIDE64: arith.addi %{{.*}}, %{{.*}} : vector<4xi32>
// WIDE64: return
func.func @rescale_64(%acc: memref<16xi32>, %m: memref<16xi32>, %out: memref<16xi32>, %a: memref<4xi32>, %b: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %round = arith.constant 1073741824 : i64
  %shift = arith.constant 31 : i64
  scf.for %c = %c0 to %c16 step %c1 {
    %v = memref.load %acc[%c] : memref<16xi32>
    %s = memref.load %m[%c] : memref<16xi32>
    %v64 = arith.extsi %v : i32 to i64
    %s64 = arith.extsi %s : i32 to i64
    %p = arith.muli %v64, %s64 : i64
    %r = arith.addi %p, %round : i64
    %h = arith.shrsi %r, %shift : i64
    %t = arith.trunci %h : i64 to i32
    memref.store %t, %out[%c] : memref<16xi32>
  }
  scf.for %c = %c0 to %c4 step %c1 {
    %x = memref.load %a[%c] : memref<4xi32>
    %y = memref.load %b[%c] : memref<4xi32>
    %z = arith.addi %x, %y : i32
    memref.store %z, %a[%c] : memref<4xi32>
  }
  return
}

// -----

// An int48 accumulator (16x8 models) stays scalar with 64-bit lanes too: an array of i48 takes
// 8 bytes an element, a vector of i48 6.
// WIDE64-LABEL: func.func @int48(
// WIDE64-NOT: vector
// WIDE64: return
func.func @int48(%a: memref<16xi48>, %b: memref<16xi48>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %c = %c0 to %c16 step %c1 {
    %x = memref.load %a[%c] : memref<16xi48>
    %y = memref.load %b[%c] : memref<16xi48>
    %z = arith.addi %x, %y : i48
    memref.store %z, %a[%c] : memref<16xi48>
  }
  return
}

// -----

// Left alone: a dot product (the sum's indices do not follow the loop), an access across the
// contiguous dimension (stride 8), 64-bit arithmetic, fewer iterations than lanes, and a loop
// whose body holds another region.
// CHECK-LABEL: func.func @not_elementwise(
// CHECK-NOT: vector
// CHECK-NOT: llvm.load
// CHECK: return
func.func @not_elementwise(%x: memref<16xi8>, %y: memref<16x8xi32>, %z: memref<16xi64>, %sum: memref<i32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  scf.for %c = %c0 to %c16 step %c1 {
    %v = memref.load %x[%c] : memref<16xi8>
    %s = memref.load %sum[] : memref<i32>
    %e = arith.extsi %v : i8 to i32
    %t = arith.addi %s, %e : i32
    memref.store %t, %sum[] : memref<i32>
  }
  scf.for %c = %c0 to %c16 step %c1 {
    %v = memref.load %y[%c, %c0] : memref<16x8xi32>
    %t = arith.addi %v, %v : i32
    memref.store %t, %y[%c, %c0] : memref<16x8xi32>
  }
  scf.for %c = %c0 to %c16 step %c1 {
    %v = memref.load %z[%c] : memref<16xi64>
    %t = arith.addi %v, %v : i64
    memref.store %t, %z[%c] : memref<16xi64>
  }
  scf.for %c = %c0 to %c3 step %c1 {
    %v = memref.load %y[%c0, %c] : memref<16x8xi32>
    %t = arith.addi %v, %v : i32
    memref.store %t, %y[%c0, %c] : memref<16x8xi32>
  }
  scf.for %c = %c0 to %c16 step %c1 {
    scf.if %cond {
      %v = memref.load %x[%c] : memref<16xi8>
      memref.store %v, %x[%c] : memref<16xi8>
    }
  }
  return
}

// -----

// Booleans stay scalar: a memref of i1 holds a byte an element, a vector of i1 in memory is
// packed into bits (TOSA's equal and greater store booleans). Comparing in registers is fine:
// the loop storing the comparison widened to bytes is vectorized.
// CHECK-LABEL: func.func @booleans(
// CHECK: scf.for
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}} : memref<16xi1>
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: arith.extui %{{.*}} : vector<4xi1> to vector<4xi8>
func.func @booleans(%a: memref<16xi32>, %b: memref<16xi32>, %flags: memref<16xi1>, %bytes: memref<16xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xi32>
    %y = memref.load %b[%i] : memref<16xi32>
    %g = arith.cmpi sgt, %x, %y : i32
    memref.store %g, %flags[%i] : memref<16xi1>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xi32>
    %y = memref.load %b[%i] : memref<16xi32>
    %g = arith.cmpi sgt, %x, %y : i32
    %w = arith.extui %g : i1 to i8
    memref.store %w, %bytes[%i] : memref<16xi8>
  }
  return
}
