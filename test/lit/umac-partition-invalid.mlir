// umac-partition rejects target lists it cannot use, naming what it accepts.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition)' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=npu})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets="vanilla -size=3"})' 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets="vanilla -dimension=big"})' 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=vanilla,vanilla})' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=vanilla,cortex-m55})' 2>&1 | FileCheck %s --check-prefix=CPU

// NONE: umac-partition-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: umac-partition: targets= names no accelerator (e.g. umac-partition{targets=vanilla})
// UNKNOWN: error: umac-partition: unknown target 'npu' (known accelerators: vanilla)
// ATTR: error: umac-partition: vanilla has no attribute '-size' (accepted: -dimension=<int> (default 16: the largest kernel height and width the MAC array takes))
// TYPE: error: umac-partition: '-dimension=big' for vanilla: the attribute takes an int
// TWICE: error: umac-partition: target 'vanilla' is named twice in 'vanilla,vanilla'
// CPU: error: umac-partition: 'cortex-m55' is a CPU; only accelerators are accepted here (known accelerators: vanilla)
func.func @f(%x: tensor<4xi8>) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}
