// RUN: umac-opt --list-passes | FileCheck %s
// CHECK: umac-verify {{.*}}Check umac ops
// CHECK-NEXT: allow-unregistered-dialect bool (default: false)
// CHECK: umac-lower-to-llvm {{.*}}Lower a TOSA model to the llvm dialect {{.*}}[pipeline, on builtin.module]
