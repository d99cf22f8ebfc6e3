// Text and bytecode round trips keep the IR, and printing options behave as in mlir-opt.
// RUN: umac-opt %s | FileCheck %s
// RUN: umac-opt %s | umac-opt - | FileCheck %s
// RUN: umac-opt %s --emit-bytecode | umac-opt - | FileCheck %s
// RUN: umac-opt %s --emit-bytecode -o %t.mlirbc && umac-opt %t.mlirbc --emit-bytecode | cmp - %t.mlirbc
// RUN: umac-opt %s --emit-bytecode | umac-opt - --emit-bytecode | umac-opt - | FileCheck %s
// RUN: umac-opt %s -o %t.mlir && umac-opt %t.mlir | FileCheck %s
// RUN: umac-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: umac-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// RUN: umac-opt %s --emit-bytecode | umac-opt - --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// Single-dash spellings of the LLVM tools work too.
// RUN: umac-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK: %[[SUM:.*]] = tosa.add %[[A]], %[[B]] : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// CHECK: return %[[SUM]] : tensor<4xi8>
// CHECK-LABEL: func.func @call_extern(
// CHECK: "umac.call_extern"(%{{.*}}, %{{.*}}) {callee = @kernel, operandSegmentSizes = array<i32: 1, 1>}
// CHECK: func.func private @partitioned() attributes {umac.composite = "conv2d", umac.target = "npu"}

// GENERIC: "func.func"() <{function_type = (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>, sym_name = "add"}>
// GENERIC: "tosa.add"(%{{.*}}, %{{.*}}) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// GENERIC: "func.return"

// Locations point into this file, at the line and column of each op.
// DEBUG: tosa.add {{.*}} loc([[ADD:#loc[0-9]+]])
// DEBUG: [[ADD]] = loc("{{.*}}roundtrip.mlir":[[@LINE+2]]:8)
func.func @add(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.add %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

func.func @call_extern(%in: memref<4xi8>, %out: memref<4xi8>) {
  "umac.call_extern"(%in, %out) {callee = @kernel, operandSegmentSizes = array<i32: 1, 1>} : (memref<4xi8>, memref<4xi8>) -> ()
  return
}

func.func private @partitioned() attributes {umac.target = "npu", umac.composite = "conv2d"}
