// umac-strip-entry-attributes drops the entry's argument and result attributes (LLVM
// translation warns about every one it does not know); other functions keep theirs.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-strip-entry-attributes{entry=model})' | FileCheck %s

// CHECK: func.func @model(%{{.*}}: tensor<4xi8>) -> tensor<4xi8> {
// CHECK: func.func @helper(%{{.*}}: tensor<4xi8> {tosa.tensor_name = "x"})
func.func @model(%x: tensor<4xi8> {tosa.tensor_name = "in"}) -> (tensor<4xi8> {tosa.tensor_name = "out"}) {
  return %x : tensor<4xi8>
}
func.func @helper(%x: tensor<4xi8> {tosa.tensor_name = "x"}) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}
