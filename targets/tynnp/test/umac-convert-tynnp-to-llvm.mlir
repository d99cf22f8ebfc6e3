// umac-convert-tynnp-to-llvm: each NPU instruction op writes its descriptor's words (dependency
// tokens first) at the descriptor buffer, one store each, and issues the instruction as
// `.insn r CUSTOM_k, funct3, funct7` with the buffer's address and the unit (targets/tynnp/docs/isa.md,
// section 5); `tynnp.wait` is npu.wait. The asm has side effects and clobbers memory, so LLVM
// keeps it after the stores and in order.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-convert-tynnp-to-llvm)' | FileCheck %s

// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[D:.*]]: !llvm.ptr, %[[U:.*]]: i32, %[[W:.*]]: i32)
// A dma.fill: 9 words.
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[D]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT: llvm.store %[[W]], %[[P0]] : i32, !llvm.ptr
// CHECK-COUNT-8: llvm.store
// CHECK: %[[A:.*]] = llvm.ptrtoint %[[D]] : !llvm.ptr to i32
// CHECK-NEXT: %[[F:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 1, 0, $0, $1, $2", "=r,r,r,~{memory}" %[[A]], %[[U]] : (i32, i32) -> i32
// A vu.table of int16 (funct7 1) after the fill: 6 words, the first the fill's token.
// CHECK-NEXT: %[[Q0:.*]] = llvm.getelementptr %[[D]][0]
// CHECK-NEXT: llvm.store %[[F]], %[[Q0]]
// CHECK-COUNT-5: llvm.store
// CHECK: llvm.inline_asm has_side_effects ".insn r CUSTOM_2, 3, 1, $0, $1, $2", "=r,r,r,~{memory}"
// CHECK-NEXT: llvm.inline_asm has_side_effects ".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}" %{{.*}} : (i32) -> ()
// CHECK-NOT: tynnp.
func.func @kernel(%d: !llvm.ptr, %u: i32, %w: i32) {
  %f = "tynnp.dma_fill"(%d, %u, %w, %w, %w, %w, %w, %w, %w, %w, %w) : (!llvm.ptr, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
  %t = "tynnp.vu_table"(%d, %u, %f, %w, %w, %w, %w, %w) {funct7 = 1 : i64} : (!llvm.ptr, i32, i32, i32, i32, i32, i32, i32) -> i32
  "tynnp.wait"(%t) : (i32) -> ()
  return
}
