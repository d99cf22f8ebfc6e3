// A lit test as umac's suites have them: the first RUN line uses only upstream passes (compared
// with mlir-opt), the second names a umac pass (umac's own, skipped), the third reads a file
// through a substitution whose path may contain anything.
// RUN: umac-opt %s --canonicalize | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-verify)' | FileCheck %s
// RUN: umac-opt %S/upstream-and-own.mlir --cse | FileCheck %s

// CHECK-LABEL: func.func @twice
func.func @twice(%x: i32) -> i32 {
  %c = arith.constant 0 : i32
  %y = arith.addi %x, %c : i32
  return %y : i32
}
