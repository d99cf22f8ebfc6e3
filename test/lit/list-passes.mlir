// umac's passes are MLIR passes: --list-passes shows them beside upstream's, with their options,
// and --help lists umac's pipelines among the pass pipelines.
// RUN: umac-opt --list-passes | FileCheck %s
// CHECK: Passes:
// CHECK: --canonicalize
// The accelerator API's passes join the registry: the partitioner and one legalization per backend,
// and for a backend with primitive ops (tynnp) the passes forming them, scheduling them and
// lowering them to their reference.
// CHECK: --umac-legalize-vanilla {{.*}}-   Lower the target's composites by its strategies
// CHECK-NEXT: --attributes=<string> {{.*}}- the target's attributes as in a target string
// CHECK: --umac-partition {{.*}}-   Match the targets' composite patterns
// CHECK-NEXT: --targets=<string> {{.*}}- accelerators in priority order
// CHECK: --umac-plan-memory {{.*}}-   Place every memref.alloc in one caller-provided workspace
// CHECK-NEXT: --alignment=<long> {{.*}}- byte alignment of every buffer (a power of two)
// CHECK: --umac-primitives-tynnp {{.*}}-   Replace each of the target's composites by its primitive op
// CHECK-NEXT: --attributes=<string>
// CHECK: --umac-reference-tynnp {{.*}}-   Lower the target's primitive ops to upstream ops
// CHECK: --umac-schedule-tynnp {{.*}}-   Attach the target's schedule of each composite
// CHECK: --umac-verify {{.*}}-   Check umac ops

// RUN: umac-opt --help | FileCheck %s --check-prefix=HELP
// Accelerators' dialects are registered beside umac's.
// HELP: Available Dialects: {{.*}}tosa, transform, tynnp, ub, umac, vector
// HELP: Pass Pipelines:
// HELP: --tosa-to-linalg-pipeline
// HELP: --umac-lower-to-firmware-llvm {{.*}}-   Lower a static-shaped TOSA model to the llvm dialect for firmware
// HELP: --umac-lower-to-llvm {{.*}}-   Lower a TOSA model to the llvm dialect
