// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-plan-memory)' -o /dev/null
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-plan-memory{alignment=24})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: option 'alignment' must be a power of two from 1 to 4096, got 24
// ALIGN-NEXT: failed to add `umac-plan-memory` with options `alignment=24`

func.func @dynamic(%n: index) {
  // expected-error @+1 {{umac-plan-memory: cannot place a memref.alloc of memref<?xi8> in the workspace (only static-size memref.alloc)}}
  %a = memref.alloc(%n) : memref<?xi8>
  return
}

// -----

// Planning happens on structured control flow: one block per function.
// expected-error @+1 {{umac-plan-memory: the function has more than one block; plan memory before lowering to cf}}
func.func @blocks(%c: i1) {
  %a = memref.alloc() : memref<4xi8>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb2
^bb2:
  return
}
