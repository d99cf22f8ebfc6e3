// umac-resolve-slice-sizes replaces the -1 ("to the end") sizes of tosa.slice over static
// inputs by the sizes they stand for; slices it cannot resolve are left alone.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-resolve-slice-sizes)' | FileCheck %s

// CHECK-LABEL: func.func @static_input
// CHECK: %[[SIZE:.*]] = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>}
// CHECK: tosa.slice %{{.*}}, %{{.*}}, %[[SIZE]]
func.func @static_input(%x: tensor<1x10xi8>) -> tensor<1x6xi8> {
  %start = tosa.const_shape {values = dense<[0, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.slice %x, %start, %size : (tensor<1x10xi8>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6xi8>
  return %s : tensor<1x6xi8>
}

// A dynamic input keeps its -1.
// CHECK-LABEL: func.func @dynamic_input
// CHECK: %[[SIZE:.*]] = tosa.const_shape {values = dense<[1, -1]> : tensor<2xindex>}
// CHECK: tosa.slice %{{.*}}, %{{.*}}, %[[SIZE]]
func.func @dynamic_input(%x: tensor<1x?xi8>) -> tensor<1x?xi8> {
  %start = tosa.const_shape {values = dense<[0, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.slice %x, %start, %size : (tensor<1x?xi8>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x?xi8>
  return %s : tensor<1x?xi8>
}
