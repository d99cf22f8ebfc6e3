// umac-legalize-vanilla: each vanilla composite becomes a destination-passing extern call of
// vanilla_conv2d_s8 on buffers of its tensors, with its shapes and attributes as int32 scalars.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-legalize-vanilla)' | FileCheck %s
// Through the whole firmware lowering, it is a call of the C function, declared in the module.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-legalize-vanilla,umac-lower-to-firmware-llvm{index-bitwidth=32})' | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @vanilla_0(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> attributes {umac.composite = "vanilla.conv2d", umac.target = "vanilla"}
// CHECK-NOT: tosa.conv2d
// CHECK-NOT: tosa.rescale
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<1x8x8x4xi8> to memref<1x8x8x4xi8>
// The absent bias add is a buffer of one zero.
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<1xi32>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 16 : i64} : memref<1x8x8x4xi8>
// CHECK: "umac.call_extern"(%[[IN]], {{.*}}, %[[OUT]]) {callee = @vanilla_conv2d_s8, operandSegmentSizes = array<i32: 31, 1>}
// CHECK-SAME: (memref<1x8x8x4xi8>, memref<4x3x3x4xi8>, memref<4xi32>, memref<1xi8>, memref<1xi8>, memref<1xi32>, memref<4xi32>, memref<4xi8>, memref<1xi32>, memref<1xi8>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, memref<1x8x8x4xi8>) -> ()
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<1x8x8x4xi8> to tensor<1x8x8x4xi8>
// CHECK: return %[[R]]
// LLVM: llvm.func @main(
// LLVM: llvm.call @vanilla_0(
// LLVM: llvm.func @vanilla_0({{.*}}) attributes {{{.*}}umac.composite = "vanilla.conv2d", umac.target = "vanilla"}
// LLVM: llvm.call @vanilla_conv2d_s8({{.*}}) : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
// LLVM: llvm.func @vanilla_conv2d_s8(i32, {{.*}}) attributes {sym_visibility = "private"}
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %0 = call @vanilla_0(%x) : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %0 : tensor<1x8x8x4xi8>
}
func.func private @vanilla_0(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> attributes {umac.composite = "vanilla.conv2d", umac.target = "vanilla"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x4xi8>}> : () -> tensor<4x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k : tensor<1x8x8x4xi8>
}

// -----

// A function of vanilla's holding an op none of its patterns covers (edited IR) is rejected.
func.func private @vanilla_3(%x: tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32> attributes {umac.composite = "vanilla.conv2d", umac.target = "vanilla"} {
  // expected-error @+1 {{'tosa.abs' in @vanilla_3 is not part of any of vanilla's composite patterns}}
  %a = tosa.abs %x : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  return %a : tensor<1x4x4x2xi32>
}
