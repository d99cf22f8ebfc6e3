// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-lower-to-host-llvm)' | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-lower-to-host-llvm)' | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// The LLVM engine's level: memref arguments are bare pointers (all shapes are static), no descriptors cross the boundary.
// CHECK-LABEL: llvm.func @main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK: llvm.call @malloc
// CHECK: llvm.call @free
// CHECK: llvm.return
// LLVMIR: define void @main(ptr %0, ptr %1)

func.func @main(%x: tensor<1x4x4x2xi8>) -> tensor<1x2x2x2xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<2x3x3x2xi8>}> : () -> tensor<2x3x3x2xi8>
  %b = "tosa.const"() <{values = dense<[10, -10]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x3x3x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x2xi32>
  %m = "tosa.const"() <{values = dense<[1518500250, 1073741824]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %s = "tosa.const"() <{values = dense<[38, 37]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %azp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %y = tosa.rescale %acc, %m, %s, %azp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x2x2x2xi32>, tensor<2xi32>, tensor<2xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x2x2x2xi8>
  return %y : tensor<1x2x2x2xi8>
}
