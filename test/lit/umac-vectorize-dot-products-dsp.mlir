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
// UNROLL: #[[NEVER:.*]] = #llvm.loop_unroll<disable = true>
// UNROLL: #[[FULL:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// UNROLL: #[[KEEP:.*]] = #llvm.loop_annotation<unroll = #[[NEVER]]>
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
// With unroll, a loop reading through padding (a border's, which umac-split-borders copies nine
// times around the interior) stays rolled.
// UNROLL: scf.for
// UNROLL: llvm.call_intrinsic "llvm.arm.smlad"
// UNROLL: } {loop_annotation = #[[KEEP]]}
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

// A jammed tile (umac-channels-innermost{dot-products}): two output channels' dot products side by
// side, the loop over them inside the loop over the input channels. Each step loads and extends
// the input's word once and each filter row's word once per channel: two sums carried, stored
// once each at the channel's place.
// CHECK-LABEL: func.func @jammed(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<16xi8>, %[[W:[a-z0-9]+]]: memref<2x16xi8>, %[[ACC:[a-z0-9]+]]: memref<1x2xi32>
// CHECK: %[[I0:.*]] = memref.load %[[ACC]][%{{.*}}, %[[J0:.*]]] : memref<1x2xi32>
// CHECK-NEXT: %[[I1:.*]] = memref.load %[[ACC]][%{{.*}}, %[[J1:.*]]] : memref<1x2xi32>
// CHECK: %[[STEPS:.*]]:2 = scf.for %{{.*}} iter_args(%[[S0:.*]] = %[[I0]], %[[S1:.*]] = %[[I1]]) -> (i32, i32) {
// CHECK: %[[XW:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[XE:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[XW]])
// CHECK: %[[XO:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK: %[[W0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[W0E:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[W0]])
// CHECK: %[[W0O:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK: %[[W1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[W1E:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[W1]])
// CHECK: %[[W1O:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT: llvm.load
// CHECK: %[[H0:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[XE]], %[[W0E]], %[[S0]])
// CHECK: %[[T0:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[XO]], %[[W0O]], %[[H0]])
// CHECK: %[[H1:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[XE]], %[[W1E]], %[[S1]])
// CHECK: %[[T1:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[XO]], %[[W1O]], %[[H1]])
// CHECK: scf.yield %[[T0]], %[[T1]] : i32, i32
// CHECK: %[[TOTAL:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[STEPS]]#0, %{{.*}} = %[[STEPS]]#1) -> (i32, i32) {
// CHECK: memref.store %[[TOTAL]]#0, %[[ACC]][%{{.*}}, %[[J0]]] : memref<1x2xi32>
// CHECK: memref.store %[[TOTAL]]#1, %[[ACC]][%{{.*}}, %[[J1]]] : memref<1x2xi32>
// ASM-LABEL: jammed:
// ASM: smlad
// ASM: .fnend
func.func @jammed(%a: memref<16xi8>, %b: memref<2x16xi8>, %acc: memref<1x2xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %f = %c0 to %c2 step %c1 {
      %x = memref.load %a[%i] : memref<16xi8>
      %y = memref.load %b[%f, %i] : memref<2x16xi8>
      %xe = arith.extsi %x : i8 to i32
      %ye = arith.extsi %y : i8 to i32
      %p = arith.muli %xe, %ye : i32
      %s = memref.load %acc[%c0, %f] : memref<1x2xi32>
      %t = arith.addi %s, %p : i32
      memref.store %t, %acc[%c0, %f] : memref<1x2xi32>
    }
  }
  return
}

// Not a tile: the channels' loop does not index the accumulator, so both would sum into one
// place. Left alone.
// CHECK-LABEL: func.func @one_place(
// CHECK-NOT: llvm.arm.smlad
// CHECK: return
func.func @one_place(%a: memref<16xi8>, %b: memref<2x16xi8>, %acc: memref<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %f = %c0 to %c2 step %c1 {
      %x = memref.load %a[%i] : memref<16xi8>
      %y = memref.load %b[%f, %i] : memref<2x16xi8>
      %xe = arith.extsi %x : i8 to i32
      %ye = arith.extsi %y : i8 to i32
      %p = arith.muli %xe, %ye : i32
      %s = memref.load %acc[] : memref<i32>
      %t = arith.addi %s, %p : i32
      memref.store %t, %acc[] : memref<i32>
    }
  }
  return
}
