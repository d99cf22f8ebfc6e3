// umac-set-entry-shapes gives the entry's arguments static shapes: dynamic dimensions take the
// sizes given, static ones must equal them; the body is left for shape inference.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-set-entry-shapes{shapes=2x4,3})' | FileCheck %s

// TOSA users take the refined argument; others see the old type through a cast (the IR stays
// valid until shape inference and umac-refine-entry-results).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<2x4xi8>, %[[N:.*]]: tensor<3xi32>) -> (tensor<?x4xi8>, tensor<?x4xi8>)
// CHECK: %[[CAST:.*]] = tensor.cast %[[X]] : tensor<2x4xi8> to tensor<?x4xi8>
// CHECK: tosa.abs %[[X]] : (tensor<2x4xi8>) -> tensor<?x4xi8>
// CHECK: return %{{.*}}, %[[CAST]]
// Other functions are left alone.
// CHECK-LABEL: func.func @other(
// CHECK-SAME: tensor<?x4xi8>
func.func @main(%x: tensor<?x4xi8>, %n: tensor<3xi32>) -> (tensor<?x4xi8>, tensor<?x4xi8>) {
  %y = tosa.abs %x : (tensor<?x4xi8>) -> tensor<?x4xi8>
  return %y, %x : tensor<?x4xi8>, tensor<?x4xi8>
}
func.func @other(%x: tensor<?x4xi8>) -> tensor<?x4xi8> {
  return %x : tensor<?x4xi8>
}

// -----

// A shape that contradicts a static dimension is rejected at the entry.
// expected-error @+1 {{umac-set-entry-shapes: argument #0 of @main has type tensor<?x5xi8>, which shape 2x4 does not fit}}
func.func @main(%x: tensor<?x5xi8>, %n: tensor<3xi32>) -> tensor<?x5xi8> {
  return %x : tensor<?x5xi8>
}

// -----

// One shape per argument.
// expected-error @+1 {{umac-set-entry-shapes: 2 shape(s) given for the 1 argument(s) of @main}}
func.func @main(%x: tensor<?x4xi8>) -> tensor<?x4xi8> {
  return %x : tensor<?x4xi8>
}

// -----

// The entry must exist (the error names what there is).
// expected-error @+1 {{umac-set-entry-shapes: the model has no function @main (it has @model)}}
module {
  func.func @model(%x: tensor<?x4xi8>) -> tensor<?x4xi8> {
    return %x : tensor<?x4xi8>
  }
}
