// The batch-1 KWS model through the firmware lowering: per-pixel fused loop nests, one planned
// workspace, one function per operator, 32-bit indices for Cortex-M; it translates to LLVM IR.
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-firmware-operators)' %models/mlperf-tiny/kws/model_b1.mlir | FileCheck %s --check-prefix=OPS
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-firmware-llvm{index-bitwidth=32})' %models/mlperf-tiny/kws/model_b1.mlir | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// The executor: the input, the output and the workspace; only calls and views inside. No
// buffer is allocated, and no int32 tensor of a convolution's full output exists.
// The workspace is the liveness bound of the int8 graph: two 25x5x64 tensors (TFLite Micro's
// activation arena is the same 16000 bytes).
// OPS: func.func @main(%{{.*}}: memref<1x49x10x1xi8>, %{{.*}}: memref<1x12xi8>, %[[WS:.*]]: memref<16000xi8>)
// OPS-SAME: umac.workspace_lower_bound = 16000 : i64, umac.workspace_size = 16000 : i64
// OPS-NOT: memref.alloc
// OPS-NOT: memref<1x25x5x64xi32>
// OPS: call @main_op0_conv_2d_nhwc_fhwc(
// OPS: call @main_op1_depthwise_conv_2d_nhwc_hwcm(
// Each output element is computed in one go: the accumulator is a scalar (an alloca LLVM turns
// into a register), the padded input is read in place with bounds checks (umac-fold-padding).
// OPS: func.func private @main_op0_conv_2d_nhwc_fhwc(%[[X:[a-z0-9]+]]: memref<1x49x10x1xi8> {llvm.noalias}, %{{.*}}: memref<1x25x5x64xi8> {llvm.noalias})
// OPS: %[[ACC:.*]] = memref.alloca() : memref<1x1x1x1xi32>
// OPS: scf.for
// OPS: scf.for
// OPS: scf.for
// OPS: linalg.generic {{.*}} outs(%[[ACC]] : memref<1x1x1x1xi32>)
// OPS: memref.load %[[X]]
// OPS-NOT: memref.alloc(

// LLVM: define void @main(ptr %0, ptr %1, ptr %2)
// LLVM: call void @main_op0_conv_2d_nhwc_fhwc(
// LLVM: define void @main_op0_conv_2d_nhwc_fhwc(
// LLVM: getelementptr {{.*}}, i32
// LLVM-NOT: malloc
