// umac-expose-intermediates returns every TOSA op's (static) result from the entry too, after its
// own results, each through its own copy; constants are not layers.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-expose-intermediates)' | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>)
// CHECK: %[[A:.*]] = tosa.abs
// CHECK: %[[N:.*]] = tosa.negate %[[A]]
// CHECK: %[[CA:.*]] = bufferization.alloc_tensor() copy(%[[A]])
// CHECK: %[[CN:.*]] = bufferization.alloc_tensor() copy(%[[N]])
// CHECK: return %[[N]], %[[CA]], %[[CN]]
func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  %n = tosa.negate %a, %zp, %zp : (tensor<4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %n : tensor<4xi8>
}
