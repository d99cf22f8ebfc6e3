// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops{helium=true}),canonicalize,cse)' | FileCheck %s
// Through LLVM for Cortex-M55: the rescale of four channels is vqrdmulh, a shift, an add and vrshl.
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-elementwise-loops{helium=true}),expand-strided-metadata,convert-scf-to-cf,finalize-memref-to-llvm{index-bitwidth=32},convert-func-to-llvm{index-bitwidth=32},convert-arith-to-llvm{index-bitwidth=32},convert-cf-to-llvm{index-bitwidth=32},convert-index-to-llvm{index-bitwidth=32},convert-to-llvm,reconcile-unrealized-casts)' | mlir-translate --mlir-to-llvmir | llc -O2 -mtriple=thumbv8.1m.main-none-eabihf -mcpu=cortex-m55 | FileCheck %s --check-prefix=ASM

// A channel loop rescaling int32 accumulators to int8 in umac-apply-scale-32{helium}'s form: the
// marked doubling high multiply becomes vqrdmulh (its 64-bit ops are not vectorized), the
// rounding right shift ((h >> q) + 1) >> 1 becomes vrshl by -(q + 1); the rest lane by lane.
// CHECK-LABEL: func.func @rescale(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 {
// CHECK-NOT: vector<4xi64>
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xi32>
// CHECK: %[[M:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xi32>
// CHECK: %[[S:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xi8>
// CHECK: %[[D:.*]] = llvm.call_intrinsic "llvm.arm.mve.vqrdmulh.v4i32"(%[[V]], %[[M]]) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>
// CHECK: %[[B:.*]] = arith.shrsi %[[V]], %{{.*}} : vector<4xi32>
// CHECK: %[[H:.*]] = arith.addi %[[D]], %[[B]] : vector<4xi32>
// CHECK: %[[S32:.*]] = arith.extui %[[S]] : vector<4xi8> to vector<4xi32>
// CHECK: %[[Q:.*]] = arith.subi %[[S32]], %{{.*}} : vector<4xi32>
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[Q]] : vector<4xi32>
// CHECK: %[[Y:.*]] = llvm.call_intrinsic "llvm.arm.mve.vshl.vector.v4i32.v4i32"(%[[H]], %[[NEG]], %{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xi32>, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
// CHECK: arith.addi %[[Y]], %{{.*}} : vector<4xi32>
// CHECK: arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
// CHECK: llvm.store
// CHECK-NOT: scf.for
// CHECK: return
// ASM-LABEL: rescale:
// ASM: vqrdmulh.s32
// ASM: vrshl.s32
// ASM: .fnend
func.func @rescale(%acc: memref<64xi32>, %m: memref<64xi32>, %s: memref<64xi8>, %out: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %half = arith.constant 1073741824 : i64
  %c31_64 = arith.constant 31 : i64
  %zp = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  scf.for %c = %c0 to %c64 step %c1 {
    %v = memref.load %acc[%c] : memref<64xi32>
    %mm = memref.load %m[%c] : memref<64xi32>
    %ss = memref.load %s[%c] : memref<64xi8>
    %v64 = arith.extsi %v : i32 to i64
    %m64 = arith.extsi %mm : i32 to i64
    %p = arith.muli %v64, %m64 : i64
    %r = arith.addi %p, %half : i64
    %high = arith.shrsi %r, %c31_64 : i64
    %d = arith.trunci %high {umac.doubling_high} : i64 to i32
    %b = arith.shrsi %v, %c31 : i32
    %h = arith.addi %d, %b : i32
    %s32 = arith.extui %ss : i8 to i32
    %q = arith.subi %s32, %c32 : i32
    %down = arith.shrsi %h, %q : i32
    %up = arith.addi %down, %one overflow<nsw> : i32
    %y = arith.shrsi %up, %one : i32
    %z = arith.addi %y, %zp : i32
    %lo = arith.maxsi %z, %zp : i32
    %clamped = arith.minsi %lo, %hi : i32
    %narrow = arith.trunci %clamped : i32 to i8
    memref.store %narrow, %out[%c] : memref<64xi8>
  }
  return
}

// -----

// Unmarked, the same 64-bit product is not known never to saturate vqrdmulh: the loop stays
// scalar (64-bit lanes are not vectorized).
// CHECK-LABEL: func.func @unmarked(
// CHECK-NOT: vector<
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NOT: vector<
// CHECK: return
func.func @unmarked(%acc: memref<64xi32>, %m: memref<64xi32>, %out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 1073741824 : i64
  %c31_64 = arith.constant 31 : i64
  scf.for %c = %c0 to %c64 step %c1 {
    %v = memref.load %acc[%c] : memref<64xi32>
    %mm = memref.load %m[%c] : memref<64xi32>
    %v64 = arith.extsi %v : i32 to i64
    %m64 = arith.extsi %mm : i32 to i64
    %p = arith.muli %v64, %m64 : i64
    %r = arith.addi %p, %half : i64
    %high = arith.shrsi %r, %c31_64 : i64
    %d = arith.trunci %high : i64 to i32
    memref.store %d, %out[%c] : memref<64xi32>
  }
  return
}

// -----

// Without nsw, ((x >> q) + 1) >> 1 wraps where x >> q is i32::MAX (q = 0), where vrshl does not:
// it is vectorized lane by lane.
// CHECK-LABEL: func.func @wrapping(
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @wrapping(%x: memref<64xi32>, %q: memref<64xi32>, %out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  scf.for %c = %c0 to %c64 step %c1 {
    %v = memref.load %x[%c] : memref<64xi32>
    %s = memref.load %q[%c] : memref<64xi32>
    %down = arith.shrsi %v, %s : i32
    %up = arith.addi %down, %one : i32
    %y = arith.shrsi %up, %one : i32
    memref.store %y, %out[%c] : memref<64xi32>
  }
  return
}
