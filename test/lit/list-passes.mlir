// RUN: umac-opt --list-passes | FileCheck %s
// CHECK: umac-verify {{.*}}Check umac ops
// CHECK-NEXT: allow-unregistered-dialect bool (default: false)
// CHECK: umac-lower-to-llvm {{.*}}Lower a TOSA model to the llvm dialect {{.*}}[pipeline, on builtin.module]
// The accelerator API's passes join the registry: the partitioner and one legalization per backend.
// CHECK: umac-partition {{.*}}[pass, on builtin.module]
// CHECK-NEXT: targets string (default: "")
// CHECK: umac-legalize-vanilla {{.*}}[pass, on builtin.module]
