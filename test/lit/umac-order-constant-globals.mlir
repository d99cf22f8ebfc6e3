// umac-order-constant-globals names and places bufferization's constant globals by their first
// use in the module, as bufferization does for one function: the first of a shape keeps the plain
// name, later ones take _<n> from one counter, the last one met sits at the top. The input here
// is in the scrambled order bufferization can leave a module with several functions in.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-order-constant-globals)' | FileCheck %s

// CHECK: memref.global "private" constant @__constant_2xi8_0 : memref<2xi8> = dense<3>
// CHECK-NEXT: memref.global "private" constant @__constant_4xi8 : memref<4xi8> = dense<2>
// CHECK-NEXT: memref.global "private" constant @__constant_2xi8 : memref<2xi8> = dense<1>
// CHECK-NEXT: memref.global "private" @state
// CHECK-LABEL: func.func @main(
// CHECK: memref.get_global @__constant_2xi8 :
// CHECK: memref.get_global @__constant_4xi8 :
// CHECK-LABEL: func.func @second(
// CHECK: memref.get_global @__constant_2xi8_0 :
// CHECK: memref.get_global @__constant_2xi8 :
memref.global "private" @state : memref<2xi8> = uninitialized
memref.global "private" constant @__constant_2xi8 : memref<2xi8> = dense<3> {alignment = 64 : i64}
memref.global "private" constant @__constant_4xi8_7 : memref<4xi8> = dense<2> {alignment = 64 : i64}
memref.global "private" constant @__constant_2xi8_3 : memref<2xi8> = dense<1> {alignment = 64 : i64}
func.func @main() -> (memref<2xi8>, memref<4xi8>) {
  %a = memref.get_global @__constant_2xi8_3 : memref<2xi8>
  %b = memref.get_global @__constant_4xi8_7 : memref<4xi8>
  return %a, %b : memref<2xi8>, memref<4xi8>
}
func.func @second() -> (memref<2xi8>, memref<2xi8>) {
  %a = memref.get_global @__constant_2xi8 : memref<2xi8>
  %b = memref.get_global @__constant_2xi8_3 : memref<2xi8>
  return %a, %b : memref<2xi8>, memref<2xi8>
}
