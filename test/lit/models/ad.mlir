// The MLPerf Tiny ad model, as tosa-converter-for-tflite wrote it (dynamic batch) and with batch 1,
// in text and bytecode, goes through umac-lower-to-llvm and translates to LLVM IR.
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' %models/mlperf-tiny/ad/model.mlir | mlir-translate --mlir-to-llvmir | FileCheck %s
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' %models/mlperf-tiny/ad/model.mlirbc | mlir-translate --mlir-to-llvmir | FileCheck %s
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' %models/mlperf-tiny/ad/model_b1.mlir | mlir-translate --mlir-to-llvmir | FileCheck %s
// RUN: umac-opt --pass-pipeline='builtin.module(umac-lower-to-llvm)' %models/mlperf-tiny/ad/model_b1.mlirbc | mlir-translate --mlir-to-llvmir | FileCheck %s

// The entry takes the input's memref descriptor (4-D for the CNNs, 2-D for ad) and returns the
// output's (2-D).
// CHECK: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @main(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6)
