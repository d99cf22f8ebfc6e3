// umac-isolate-global-values copies a loaded global that is read after a store to it, and gives
// every store a copy of its own (bufferization counts a store as writing its operand: it would
// let another reader overwrite the value in place, or store an uninitialized buffer for a value
// read later or one it cannot write, such as a constant). A loop's result computed for the store
// alone (an LSTM's state) and a copy already made keep no (further) copy; nor does a load read
// only before the store, or read after a store to another global.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-isolate-global-values)' | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-isolate-global-values,umac-isolate-global-values)' | FileCheck %s

ml_program.global private mutable @state(dense<0> : tensor<4xi32>) : tensor<4xi32>
ml_program.global private mutable @other(dense<0> : tensor<4xi32>) : tensor<4xi32>

// CHECK-LABEL: func.func @read_after_store(
// CHECK-SAME: %[[X:.*]]: tensor<4xi32>
// CHECK: %[[S:.*]] = ml_program.global_load @state
// CHECK-NEXT: %[[SC:.*]] = bufferization.alloc_tensor() copy(%[[S]])
// CHECK-NEXT: %[[XC:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK-NEXT: ml_program.global_store @state = %[[XC]]
// CHECK-NEXT: tosa.sub %[[SC]], %[[X]]
func.func @read_after_store(%x: tensor<4xi32>) -> tensor<4xi32> {
  %s = ml_program.global_load @state : tensor<4xi32>
  ml_program.global_store @state = %x : tensor<4xi32>
  %y = tosa.sub %s, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// Loads read only before the store, or after a store to another global: no copy. The stored
// sum gets one.
// CHECK-LABEL: func.func @read_before_store(
// CHECK: %[[S:.*]] = ml_program.global_load @state
// CHECK-NEXT: %[[O:.*]] = ml_program.global_load @other
// CHECK-NEXT: %[[Y:.*]] = tosa.add %[[S]]
// CHECK-NEXT: %[[YC:.*]] = bufferization.alloc_tensor() copy(%[[Y]])
// CHECK-NEXT: ml_program.global_store @state = %[[YC]]
// CHECK-NEXT: tosa.add %[[O]], %[[O]]
func.func @read_before_store(%x: tensor<4xi32>) -> tensor<4xi32> {
  %s = ml_program.global_load @state : tensor<4xi32>
  %o = ml_program.global_load @other : tensor<4xi32>
  %y = tosa.add %s, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  ml_program.global_store @state = %y : tensor<4xi32>
  %z = tosa.add %o, %o : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %z : tensor<4xi32>
}

// A constant, which bufferization cannot write, is stored through a copy.
// CHECK-LABEL: func.func @store_constant(
// CHECK: %[[C:.*]] = "tosa.const"
// CHECK-NEXT: %[[CC:.*]] = bufferization.alloc_tensor() copy(%[[C]])
// CHECK-NEXT: ml_program.global_store @other = %[[CC]]
func.func @store_constant() {
  %c = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  ml_program.global_store @other = %c : tensor<4xi32>
  return
}

// A reader of the loaded value inside a later region counts as after the store.
// CHECK-LABEL: func.func @read_in_region(
// CHECK: %[[S:.*]] = ml_program.global_load @state
// CHECK-NEXT: %[[SC:.*]] = bufferization.alloc_tensor() copy(%[[S]])
// CHECK: scf.if
// CHECK: scf.yield %[[SC]]
func.func @read_in_region(%x: tensor<4xi32>, %c: i1) -> tensor<4xi32> {
  %s = ml_program.global_load @state : tensor<4xi32>
  ml_program.global_store @state = %x : tensor<4xi32>
  %r = scf.if %c -> tensor<4xi32> {
    scf.yield %s : tensor<4xi32>
  } else {
    scf.yield %x : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}

// An LSTM's state: loaded, carried through its time loop, the loop's result stored: no copy.
// CHECK-LABEL: func.func @loop_state(
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @loop_state(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = ml_program.global_load @state : tensor<4xi32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %s) -> tensor<4xi32> {
    %n = tosa.add %h, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    scf.yield %n : tensor<4xi32>
  }
  ml_program.global_store @state = %r : tensor<4xi32>
  return %x : tensor<4xi32>
}
