// umac-on-target-functions runs a func.func pipeline on the functions partitioned to one target
// and on no other: here cse merges the duplicate ops of @npu_0 only.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-on-target-functions{target=npu pipeline={cse,canonicalize}})' | FileCheck %s
// A pipeline that does not parse fails the pass, naming it.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-on-target-functions{target=npu pipeline=no-such-pass})' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @main(
// CHECK-COUNT-2: tosa.abs
// CHECK-LABEL: func.func private @npu_0(
// CHECK-COUNT-1: tosa.abs
// CHECK-NOT: tosa.abs
// CHECK-LABEL: func.func private @other_0(
// CHECK-COUNT-2: tosa.abs
// BAD: error: umac-on-target-functions: pipeline 'no-such-pass' does not parse: 'no-such-pass' does not refer to a registered pass or pass pipeline
func.func @main(%x: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>) {
  %a = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  %b = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  return %a, %b : tensor<4xi8>, tensor<4xi8>
}
func.func private @npu_0(%x: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>) attributes {umac.target = "npu"} {
  %a = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  %b = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  return %a, %b : tensor<4xi8>, tensor<4xi8>
}
func.func private @other_0(%x: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>) attributes {umac.target = "other"} {
  %a = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  %b = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  return %a, %b : tensor<4xi8>, tensor<4xi8>
}
