// tynnp.dma, a copy between memrefs, after umac-allocate-dm-tynnp placed the buffers in DM:
// umac-convert-tynnp-to-llvm writes its dma.copy descriptor (targets/tynnp/docs/isa.md 5.1)
// from the memrefs: each side's address (a buffer in DM: DM's base 0x10000000 plus the
// offset its view of tynnp.dm has, plus its subviews' offsets times their source's strides; a
// buffer in DDR: its aligned pointer likewise), the row bytes, rows and planes of its shape,
// and each side's row and plane strides in bytes. The aligned pointer of a buffer in DM (a
// kernel call's address in a region) is its address too. The views of DM and tynnp.dm go with
// the last op using them.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-allocate-dm-tynnp{attributes="-dm-kib=1"},umac-convert-tynnp-to-llvm)' | FileCheck %s
// Through the RV32 firmware lowering, the DM addresses fold into constants: the record's
// 0x10000180 (384), the last two rows' 0x100000C0 (192). (The other cases fail: hence `not`.)
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-allocate-dm-tynnp{attributes="-dm-kib=1"},umac-convert-tynnp-to-llvm,umac-lower-to-firmware-llvm{index-bitwidth=32})' 2>/dev/null | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @tile(
// LLVM-DAG: llvm.mlir.constant(268435840 : i32)
// LLVM-DAG: llvm.mlir.constant(268435648 : i32)
// LLVM-NOT: tynnp.
// LLVM-NOT: memref.
// LLVM: return

// Copied in: a 48-byte record and tile %row of a 10x96 image (4 rows), the tile's buffer (384
// bytes) at DM offset 0, the record above it at 384 (a function without calls is one step of
// umac-allocate-dm-tynnp: its buffers all live at once); copied out: the tile's last two rows,
// after both copies in.
// CHECK-LABEL: func.func @tile(
// CHECK-SAME: %[[D:.*]]: !llvm.ptr, %[[IMAGE:.*]]: memref<10x96xi8>, %[[ROW:.*]]: index)
// CHECK-DAG: %[[C384:.*]] = arith.constant 384 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// The record: from its buffer in DDR to DM + 384, 48 bytes, one row of one plane.
// CHECK: %[[W:.*]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[WI:.*]] = arith.index_cast %[[W]] : index to i32
// CHECK: %[[WSRC:.*]] = arith.addi %[[WI]], %{{.*}} : i32
// CHECK-NEXT: %[[BASE:.*]] = arith.constant 268435456 : i32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.index_cast %[[C384]] : index to i32
// CHECK-NEXT: %[[WDST:.*]] = arith.addi %[[BASE]], %[[SHIFT]] : i32
// CHECK-NEXT: arith.constant 48 : i32
// CHECK: llvm.store %[[WSRC]]
// CHECK: llvm.store %[[WDST]]
// CHECK: %[[RECORD:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// The tile: from the image's pointer + %row * 96 to DM + 0, 4 rows of 96 bytes, 96 apart on
// both sides, on channel 0 after nothing.
// CHECK: %[[IMG:.*]] = memref.extract_aligned_pointer_as_index %[[IMAGE]]
// CHECK-NEXT: %[[IMGI:.*]] = arith.index_cast %[[IMG]] : index to i32
// CHECK: %[[R:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT: %[[RB:.*]] = arith.muli %[[R]], %{{.*}} : i32
// CHECK: arith.constant 268435456 : i32
// CHECK-NEXT: %[[AT:.*]] = arith.index_cast %[[C0]] : index to i32
// CHECK-NEXT: %[[DST:.*]] = arith.addi %{{.*}}, %[[AT]] : i32
// CHECK-NEXT: %[[ROWB:.*]] = arith.constant 96 : i32
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant 4 : i32
// CHECK: llvm.store %[[DST]]
// CHECK: llvm.store %[[ROWB]]
// CHECK-NEXT: getelementptr
// CHECK-NEXT: llvm.store %[[ROWS]]
// CHECK: %[[TILE:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2", "=r,r,r,~{memory}" %{{.*}}, %c0_i32
// The last two rows: from DM + 0 + 2 * 96, after the tile's and the record's copies.
// CHECK: arith.constant 268435456 : i32
// CHECK: arith.constant 192 : i32
// CHECK: llvm.store %[[TILE]]
// CHECK-NEXT: getelementptr %[[D]][1]
// CHECK-NEXT: llvm.store %[[RECORD]]
// CHECK-NOT: tynnp.
// CHECK-NOT: memref.view
func.func @tile(%d: !llvm.ptr, %image: memref<10x96xi8>, %row: index) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %weights = memref.alloc() : memref<48xi8, "tynnp.dm">
  %buf = memref.alloc() : memref<4x96xi8, "tynnp.dm">
  %w = memref.alloc() : memref<48xi8>
  %tw = "tynnp.dma"(%d, %c1, %c0, %c0, %w, %weights) : (!llvm.ptr, i32, i32, i32, memref<48xi8>, memref<48xi8, "tynnp.dm">) -> i32
  %tile = memref.subview %image[%row, 0] [4, 96] [1, 1] : memref<10x96xi8> to memref<4x96xi8, strided<[96, 1], offset: ?>>
  %t = "tynnp.dma"(%d, %c0, %c0, %c0, %tile, %buf) : (!llvm.ptr, i32, i32, i32, memref<4x96xi8, strided<[96, 1], offset: ?>>, memref<4x96xi8, "tynnp.dm">) -> i32
  %half = memref.subview %buf[2, 0] [2, 96] [1, 1] : memref<4x96xi8, "tynnp.dm"> to memref<2x96xi8, strided<[96, 1], offset: 192>, "tynnp.dm">
  %out = memref.alloc() : memref<2x96xi8>
  %u = "tynnp.dma"(%d, %c1, %t, %tw, %half, %out) : (!llvm.ptr, i32, i32, i32, memref<2x96xi8, strided<[96, 1], offset: 192>, "tynnp.dm">, memref<2x96xi8>) -> i32
  "tynnp.wait"(%u) : (i32) -> ()
  return %u : i32
}

// -----

// A kernel call's addresses in two regions (what legalization writes for
// umac_backend::ExternArg::Address): %a (100 bytes) at DM offset 0, %b above it at 112; the
// aligned pointer of each becomes DM's base plus its offset, the call's arguments 0x10000000
// and 0x10000078 (byte 8 of %b) once folded.
func.func private @kernel(i32, i32)

// CHECK-LABEL: func.func @addresses(
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.index_cast %[[AT]] : i32 to index
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: call @kernel(
// CHECK-NOT: memref.view
// CHECK: return
// LLVM-LABEL: llvm.func @addresses(
// LLVM-DAG: %[[A:.*]] = llvm.mlir.constant(268435456 : i32) : i32
// LLVM-DAG: %[[B:.*]] = llvm.mlir.constant(268435576 : i32) : i32
// LLVM: llvm.call @kernel(%[[A]], %[[B]])
func.func @addresses() {
  %a = memref.alloc() {alignment = 16 : i64} : memref<100xi8, "tynnp.dm">
  %b = memref.alloc() {alignment = 16 : i64} : memref<64xi8, "tynnp.dm">
  %pa = memref.extract_aligned_pointer_as_index %a : memref<100xi8, "tynnp.dm"> -> index
  %ia = arith.index_cast %pa : index to i32
  %pb = memref.extract_aligned_pointer_as_index %b : memref<64xi8, "tynnp.dm"> -> index
  %ib = arith.index_cast %pb : index to i32
  %c8 = arith.constant 8 : i32
  %ib8 = arith.addi %ib, %c8 : i32
  call @kernel(%ia, %ib8) : (i32, i32) -> ()
  memref.dealloc %a : memref<100xi8, "tynnp.dm">
  memref.dealloc %b : memref<64xi8, "tynnp.dm">
  return
}

// -----

// A buffer in DM no pass placed has no address.
func.func @unplaced(%d: !llvm.ptr, %dm: memref<16xi8, "tynnp.dm">, %ddr: memref<16xi8>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tynnp.dma': no lowering to the llvm dialect: copies a buffer in DM that umac-allocate-dm-tynnp did not place (not a view of tynnp.dm)}}
  %t = "tynnp.dma"(%d, %c0, %c0, %c0, %ddr, %dm) : (!llvm.ptr, i32, i32, i32, memref<16xi8>, memref<16xi8, "tynnp.dm">) -> i32
  return
}

// -----

// DM still used by an op the lowering does not take: an error at tynnp.dm.
func.func @still_used() {
  // expected-error @+1 {{'tynnp.dm' is still used once its target's ops are lowered}}
  %a = memref.alloc() : memref<16xi8, "tynnp.dm">
  "test.use"(%a) : (memref<16xi8, "tynnp.dm">) -> ()
  return
}
