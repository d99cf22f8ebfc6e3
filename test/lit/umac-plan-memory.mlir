// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-plan-memory)' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-plan-memory{alignment=64})' | FileCheck %s --check-prefix=ALIGN64
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(builtin.module(umac-plan-memory{alignment=64}))' | FileCheck %s --check-prefix=NESTED

// A chain of three buffers: a (steps 3-4), b (4-5), c (5-6). Only two are ever alive together,
// so c takes a's place: 128 bytes, which is also the liveness bound.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[IN:.*]]: memref<64xi8>, %[[OUT:.*]]: memref<64xi8>, %[[WS:.*]]: memref<128xi8>)
// CHECK-SAME: umac.workspace_lower_bound = 128 : i64, umac.workspace_size = 128 : i64
// CHECK-NOT: memref.alloc
// CHECK: %[[OA:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[WS]][%[[OA]]][] : memref<128xi8> to memref<64xi8>
// CHECK: %[[OB:.*]] = arith.constant 64 : index
// CHECK: %[[B:.*]] = memref.view %[[WS]][%[[OB]]][] : memref<128xi8> to memref<64xi8>
// CHECK: %[[OC:.*]] = arith.constant 0 : index
// CHECK: %[[C:.*]] = memref.view %[[WS]][%[[OC]]][] : memref<128xi8> to memref<64xi8>
// CHECK: linalg.copy ins(%[[IN]] : memref<64xi8>) outs(%[[A]] : memref<64xi8>)
// CHECK: linalg.copy ins(%[[A]] : memref<64xi8>) outs(%[[B]] : memref<64xi8>)
// CHECK: linalg.copy ins(%[[B]] : memref<64xi8>) outs(%[[C]] : memref<64xi8>)
// CHECK: linalg.copy ins(%[[C]] : memref<64xi8>) outs(%[[OUT]] : memref<64xi8>)
// ALIGN64-LABEL: func.func @chain(
// ALIGN64-SAME: umac.workspace_size = 128 : i64
func.func @chain(%in: memref<64xi8>, %out: memref<64xi8>) {
  %a = memref.alloc() : memref<64xi8>
  %b = memref.alloc() : memref<64xi8>
  %c = memref.alloc() : memref<64xi8>
  linalg.copy ins(%in : memref<64xi8>) outs(%a : memref<64xi8>)
  linalg.copy ins(%a : memref<64xi8>) outs(%b : memref<64xi8>)
  linalg.copy ins(%b : memref<64xi8>) outs(%c : memref<64xi8>)
  linalg.copy ins(%c : memref<64xi8>) outs(%out : memref<64xi8>)
  return
}

// -----

// Sizes round up to the alignment; a view of a buffer (collapse_shape) keeps it alive.
// 10 bytes -> 16 (a, steps 1-3 through its view), 3 bytes -> 16 (b, 2-3): 32 in all.
// With alignment 64: 128.
// CHECK-LABEL: func.func @views_and_rounding(
// CHECK-SAME: %{{.*}}: memref<32xi8>)
// CHECK-SAME: umac.workspace_lower_bound = 32 : i64, umac.workspace_size = 32 : i64
// ALIGN64-LABEL: func.func @views_and_rounding(
// ALIGN64-SAME: %{{.*}}: memref<128xi8>)
func.func @views_and_rounding(%in: memref<2x5xi8>, %out: memref<3xi8>, %out2: memref<10xi8>) {
  %a = memref.alloc() : memref<2x5xi8>
  %b = memref.alloc() : memref<3xi8>
  linalg.copy ins(%in : memref<2x5xi8>) outs(%a : memref<2x5xi8>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x5xi8> into memref<10xi8>
  %head = memref.subview %flat[0] [3] [1] : memref<10xi8> to memref<3xi8, strided<[1]>>
  linalg.copy ins(%head : memref<3xi8, strided<[1]>>) outs(%b : memref<3xi8>)
  linalg.copy ins(%flat : memref<10xi8>) outs(%out2 : memref<10xi8>)
  linalg.copy ins(%b : memref<3xi8>) outs(%out : memref<3xi8>)
  return
}

// -----

// In place: an elementwise generic whose input buffer dies there writes over it, so a and b
// are one buffer.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @in_place(
// CHECK-SAME: umac.workspace_size = 16 : i64
// CHECK: %[[A:.*]] = memref.view
// CHECK-NOT: memref.view
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<16xi8>) outs(%[[A]] : memref<16xi8>)
func.func @in_place(%in: memref<16xi8>, %out: memref<16xi8>) {
  %a = memref.alloc() : memref<16xi8>
  %b = memref.alloc() : memref<16xi8>
  linalg.copy ins(%in : memref<16xi8>) outs(%a : memref<16xi8>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<16xi8>) outs(%b : memref<16xi8>) {
  ^bb0(%x: i8, %y: i8):
    %z = arith.addi %x, %x : i8
    linalg.yield %z : i8
  }
  linalg.copy ins(%b : memref<16xi8>) outs(%out : memref<16xi8>)
  return
}

// -----

// Not in place when the input is still needed afterwards: two buffers.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @input_still_alive(
// CHECK-SAME: umac.workspace_size = 32 : i64
func.func @input_still_alive(%in: memref<16xi8>, %out: memref<16xi8>, %out2: memref<16xi8>) {
  %a = memref.alloc() : memref<16xi8>
  %b = memref.alloc() : memref<16xi8>
  linalg.copy ins(%in : memref<16xi8>) outs(%a : memref<16xi8>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<16xi8>) outs(%b : memref<16xi8>) {
  ^bb0(%x: i8, %y: i8):
    linalg.yield %x : i8
  }
  linalg.copy ins(%a : memref<16xi8>) outs(%out2 : memref<16xi8>)
  linalg.copy ins(%b : memref<16xi8>) outs(%out : memref<16xi8>)
  return
}

// -----

// A scratch buffer allocated inside a loop lives for the loop; an unused buffer disappears.
// CHECK-LABEL: func.func @scratch_in_loop(
// CHECK-SAME: umac.workspace_lower_bound = 32 : i64, umac.workspace_size = 32 : i64
// CHECK: scf.for
// CHECK: memref.view
// CHECK-NOT: memref.alloc
func.func @scratch_in_loop(%in: memref<4x8xi32>, %out: memref<4x8xi32>) {
  %unused = memref.alloc() : memref<1024xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<8xi32>
    %row = memref.subview %in[%i, 0] [1, 8] [1, 1] : memref<4x8xi32> to memref<8xi32, strided<[1], offset: ?>>
    memref.copy %row, %t : memref<8xi32, strided<[1], offset: ?>> to memref<8xi32>
    %dst = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xi32> to memref<8xi32, strided<[1], offset: ?>>
    memref.copy %t, %dst : memref<8xi32> to memref<8xi32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A buffer of at most 128 bits used within one step (a channel tile's four int32 accumulators)
// is a register: a memref.alloca in front of the step, not in the workspace.
// CHECK-LABEL: func.func @vector_register(
// CHECK-SAME: umac.workspace_lower_bound = 0 : i64, umac.workspace_size = 0 : i64
// CHECK: %[[R:.*]] = memref.alloca() : memref<4xi32>
// CHECK: scf.for
// CHECK: memref.copy %{{.*}}, %[[R]]
// CHECK-NOT: memref.view
func.func @vector_register(%in: memref<4x4xi32>, %out: memref<4x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4xi32>
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %in[%i, 0] [1, 4] [1, 1] : memref<4x4xi32> to memref<4xi32, strided<[1], offset: ?>>
    memref.copy %row, %t : memref<4xi32, strided<[1], offset: ?>> to memref<4xi32>
    %dst = memref.subview %out[%i, 0] [1, 4] [1, 1] : memref<4x4xi32> to memref<4xi32, strided<[1], offset: ?>>
    memref.copy %t, %dst : memref<4xi32> to memref<4xi32, strided<[1], offset: ?>>
  }
  return
}

// -----

// Not one a call takes, though: an accelerator's kernel may copy it by DMA, which does not reach
// the CPU's stack.
// CHECK-LABEL: func.func @called(
// CHECK-SAME: umac.workspace_lower_bound = 16 : i64, umac.workspace_size = 16 : i64
// CHECK-NOT: memref.alloca
// CHECK: %[[V:.*]] = memref.view
// CHECK: call @kernel(%[[V]])
func.func private @kernel(memref<4xi32>)
func.func @called() {
  %t = memref.alloc() : memref<4xi32>
  func.call @kernel(%t) : (memref<4xi32>) -> ()
  return
}

// -----

// A function without buffers gets an empty workspace.
// CHECK-LABEL: func.func @nothing(
// CHECK-SAME: %{{.*}}: memref<0xi8>)
// CHECK-SAME: umac.workspace_size = 0 : i64
func.func @nothing(%in: memref<4xi8>) {
  return
}

// -----

// Options hold in every clone MLIR makes of a pass (one per thread when it runs on several ops):
// both nested modules get alignment 64.
// NESTED-LABEL: module @one
// NESTED: func.func @odd(%{{.*}}: memref<128xi8>)
// NESTED-LABEL: module @two
// NESTED: func.func @odd(%{{.*}}: memref<128xi8>)
module @one {
  func.func @odd() {
    %a = memref.alloc() : memref<24xi8>
    %b = memref.alloc() : memref<24xi8>
    memref.copy %a, %b : memref<24xi8> to memref<24xi8>
    return
  }
}
module @two {
  func.func @odd() {
    %a = memref.alloc() : memref<24xi8>
    %b = memref.alloc() : memref<24xi8>
    memref.copy %a, %b : memref<24xi8> to memref<24xi8>
    return
  }
}

// -----

// Control flow (TFLite's WHILE): the ops in its regions are steps of their own, and a buffer
// used inside a loop lives through all of it. %t carries a value from one iteration to the next
// (read at the body's second step, written at its third); %w lives at the body's first step
// only. In a straight list of steps they would share bytes, and %w would overwrite what %t
// carries: they get 64 bytes each.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<128xi8>)
// CHECK-SAME: umac.workspace_size = 128 : i64
// CHECK-DAG: %[[T:.*]] = memref.view %[[WS]][%c0{{.*}}][]
// CHECK-DAG: %[[W:.*]] = memref.view %[[WS]][%c64{{.*}}][]
// CHECK: scf.while
// CHECK: linalg.copy ins(%{{.*}} : memref<64xi8>) outs(%[[W]] : memref<64xi8>)
// CHECK: linalg.copy ins(%[[T]] : memref<64xi8>)
// CHECK-NOT: memref.alloc
func.func @loop(%in: memref<64xi8>, %out: memref<64xi8>, %go: i1) {
  %t = memref.alloc() : memref<64xi8>
  %w = memref.alloc() : memref<64xi8>
  linalg.copy ins(%in : memref<64xi8>) outs(%t : memref<64xi8>)
  scf.while : () -> () {
    scf.condition(%go)
  } do {
    linalg.copy ins(%in : memref<64xi8>) outs(%w : memref<64xi8>)
    linalg.copy ins(%w : memref<64xi8>) outs(%out : memref<64xi8>)
    linalg.copy ins(%t : memref<64xi8>) outs(%out : memref<64xi8>)
    linalg.copy ins(%in : memref<64xi8>) outs(%t : memref<64xi8>)
    scf.yield
  }
  return
}
