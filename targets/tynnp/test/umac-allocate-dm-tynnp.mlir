// umac-allocate-dm-tynnp: each memref.alloc in DM's memory space ("tynnp.dm") gets a static
// offset in DM by lifetime (the memory planner's algorithm: largest first, 16-byte aligned) and
// becomes a memref.view of tynnp.dm (the whole of DM) there; its memref.dealloc goes. A buffer
// lives from the first to the last kernel (call) using it, a view of it, or deallocating it, not
// from its allocation.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-allocate-dm-tynnp{attributes="-dm-kib=1"})' | FileCheck %s

func.func private @kernel(memref<256xi8, "tynnp.dm">, memref<4x32xi8, "tynnp.dm">)
func.func private @use(memref<300xi8, "tynnp.dm">)
func.func private @other(memref<100xi8, "tynnp.dm">, memref<16xi8, "tynnp.dm">)

// Lifetimes count in kernels: the calls are the steps, an op before a call belongs to it and a
// dealloc to the call before it. %a (256 B) and %b (128 B) live at the first call; %b's dealloc
// after the second keeps it alive there beside %d (300 B); %c (100 B) and %e (16 B, allocated
// first but used last) live at the third. Largest first: %d at 0, %a at 0 too (they never meet),
// %b above both at 304, %c at 0 and %e above it at 112: 432 bytes in all.
// CHECK-LABEL: func.func @reuse(
// CHECK-SAME: attributes {tynnp.dm_bytes = 432 : i64}
// CHECK: arith.constant 112 : index
// CHECK-NEXT: %[[E:.*]] = memref.view {{.*}} to memref<16xi8, "tynnp.dm">
// CHECK: %[[DM:.*]] = "tynnp.dm"() : () -> memref<1024xi8, "tynnp.dm">
// CHECK-NEXT: %[[A0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[DM]][%[[A0]]][] : memref<1024xi8, "tynnp.dm"> to memref<256xi8, "tynnp.dm">
// CHECK: %[[B0:.*]] = arith.constant 304 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %{{.*}}[%[[B0]]][] : memref<1024xi8, "tynnp.dm"> to memref<4x32xi8, "tynnp.dm">
// CHECK: call @kernel(%[[A]], %[[B]])
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[D:.*]] = memref.view {{.*}} to memref<300xi8, "tynnp.dm">
// CHECK: call @use(%[[D]])
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[C:.*]] = memref.view {{.*}} to memref<100xi8, "tynnp.dm">
// CHECK-NEXT: call @other(%[[C]], %[[E]])
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @reuse() {
  %e = memref.alloc() : memref<16xi8, "tynnp.dm">
  %a = memref.alloc() : memref<256xi8, "tynnp.dm">
  %b = memref.alloc() : memref<4x32xi8, "tynnp.dm">
  call @kernel(%a, %b) : (memref<256xi8, "tynnp.dm">, memref<4x32xi8, "tynnp.dm">) -> ()
  %d = memref.alloc() : memref<300xi8, "tynnp.dm">
  call @use(%d) : (memref<300xi8, "tynnp.dm">) -> ()
  memref.dealloc %b : memref<4x32xi8, "tynnp.dm">
  %c = memref.alloc() : memref<100xi8, "tynnp.dm">
  call @other(%c, %e) : (memref<100xi8, "tynnp.dm">, memref<16xi8, "tynnp.dm">) -> ()
  return
}

// -----

// A view of a buffer (a subview: one row) is a use of it; buffers in the default memory space
// (DDR) are not DM's. %a lives through the subview's use at the loop, so %b goes above it.
// CHECK-LABEL: func.func @views(
// CHECK-SAME: tynnp.dm_bytes = 96 : i64
// CHECK: %[[DDR:.*]] = memref.alloc() : memref<64xi8>
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view {{.*}} to memref<2x32xi8, "tynnp.dm">
// CHECK-NEXT: memref.subview %[[A]][1, 0] [1, 32] [1, 1]
// CHECK: arith.constant 64 : index
// CHECK-NEXT: memref.view {{.*}} to memref<8xi32, "tynnp.dm">
func.func @views(%n: index) {
  %ddr = memref.alloc() : memref<64xi8>
  %a = memref.alloc() : memref<2x32xi8, "tynnp.dm">
  %row = memref.subview %a[1, 0] [1, 32] [1, 1] : memref<2x32xi8, "tynnp.dm"> to memref<1x32xi8, strided<[32, 1], offset: 32>, "tynnp.dm">
  %b = memref.alloc() : memref<8xi32, "tynnp.dm">
  "test.use"(%b, %ddr) : (memref<8xi32, "tynnp.dm">, memref<64xi8>) -> ()
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    "test.use"(%row) : (memref<1x32xi8, strided<[32, 1], offset: 32>, "tynnp.dm">) -> ()
  }
  return
}

// -----

// More than DM holds alive at once: an error at the first buffer alive there.
func.func private @kernel(memref<768xi8, "tynnp.dm">, memref<512xi8, "tynnp.dm">)

func.func @too_much() {
  // expected-error @+1 {{umac-allocate-dm-tynnp: the buffers in DM alive here need 1280 bytes placed (1280 at once); DM holds 1024 (-dm-kib)}}
  %a = memref.alloc() : memref<768xi8, "tynnp.dm">
  %b = memref.alloc() : memref<512xi8, "tynnp.dm">
  call @kernel(%a, %b) : (memref<768xi8, "tynnp.dm">, memref<512xi8, "tynnp.dm">) -> ()
  return
}

// -----

// A buffer in DM needs a static shape.
func.func @dynamic(%n: index) {
  // expected-error @+1 {{umac-allocate-dm-tynnp: a buffer in DM needs a static shape, got memref<?xi8, "tynnp.dm">}}
  %a = memref.alloc(%n) : memref<?xi8, "tynnp.dm">
  "test.use"(%a) : (memref<?xi8, "tynnp.dm">) -> ()
  return
}

// -----

// Allocated inside a loop, a buffer would need a lifetime per iteration: refused.
func.func @in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{umac-allocate-dm-tynnp: a buffer in DM is allocated in the function's body, not in a region}}
    %a = memref.alloc() : memref<16xi8, "tynnp.dm">
    "test.use"(%a) : (memref<16xi8, "tynnp.dm">) -> ()
  }
  return
}
