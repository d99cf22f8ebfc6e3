// umac-legalize-tynnp plans the kernels of a function together: a kernel copies the next
// kernel's constant record into DM (where the function's DM plan puts it, apart from both
// kernels' own regions and what they keep in DM) on channel 0 where the channel would idle —
// just before the first tile's copy in that waits for a job (a buffer reused), else after the
// last copy in — and leaves the copy's token in the function's mailbox, a word a kernel in the
// control unit's DMEM (a static buffer in section .dmem) (`_pf`); the next kernel finds its record there, its first jobs waiting
// for that token, and copies nothing (`_pl`).
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-overlap=false}},umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s
// The calls, their DM addresses folded once placed: their constants named by value.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-overlap=false}},umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm,canonicalize)' | FileCheck %s --check-prefix=MODEL
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-prefetch=false -overlap=false}},umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s --check-prefix=OFF

// conv -> depthwise -> max pool: the convolution copies the depthwise convolution's record (its
// 72 filter bytes of 2, from byte 80 the bias of 7s, from 112 the multipliers 2^30, from 144 the
// shifts of 36: 152 bytes) into DM (AREA); the pooling has no record to prefetch.
// CHECK-LABEL: func.func private @tynnp_0(
// The mailbox of copies' tokens, a word for each of the three kernels, a static buffer before the
// function; both calls pass its address and the offset of the depthwise convolution's word (4).
// MODEL: llvm.mlir.global internal @__umac_tynnp_0_copies(dense<0> : tensor<12xi8>) {addr_space = 0 : i32, alignment = 4 : i64, section = ".dmem"} : !llvm.array<12 x i8>
// MODEL-LABEL: func.func private @tynnp_0(
// MODEL: %[[MAILBOX:.*]] = llvm.mlir.addressof @__umac_tynnp_0_copies : !llvm.ptr
// MODEL-NEXT: %[[BASE:.*]] = llvm.ptrtoint %[[MAILBOX]] : !llvm.ptr to i32
// CHECK: %[[NEXT:.*]] = arith.constant dense<"0x0202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020000000000000000070000000700000007000000070000000700000007000000070000000700000000000040000000400000004000000040000000400000004000000040000000402424242424242424"> : tensor<152xi8>
// CHECK-NEXT: bufferization.to_buffer %[[NEXT]] read_only : tensor<152xi8> to memref<152xi8>
// After the convolution's output stage: its output channel, input in DDR, output kept in DM, its
// own record's DM regions (filter, bias at +288, multipliers at +320, shifts at +352) and bytes,
// then where the next record goes and its bytes.
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c[[#%d,KEPT:]]_i32, %c[[#%d,OWN:]]_i32,
// MODEL-SAME: %c[[#OWN+288]]_i32, %c[[#OWN+320]]_i32, %c[[#OWN+352]]_i32, %c360_i32, %[[BASE]], %c[[#%d,AREA:]]_i32, %c152_i32, %c4_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_pf_t4
// MODEL-SAME: (memref<1x8x8x4xi8>, memref<360xi8>, memref<152xi8>, memref<36xi32>, i32,
// The depthwise convolution: input and output kept in DM, its record's regions where the
// convolution copied it (filter, bias at +80, multipliers at +112, shifts at +144) and its
// bytes, no record of its own to copy; one tile (its bands read the input where it is kept).
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[#KEPT]]_i32, %c[[#%d,KEPT2:]]_i32, %c[[#AREA]]_i32, %c[[#AREA+80]]_i32, %c[[#AREA+112]]_i32, %c[[#AREA+144]]_i32, %c152_i32, %{{[0-9]+}}, %c4_i32, %c1_i32, %{{.*}}) {callee = @tynnp_dwconv2d_x4_rx_wo_pl_t1
// MODEL-SAME: (memref<1x8x8x8xi8>, memref<24xi32>, i32,
// CHECK: callee = @tynnp_max_pool2d_x4_rx_t1,
// The convolution's function: the next record's copy (source argument 2, to argument 33,
// argument 34 bytes) on channel 0 in the first tile that reuses a buffer (double-buffered: the
// third), before its fill and gather; the loop carries whether a tile reuses a buffer (two
// tiles back: 1, 1 at first), whether the record was copied and its copy's token. After the
// loop the copy comes if no tile reused a buffer (too few tiles). The last job waited for (its
// output is written in place, nothing is copied out), then the copy's token stored in the
// mailbox (argument 32, at the offset argument 35 gives).
// CHECK-LABEL: func.func private @tynnp_conv2d_folded_k4_wo_pf_t4(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: i32
// CHECK: %[[LOOP:.*]]:8 = scf.for %{{.*}} iter_args(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = %[[ONE:.*]], %[[REUSING:.*]] = %[[ONE]], %[[COPIED:.*]] = %c0_i32, %[[TOKEN:.*]] = %c0_i32) -> (i32, i32, i32, i32, i32, i32, i32, i32) {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: %[[NOT_YET:.*]] = arith.cmpi eq, %[[COPIED]], %c0_i32 : i32
// CHECK-NEXT: %[[REUSES:.*]] = arith.cmpi eq, %[[REUSING]], %c0_i32 : i32
// CHECK-NEXT: %[[NOW:.*]] = arith.andi %[[NOT_YET]], %[[REUSES]] : i1
// CHECK-NEXT: %[[RECORD:.*]]:2 = scf.if %[[NOW]] -> (i32, i32) {
// CHECK: %[[SRC:.*]] = arith.index_cast %arg2 : index to i32
// CHECK: llvm.store %[[SRC]],
// CHECK-NEXT: getelementptr
// CHECK-NEXT: llvm.store %arg33,
// CHECK-NEXT: getelementptr
// CHECK-NEXT: llvm.store %arg34,
// CHECK: %[[PF:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2", "=r,r,r,~{memory}" %{{.*}}, %c0_i32 :
// CHECK-NEXT: scf.yield %{{.*}}, %[[PF]] : i32, i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[COPIED]], %[[TOKEN]] : i32, i32
// CHECK-NEXT: }
// CHECK: llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 1, 0, $0, $1, $2"
// CHECK: llvm.inline_asm has_side_effects ".insn r CUSTOM_1, 0, 0, $0, $1, $2"
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %{{.*}}, %[[RECORD]]#0, %[[RECORD]]#1 : i32, i32, i32, i32, i32, i32, i32, i32
// CHECK: %[[LEFT:.*]] = arith.cmpi eq, %[[LOOP]]#6, %c0_i32 : i32
// CHECK-NEXT: %[[LATE:.*]] = scf.if %[[LEFT]] -> (i32) {
// CHECK: llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[LOOP]]#7 : i32
// CHECK-NEXT: }
// CHECK-NEXT: llvm.inline_asm has_side_effects ".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}" %[[LOOP]]#2 :
// CHECK-NEXT: %[[AT:.*]] = arith.addi %arg32, %arg35 : i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.inttoptr %[[AT]] : i32 to !llvm.ptr
// CHECK-NEXT: llvm.store %[[LATE]], %[[SLOT]] : i32, !llvm.ptr
// CHECK-NEXT: return
// The depthwise convolution's function takes no record: it reads its copy's token from the
// mailbox (argument 30, at the offset argument 31 gives).
// CHECK-LABEL: func.func private @tynnp_dwconv2d_x4_rx_wo_pl_t1(%arg0: index, %arg1: index, %arg2: i32,
// CHECK: %[[DWWORD:.*]] = arith.addi %arg30, %arg31 : i32
// CHECK: %[[DWSLOT:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr
// CHECK-NEXT: llvm.load %[[DWSLOT]] : !llvm.ptr -> i32
// With -prefetch=false each kernel copies its own record.
// OFF: callee = @tynnp_conv2d_folded_k4_wo_t4,
// OFF: callee = @tynnp_dwconv2d_x4_rx_wo_t1,
// OFF-SAME: (memref<1x8x8x8xi8>, memref<152xi8>, memref<24xi32>, i32,
func.func private @tynnp_0(%x: tensor<1x8x8x4xi8>) -> tensor<1x4x4x8xi8> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %dw = "tosa.const"() <{values = dense<2> : tensor<1x3x3x8xi8>}> : () -> tensor<1x3x3x8xi8>
  %shape = tosa.const_shape {values = dense<[3, 3, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi8>
  %f = tosa.reshape %dw, %shape : (tensor<1x3x3x8xi8>, !tosa.shape<4>) -> tensor<3x3x8x1xi8>
  %d = tosa.depthwise_conv2d %k, %f, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r2 = tosa.rescale %d, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  %p = tosa.max_pool2d %r2 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  return %p : tensor<1x4x4x8xi8>
}
