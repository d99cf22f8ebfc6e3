// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' %s | FileCheck %s
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' %s | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' --mlir-print-ir-after-all %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES

// A conv2d + per-channel rescale + clamp, the core of every quantized CNN layer. Everything must
// end in the llvm dialect: no tosa, linalg, tensor, memref, scf, cf or arith op may survive.

// CHECK-NOT: tosa.
// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// Per-channel multipliers and shifts become global constants.
// CHECK-DAG: llvm.mlir.global private constant @[[MUL:[_a-z0-9]+]](dense<[1518500250, 1073741824]> : tensor<2xi32>)
// CHECK-DAG: llvm.mlir.global private constant @[[SHIFT:[_a-z0-9]+]](dense<[38, 37]> : tensor<2xi8>)
// CHECK-LABEL: llvm.func @conv_rescale_clamp(
// The convolution accumulates int8 products, offset by the input zero point, in i32...
// CHECK: llvm.sext %{{.*}} : i8 to i32
// CHECK: llvm.mul %{{.*}} : i32
// ... the rescale multiplies in i64, rounds (DOUBLE_ROUND) and shifts right arithmetically...
// CHECK: llvm.sext %{{.*}} : i32 to i64
// CHECK: llvm.ashr %{{.*}} : i64
// CHECK: llvm.trunc %{{.*}} : i64 to i32
// ... saturates to int8...
// CHECK: llvm.intr.smax(%{{.*}}) : (i32, i32) -> i32
// CHECK: llvm.intr.smin(%{{.*}}) : (i32, i32) -> i32
// CHECK: llvm.trunc %{{.*}} : i32 to i8
// ... and the clamp caps at 100 (its lower bound, -128, is the type's, so it needs no max).
// CHECK-NOT: llvm.intr.smax(%{{.*}}) : (i8, i8) -> i8
// CHECK: llvm.intr.smin(%{{.*}}) : (i8, i8) -> i8
// The int32 accumulator is a temporary: freed before returning the result buffer.
// CHECK: llvm.call @free
// CHECK: llvm.return
// CHECK-NOT: {{(tosa|linalg|tensor|memref|scf|cf|arith|bufferization|affine)\.}}

// Each memref argument becomes its descriptor's fields (allocated and aligned pointers, offset, sizes, strides).
// LLVMIR: define { ptr, ptr, i64, [4 x i64], [4 x i64] } @conv_rescale_clamp(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, ptr %11, ptr %12, i64 %13, i64 %14, i64 %15, i64 %16, i64 %17, i64 %18, i64 %19, i64 %20, i64 %21, ptr %22, ptr %23, i64 %24, i64 %25, i64 %26)
// LLVMIR: mul i64
// LLVMIR: ret { ptr, ptr, i64, [4 x i64], [4 x i64] }

// The named pipeline expands into upstream passes, in this order.
// STAGES: IR Dump After TosaToLinalgNamed
// STAGES: IR Dump After TosaToLinalg
// STAGES: IR Dump After TosaToArith
// STAGES: IR Dump After OneShotBufferize
// STAGES: IR Dump After ConvertLinalgToLoopsPass
// STAGES: IR Dump After SCFToControlFlowPass
// STAGES: IR Dump After FinalizeMemRefToLLVMConversionPass
// STAGES: IR Dump After ReconcileUnrealizedCasts

func.func @conv_rescale_clamp(%input: tensor<1x5x5x3xi8>, %weights: tensor<2x3x3x3xi8>, %bias: tensor<2xi32>) -> tensor<1x3x3x2xi8> {
  %input_zp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %weight_zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %input, %weights, %bias, %input_zp, %weight_zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x3xi8>, tensor<2x3x3x3xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x2xi32>
  %multiplier = "tosa.const"() <{values = dense<[1518500250, 1073741824]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %shift = "tosa.const"() <{values = dense<[38, 37]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %acc_zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %out_zp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scaled = tosa.rescale %acc, %multiplier, %shift, %acc_zp, %out_zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x3x3x2xi32>, tensor<2xi32>, tensor<2xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x3x3x2xi8>
  %relu = tosa.clamp %scaled {max_val = 100 : i8, min_val = -128 : i8} : (tensor<1x3x3x2xi8>) -> tensor<1x3x3x2xi8>
  return %relu : tensor<1x3x3x2xi8>
}
