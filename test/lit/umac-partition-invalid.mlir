// umac-partition rejects target lists it cannot use, naming what it accepts, when the pipeline is
// built (before the input is read), as MLIR reports any bad pass option.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition)' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=npu})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets="vanilla -size=3"})' 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets="vanilla -dimension=big"})' 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=vanilla,vanilla})' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-partition{targets=vanilla,cortex-m55})' 2>&1 | FileCheck %s --check-prefix=CPU

// NONE: <unknown>:0: error: targets= names no accelerator (e.g. umac-partition{targets=vanilla})
// NONE-NEXT: failed to add `umac-partition` with options ``
// UNKNOWN: error: unknown target 'npu' (known accelerators: vanilla, tynnp)
// ATTR: error: vanilla has no attribute '-size' (accepted: -dimension=<int> (default 16: the largest kernel height and width the MAC array takes))
// TYPE: error: '-dimension=big' for vanilla: the attribute takes an int
// TWICE: error: target 'vanilla' is named twice in 'vanilla,vanilla'
// CPU: error: 'cortex-m55' is a CPU; only accelerators are accepted here (known accelerators: vanilla, tynnp)
func.func @f(%x: tensor<4xi8>) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}
