// umac-plan-memory{pools=...} with a pool only the CPU reaches (`:cpu`: a TCM, an NPU control
// unit's data memory): a buffer a call takes (an accelerator's kernel may copy it by DMA) never
// goes there, however much it is accessed; the others fill it first when it is also fast.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-plan-memory{pools=ram:64K,tcm:8K:fast:cpu})' | FileCheck %s

func.func private @kernel(memref<4000xi8>, memref<4000xi8>)

// %a and %b, 4000 bytes each and the most accessed, are what the kernel reads and writes: in
// ram, apart (both alive at the call); %c, which only the CPU touches, in the tcm.
// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: %[[RAM:[^:]*]]: memref<8000xi8>, %[[TCM:[^:]*]]: memref<4000xi8>)
// CHECK-SAME: umac.pool_sizes = array<i64: 8000, 4000>, umac.pools = ["ram", "tcm"]
// CHECK: %[[A:.*]] = memref.view %[[RAM]][%{{.*}}][] : memref<8000xi8> to memref<4000xi8>
// CHECK: %[[B:.*]] = memref.view %[[RAM]][%{{.*}}][] : memref<8000xi8> to memref<4000xi8>
// CHECK: call @kernel(%[[A]], %[[B]])
// CHECK: %[[C:.*]] = memref.view %[[TCM]][%{{.*}}][] : memref<4000xi8> to memref<4000xi8>
func.func @mixed(%in: memref<4000xi8>, %out: memref<4000xi8>) {
  %a = memref.alloc() : memref<4000xi8>
  memref.copy %in, %a : memref<4000xi8> to memref<4000xi8>
  %b = memref.alloc() : memref<4000xi8>
  call @kernel(%a, %b) : (memref<4000xi8>, memref<4000xi8>) -> ()
  %c = memref.alloc() : memref<4000xi8>
  memref.copy %b, %c : memref<4000xi8> to memref<4000xi8>
  memref.copy %c, %out : memref<4000xi8> to memref<4000xi8>
  return
}

// -----

func.func private @kernel(memref<6000xi8>)

// A 6000-byte buffer the kernel takes, alive with a 62000-byte one only the CPU touches (taken
// first, into ram: the tcm is too small for it): the tcm would hold the kernel's buffer but may
// not, and ram has no room beside the other: an error saying why it is not in the tcm.
// expected-error @+1 {{umac-plan-memory: the workspace does not fit the pools ram (65536 bytes), tcm (8192 bytes): a 6000-byte buffer (an accelerator reads or writes it: not in a CPU-only pool) fits in none of them}}
func.func @reached(%in: memref<62000xi8>, %out: memref<62000xi8>) {
  %big = memref.alloc() : memref<62000xi8>
  memref.copy %in, %big : memref<62000xi8> to memref<62000xi8>
  %r = memref.alloc() : memref<6000xi8>
  call @kernel(%r) : (memref<6000xi8>) -> ()
  memref.copy %big, %out : memref<62000xi8> to memref<62000xi8>
  return
}
