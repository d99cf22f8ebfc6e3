// umac-rename-entry renames the entry and every reference to it; a name taken by another
// function is an error at the entry.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-rename-entry{name=kws})' | FileCheck %s

// CHECK: func.func @kws(
// CHECK: call @kws(
func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}
func.func @twice(%x: tensor<4xi8>) -> tensor<4xi8> {
  %y = call @main(%x) : (tensor<4xi8>) -> tensor<4xi8>
  return %y : tensor<4xi8>
}

// -----

// expected-error @+1 {{umac-rename-entry: the model already has a function @kws; choose another name}}
func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}
func.func @kws(%x: tensor<4xi8>) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}
