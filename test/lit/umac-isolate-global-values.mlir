// umac-isolate-global-values copies a loaded global that is read after a store to it, and a stored
// value that anything else reads (itself or through a view); a load read only before the store
// and a value computed for the store alone (an LSTM's state around its time loop) keep no copy.
// Bufferization would otherwise share the global's buffer with the load, and let another reader
// overwrite the stored value in place or store an uninitialized buffer.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-isolate-global-values)' | FileCheck %s

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

// Read only before the store, or read after a store to another global: no copy.
// CHECK-LABEL: func.func @read_before_store(
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @read_before_store(%x: tensor<4xi32>) -> tensor<4xi32> {
  %s = ml_program.global_load @state : tensor<4xi32>
  %o = ml_program.global_load @other : tensor<4xi32>
  %y = tosa.add %s, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  ml_program.global_store @state = %y : tensor<4xi32>
  %z = tosa.add %o, %o : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %z : tensor<4xi32>
}

// The stored value, viewed through a reshape, is also read before the store: an elementwise op
// could reuse its buffer as its output.
// CHECK-LABEL: func.func @read_through_view(
// CHECK: %[[V:.*]] = tosa.add
// CHECK: %[[R:.*]] = tosa.reshape %[[V]]
// CHECK: tosa.mul %[[V]]
// CHECK-NEXT: %[[RC:.*]] = bufferization.alloc_tensor() copy(%[[R]])
// CHECK-NEXT: ml_program.global_store @state = %[[RC]]
func.func @read_through_view(%x: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %v = tosa.add %x, %x : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %shape = tosa.const_shape {values = dense<4> : tensor<1xindex>} : () -> !tosa.shape<1>
  %r = tosa.reshape %v, %shape : (tensor<2x2xi32>, !tosa.shape<1>) -> tensor<4xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %v, %v, %shift : (tensor<2x2xi32>, tensor<2x2xi32>, tensor<1xi8>) -> tensor<2x2xi32>
  ml_program.global_store @state = %r : tensor<4xi32>
  return %y : tensor<2x2xi32>
}

// A use inside a later region counts as after the store.
// CHECK-LABEL: func.func @read_in_region(
// CHECK: %[[V:.*]] = tosa.add
// CHECK-NEXT: %[[VC:.*]] = bufferization.alloc_tensor() copy(%[[V]])
// CHECK-NEXT: ml_program.global_store @state = %[[VC]]
// CHECK: scf.if
// CHECK: scf.yield %[[V]]
func.func @read_in_region(%x: tensor<4xi32>, %c: i1) -> tensor<4xi32> {
  %v = tosa.add %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  ml_program.global_store @state = %v : tensor<4xi32>
  %r = scf.if %c -> tensor<4xi32> {
    scf.yield %v : tensor<4xi32>
  } else {
    scf.yield %x : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}
