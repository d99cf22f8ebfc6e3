// For a CPU without an FPU the float minimum and maximum become compares and selects: LLVM would
// otherwise call libm's fminimumf/fmaximumf, which firmware does not link (the arithmetic is
// libgcc's soft-float helpers, which it does).
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-lower-to-firmware-llvm{index-bitwidth=32 soft-float=true})' | FileCheck %s --check-prefix=SOFT
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-lower-to-firmware-llvm{index-bitwidth=32})' | FileCheck %s --check-prefix=FPU

// SOFT-LABEL: llvm.func @main_op0_generic
// SOFT-NOT: llvm.intr.maximum
// SOFT-NOT: llvm.intr.minimum
// SOFT: llvm.fcmp
// SOFT: llvm.select
// FPU-LABEL: llvm.func @main_op0_generic
// FPU: llvm.intr.maximum
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tosa.clamp %x {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
