// umac-plan-memory{pools=...}: the workspace split over the memories given, one workspace argument
// each in the order given; the most accessed buffers (bytes × operators using them) go to the
// fast pools first, each where it fits beside the buffers already there.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-plan-memory{pools=slow:64K,fast:8K:fast})' | FileCheck %s

// A chain of three 8000-byte activations, each used by two ops, and a 256-byte scratch filled
// while the first is alive: %a goes to the fast pool (8192 bytes); the scratch does not fit beside
// it there (8256 bytes): slow, at 0; %b, alive with %a, does not fit beside it either: slow, at 0
// again (the scratch is dead by then); %c reuses %a's bytes in the fast pool.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[IN:.*]]: memref<8000xi8>, %[[OUT:.*]]: memref<8000xi8>, %[[SLOW:.*]]: memref<8000xi8>, %[[FAST:.*]]: memref<8000xi8>)
// CHECK-SAME: umac.pool_sizes = array<i64: 8000, 8000>, umac.pools = ["slow", "fast"]
// CHECK-SAME: umac.workspace_lower_bound = 16000 : i64, umac.workspace_size = 16000 : i64
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[FAST]][%[[C0]]][] : memref<8000xi8> to memref<8000xi8>
// CHECK: %[[C1:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[SLOW]][%[[C1]]][] : memref<8000xi8> to memref<256xi8>
// CHECK: %[[C2:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[SLOW]][%[[C2]]][] : memref<8000xi8> to memref<8000xi8>
// CHECK: %[[C3:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[FAST]][%[[C3]]][] : memref<8000xi8> to memref<8000xi8>
func.func @chain(%in: memref<8000xi8>, %out: memref<8000xi8>) {
  %a = memref.alloc() : memref<8000xi8>
  memref.copy %in, %a : memref<8000xi8> to memref<8000xi8>
  %s = memref.alloc() : memref<256xi8>
  %zero = arith.constant 0 : i8
  linalg.fill ins(%zero : i8) outs(%s : memref<256xi8>)
  %b = memref.alloc() : memref<8000xi8>
  memref.copy %a, %b : memref<8000xi8> to memref<8000xi8>
  %c = memref.alloc() : memref<8000xi8>
  memref.copy %b, %c : memref<8000xi8> to memref<8000xi8>
  memref.copy %c, %out : memref<8000xi8> to memref<8000xi8>
  return
}

// -----

// Buffers that fit no pool: an error naming the pools, their capacities and the need.
// expected-error @+1 {{umac-plan-memory: the workspace does not fit the pools slow (65536 bytes), fast (8192 bytes): a 70000-byte buffer fits in none of them after the more accessed ones, and the buffers alive at the busiest point take 70000 bytes}}
func.func @too_big(%in: memref<70000xi8>, %out: memref<70000xi8>) {
  %a = memref.alloc() : memref<70000xi8>
  memref.copy %in, %a : memref<70000xi8> to memref<70000xi8>
  memref.copy %a, %out : memref<70000xi8> to memref<70000xi8>
  return
}
