// umac-refine-entry-results returns the entry's refined values (bypassing the casts shape
// inference leaves for the return) and types the entry with them; a result that is still
// dynamic is an error at the entry.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-refine-entry-results)' | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> tensor<2x4xi8>
// CHECK: %[[A:.*]] = tosa.abs
// CHECK: return %[[A]] : tensor<2x4xi8>
func.func @main(%x: tensor<2x4xi8>) -> tensor<?x4xi8> {
  %a = tosa.abs %x : (tensor<2x4xi8>) -> tensor<2x4xi8>
  %c = tensor.cast %a : tensor<2x4xi8> to tensor<?x4xi8>
  return %c : tensor<?x4xi8>
}

// -----

// expected-error @+1 {{umac-refine-entry-results: result #0 of @main still has a dynamic shape (tensor<?x4xi8>) after specializing the inputs}}
func.func @main(%x: tensor<?x4xi8>) -> tensor<?x4xi8> {
  return %x : tensor<?x4xi8>
}
