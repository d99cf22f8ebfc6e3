// umac-specialize-entry makes a dynamic entry static through the whole graph: the arguments
// take the shapes given, shape inference refines every TOSA op, -1 slice sizes are resolved, and
// the entry returns (and is typed with) the refined results.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-specialize-entry{entry=model shapes=2x10})' | FileCheck %s

// CHECK-LABEL: func.func @model(
// CHECK-SAME: %[[X:.*]]: tensor<2x10xi8>) -> tensor<2x6xi8>
// CHECK: %[[A:.*]] = tosa.abs %[[X]] : (tensor<2x10xi8>) -> tensor<2x10xi8>
// CHECK: %[[SIZE:.*]] = tosa.const_shape {values = dense<[2, 6]> : tensor<2xindex>}
// CHECK: %[[S:.*]] = tosa.slice %[[A]], %{{.*}}, %[[SIZE]] : (tensor<2x10xi8>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x6xi8>
// CHECK: return %[[S]] : tensor<2x6xi8>
func.func @model(%x: tensor<?x10xi8>) -> tensor<?x?xi8> {
  %a = tosa.abs %x : (tensor<?x10xi8>) -> tensor<?x10xi8>
  %start = tosa.const_shape {values = dense<[0, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[-1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.slice %a, %start, %size : (tensor<?x10xi8>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<?x?xi8>
  return %s : tensor<?x?xi8>
}
