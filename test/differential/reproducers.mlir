// Reproducers: a failing pipeline writes one (the whole pipeline, or the failing pass alone with
// the local option); --run-reproducer runs the pipeline a reproducer file carries;
// --mlir-generate-reproducer writes one without a failure.
// RUN: %compare %s --test-pass-failure --mlir-pass-pipeline-crash-reproducer=repro.mlir
// RUN: %compare %s --canonicalize --test-pass-failure --mlir-pass-pipeline-crash-reproducer=repro.mlir --mlir-pass-pipeline-local-reproducer --mlir-disable-threading
// RUN: %compare %s --canonicalize --mlir-generate-reproducer=generated.mlir
// RUN: %compare %S/Inputs/reproducer.mlir --run-reproducer
// RUN: %compare %S/Inputs/reproducer.mlir --run-reproducer --mlir-print-ir-after-all
// RUN: %compare %S/Inputs/reproducer.mlir
// RUN: %compare %s --run-reproducer

func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = arith.addi %x, %c0 : i32
  return %r : i32
}
