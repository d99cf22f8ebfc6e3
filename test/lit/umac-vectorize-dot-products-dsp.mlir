// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products{dsp=true}))' | FileCheck %s
// With unroll, a loop of up to 32 steps (128 channels) is marked to be unrolled fully, so that
// LLVM computes an operand that does not change in the loop around once (a pixel's input words,
// at every output channel); without, nothing is marked.
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products{dsp=true unroll=true}))' | FileCheck %s --check-prefix=UNROLL
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products{dsp=true}))' | FileCheck %s --check-prefix=ROLLED
// Through LLVM for Cortex-M4: each step is two word loads, four sxtb16 and two smlad.
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-vectorize-dot-products{dsp=true}),expand-strided-metadata,convert-scf-to-cf,finalize-memref-to-llvm{index-bitwidth=32},convert-func-to-llvm{index-bitwidth=32},convert-arith-to-llvm{index-bitwidth=32},convert-cf-to-llvm{index-bitwidth=32},convert-index-to-llvm{index-bitwidth=32},convert-to-llvm,reconcile-unrealized-casts)' | mlir-translate --mlir-to-llvmir | llc -O2 -mtriple=thumbv7em-none-eabi -mcpu=cortex-m4 | FileCheck %s --check-prefix=ASM

// An int8 dot product over 130 channels on a CPU with the DSP extension (no length limit: LLVM
// vectorizes nothing there): steps of four products, each operand's word split into its even
// and odd bytes as pairs of halfwords (sxtb16, and sxtb16 of the word rotated by 8), each pair
// multiplied and added by smlad; the 2 channels left in a scalar loop.
// CHECK-LABEL: func.func @dot(
// CHECK-DAG: %[[QEND:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK: %[[V:.*]] = scf.for %{{.*}} = %{{.*}} to %[[QEND]] step %[[FOUR]] iter_args(%[[S:.*]] = %[[INIT]]) -> (i32) {
// CHECK: %[[XW:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK: %[[XE:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[XW]]) : (i32) -> i32
// CHECK: %[[XR:.*]] = llvm.intr.fshr(%[[XW]], %[[XW]], %{{.*}}) : (i32, i32, i32) -> i32
// CHECK: %[[XO:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[XR]]) : (i32) -> i32
// CHECK: %[[YW:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK: %[[YE:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[YW]]) : (i32) -> i32
// CHECK: %[[YO:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%{{.*}}) : (i32) -> i32
// CHECK: %[[H:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[XE]], %[[YE]], %[[S]]) : (i32, i32, i32) -> i32
// CHECK: %[[T:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[XO]], %[[YO]], %[[H]]) : (i32, i32, i32) -> i32
// CHECK: scf.yield %[[T]] : i32
// CHECK: scf.for %{{.*}} = %[[QEND]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[V]]) -> (i32) {
// CHECK: memref.store
// UNROLL: #[[UNROLL:.*]] = #llvm.loop_unroll<full = true>
// UNROLL: #[[FULL:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// UNROLL-LABEL: func.func @dot(
// UNROLL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32) {
// UNROLL: llvm.call_intrinsic "llvm.arm.smlad"
// UNROLL: } {loop_annotation = #[[FULL]]}
// UNROLL-LABEL: func.func @padded(
// ROLLED-NOT: loop_annotation
// ASM-LABEL: dot:
// ASM-DAG: sxtb16
// ASM-DAG: sxtb16 {{.*}}, ror #8
// ASM-DAG: smlad
func.func @dot(%a: memref<3x130xi8>, %b: memref<3x130xi8>, %acc: memref<i32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c130 = arith.constant 130 : index
  scf.for %i = %c0 to %c130 step %c1 {
    %x = memref.load %a[%k, %i] : memref<3x130xi8>
    %y = memref.load %b[%k, %i] : memref<3x130xi8>
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = memref.load %acc[] : memref<i32>
    %t = arith.addi %s, %p : i32
    memref.store %t, %acc[] : memref<i32>
  }
  return
}

// An input read through umac-fold-padding's bounds check (the condition the same for the whole
// loop, the load in bounds either way): where the check fails, the word is the padding byte
// four times (-128 * 0x01010101).
// CHECK-LABEL: func.func @padded(
// CHECK-SAME: %[[INSIDE:[a-z0-9]+]]: i1)
// CHECK: scf.for
// CHECK: %[[LOADED:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK: %[[PAD:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: %[[PADWORD:.*]] = arith.muli %[[PAD]], %c16843009_i32 : i32
// CHECK: %[[WORD:.*]] = arith.select %[[INSIDE]], %[[LOADED]], %[[PADWORD]] : i32
// CHECK: llvm.call_intrinsic "llvm.arm.sxtb16"(%[[WORD]]) : (i32) -> i32
// CHECK: llvm.call_intrinsic "llvm.arm.smlad"
// ASM-LABEL: padded:
// ASM: smlad
// ASM: .fnend
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
