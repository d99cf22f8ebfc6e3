// umac-legalize-tynnp runs consecutive kernels at once where the second reads the first's kept
// output in place: the first hands its jobs on (`_h`), storing each job's token in its token
// table in DM (a row of one token per band, one on the NU, for each tile) and returning without
// waiting for them; the second (`_f<bands>`) makes each tile's jobs depend on the row of the
// first tile through which the rows it reads are written (`after_t<t>`), and waits for the
// first's last row (`after_end`) before it returns, unless it hands its own jobs on: then the
// kernel after it waits for them (`after_end2`, `_w<bands>`), and three kernels run at once.
// So a depthwise convolution on the vector units runs under the convolution before it on the
// NU, tile by tile. A kernel copying the next kernel's record, or that of the kernel after it
// (`_pff`), leaves the copy's token in the function's mailbox in the control unit's DMEM, which
// the record's kernel's first jobs depend on.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp)' | FileCheck %s
// The calls, their DM addresses folded once placed: their constants named by value.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm,canonicalize)' | FileCheck %s --check-prefix=MODEL
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s --check-prefix=CODE
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-overlap=false}})' | FileCheck %s --check-prefix=OFF

// conv (4 tiles of 2 rows) -> depthwise 3x3 (3 tiles of 2, 3 and 3 rows, 2 bands each) -> max
// pool (1 tile). After the convolution's record bytes (360), the next record's place and bytes
// (152): its token table (TABLE). The depthwise convolution's tile 0 (output rows 0-1) reads
// input rows up to 2, written by the convolution's tile 1 (TABLE + 4), its tile 1 (rows 2-4) rows
// up to 5 (tile 2, TABLE + 8), its tile 2 rows up to 7 (tile 3, TABLE + 12), the convolution's
// last row. After its own token table (TABLE2). The pooling's one tile reads
// everything: the depthwise convolution's row 2 (two tokens, TABLE2 + 16); handing nothing on,
// it waits for those before it returns, and for the convolution's last row (TABLE + 12), two
// back (`_w1`): the depthwise convolution followed it and waits for nothing. The call passes the
// convolution's last row (TABLE + 12), the tile table each tile's row as an offset from it (-8,
// -4, 0: the last word of each of the depthwise convolution's rows).
// CHECK-LABEL: func.func private @tynnp_0(
// MODEL-LABEL: func.func private @tynnp_0(
// MODEL: arith.constant dense<[0, 3, 1, 1, 0, 0, 3, 0, 1, 64, 0, 192, 0, 128, -8, 64, 5, 0, 1, 128, 128, 4, 0, 2, 192, 64, 320, 128, 192, -4, 256, 4, 0, 1, 320, 320, 3, 0, 2, 384, 256, 256, 320, 192, 0]> : tensor<45xi32>
// MODEL: "umac.call_extern"({{.*}}%c360_i32, %{{[0-9]+}}, %c{{[0-9]+}}_i32, %c152_i32, %c4_i32, %c[[#%d,TABLE:]]_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_pf_h_t4
// MODEL: "umac.call_extern"({{.*}}%c152_i32, %{{[0-9]+}}, %c4_i32, %c[[#%d,TABLE2:]]_i32, %c[[#TABLE+12]]_i32, %c3_i32, %{{.*}}) {callee = @tynnp_dwconv2d_x2_rx_f1_wo_pl_h_t3
// MODEL: "umac.call_extern"({{.*}}%c[[#TABLE2+16]]_i32, %c[[#TABLE+12]]_i32{{.*}}callee = @tynnp_max_pool2d_x4_rx_f2_w1_t1
// With -overlap=false each kernel waits for its jobs (not for the next record's copy); a kernel
// copying nothing in or out runs in one tile (a table of one row: four bands of six values,
// the pooling's rows and channels, then the copies).
// OFF: callee = @tynnp_conv2d_folded_k4_wo_pf,
// OFF: callee = @tynnp_dwconv2d_x4_rx_wo_pl,
// OFF-SAME: (memref<1x8x8x8xi8>, memref<24xi32>, i32,
// OFF: callee = @tynnp_max_pool2d_x4_rx,
// OFF-SAME: (memref<1x8x8x8xi8>, memref<28xi32>, i32,

// The convolution's function: in its loop over the tiles, the next record's copy in the first
// tile that reuses a buffer, each job's token stored at its tile's row of the token table
// (argument 36, 4 bytes a tile), and after the loop (where the copy comes if no tile reused a
// buffer) the copy's token in the mailbox (argument 32, at the offset argument 35 gives): it
// waits for nothing.
// CODE-LABEL: func.func private @tynnp_conv2d_folded_k4_wo_pf_h_t4(
// CODE-NEXT: %[[TILES:.*]] = arith.constant 4 : i32
// CODE: %[[LOOP:.*]]:8 = scf.for
// CODE-NEXT: %[[T:.*]] = arith.index_cast
// CODE: scf.if
// CODE: llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CODE: %[[JOB:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_1, 0, 0, $0, $1, $2"
// CODE: %[[ROW:.*]] = arith.muli %[[T]], %{{.*}} : i32
// CODE-NEXT: %[[AT:.*]] = arith.addi %arg36, %[[ROW]] : i32
// CODE-NEXT: %[[P:.*]] = llvm.inttoptr %[[AT]] : i32 to !llvm.ptr
// CODE-NEXT: llvm.store %[[JOB]], %[[P]] : i32, !llvm.ptr
// CODE-NEXT: scf.yield
// CODE: %[[PF:.*]] = scf.if
// CODE: llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CODE: } else {
// CODE-NEXT: scf.yield %[[LOOP]]#7 : i32
// CODE-NEXT: }
// CODE-NEXT: %[[A4:.*]] = arith.addi %arg32, %arg35 : i32
// CODE-NEXT: %[[P4:.*]] = llvm.inttoptr %[[A4]] : i32 to !llvm.ptr
// CODE-NEXT: llvm.store %[[PF]], %[[P4]] : i32, !llvm.ptr
// CODE-NEXT: return
// The depthwise convolution's: the token of its record's copy loaded from the mailbox
// (argument 30, at the offset argument 31 gives), which the loop carries as the bands' second dependency until a tile's copy
// out takes its place (with whether it still is that token, 1 at first); each tile's bands depend on the token at the row of the convolution's
// table its after_t<t> names (the last word of the tile's row of the tile table, an offset from
// after_end, argument 33) and on that; each band's token stored; then it returns, waiting for neither
// its bands nor the convolution's jobs (the pooling does).
// CODE-LABEL: func.func private @tynnp_dwconv2d_x2_rx_f1_wo_pl_h_t3(
// CODE: %[[W:.*]] = arith.addi %arg30, %arg31 : i32
// CODE: %[[PW:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr
// CODE-NEXT: %[[TW:.*]] = llvm.load %[[PW]] : !llvm.ptr -> i32
// CODE: %[[TABLE:.*]] = llvm.inttoptr
// CODE: scf.for %{{.*}} iter_args({{.*}}, %[[REUSED:.*]] = %[[TW]], %{{.*}} = %c1_i32{{.*}}) -> (i32, i32, i32, i32, i32, i32, i32) {
// CODE: %[[ROW:.*]] = llvm.getelementptr %[[TABLE]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CODE: llvm.getelementptr %[[ROW]][14] : (!llvm.ptr) -> !llvm.ptr, i32
// CODE-NEXT: %[[OFFSET:.*]] = llvm.load
// CODE-NEXT: %[[AFTER:.*]] = arith.addi %arg33, %[[OFFSET]] : i32
// CODE: %[[A0:.*]] = arith.addi %[[AFTER]], %{{.*}} : i32
// CODE-NEXT: %[[P0:.*]] = llvm.inttoptr %[[A0]] : i32 to !llvm.ptr
// CODE-NEXT: %[[T0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> i32
// CODE: %[[D:.*]] = llvm.getelementptr %{{.*}}[0] : (!llvm.ptr) -> !llvm.ptr, i32
// CODE-NEXT: llvm.store %[[T0]], %[[D]] : i32, !llvm.ptr
// CODE-NEXT: %[[D1:.*]] = llvm.getelementptr %{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, i32
// CODE-NEXT: llvm.store %[[REUSED]], %[[D1]] : i32, !llvm.ptr
// CODE: %[[BAND:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_2, 0, 0, $0, $1, $2"
// CODE: llvm.store %[[BAND]],
// CODE-NOT: CUSTOM_3
// CODE: return
// The pooling's: after its job, the CU waits for the depthwise convolution's last two bands
// (after_end, argument 20) and the convolution's last job (after_end2, argument 21).
// CODE-LABEL: func.func private @tynnp_max_pool2d_x4_rx_f2_w1_t1(
// CODE: arith.addi %arg20, %{{.*}} : i32
// CODE: CUSTOM_3
// CODE: arith.addi %arg20, %{{.*}} : i32
// CODE: CUSTOM_3
// CODE: %[[E2:.*]] = arith.addi %arg21, %{{.*}} : i32
// CODE-NEXT: %[[PE2:.*]] = llvm.inttoptr %[[E2]] : i32 to !llvm.ptr
// CODE-NEXT: %[[LAST2:.*]] = llvm.load %[[PE2]] : !llvm.ptr -> i32
// CODE-NEXT: llvm.inline_asm has_side_effects ".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}" %[[LAST2]] :
// CODE-NEXT: return
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

// -----

// conv -> depthwise -> 1x1 conv, each handing its jobs on to the next: the first convolution
// copies the depthwise convolution's record and the second convolution's, and stores each
// copy's token in the mailbox (argument 33, at the offsets arguments 36 and 39 give); the
// depthwise convolution hands nothing but its own jobs on, and the second convolution finds the
// token its first jobs depend on in the mailbox (argument 30, at the offset argument 31 gives).
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: callee = @tynnp_conv2d_folded_k4_wo_pf_pff_h,
// CHECK: callee = @tynnp_dwconv2d_x2_rx_f1_wo_pl_h,
// CHECK: callee = @tynnp_conv2d_rx_f2_w1_pl,
// CODE-LABEL: func.func private @tynnp_conv2d_folded_k4_wo_pf_pff_h_t4(
// CODE: %[[NA:.*]] = arith.addi %arg33, %arg36 : i32
// CODE-NEXT: %[[NP:.*]] = llvm.inttoptr %[[NA]] : i32 to !llvm.ptr
// CODE-NEXT: llvm.store %{{.*}}#0, %[[NP]] : i32, !llvm.ptr
// CODE-NEXT: %[[FA:.*]] = arith.addi %arg33, %arg39 : i32
// CODE-NEXT: %[[FP:.*]] = llvm.inttoptr %[[FA]] : i32 to !llvm.ptr
// CODE-NEXT: llvm.store %{{.*}}#1, %[[FP]] : i32, !llvm.ptr
// CODE-NEXT: return
// CODE-LABEL: func.func private @tynnp_dwconv2d_x2_rx_f1_wo_pl_h_t3(
// CODE-SAME: tynnp.kernel = {follows = 1 : i64, hands, preloaded, reads_x, rows = 0 : i64, taps = 0 : i64, units = 2 : i64, waits_two = 0 : i64, writes_kept}
// CODE-LABEL: func.func private @tynnp_conv2d_rx_f2_w1_pl_t4(
// CODE: %[[W2:.*]] = arith.addi %arg30, %arg31 : i32
// CODE: %[[PW2:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr
// CODE-NEXT: llvm.load %[[PW2]] : !llvm.ptr -> i32
func.func private @tynnp_0(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xi8> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
  %w1 = "tosa.const"() <{values = dense<1> : tensor<8x1x1x8xi8>}> : () -> tensor<8x1x1x8xi8>
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
  %c2 = tosa.conv2d %r2, %w1, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<8x1x1x8xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r3 = tosa.rescale %c2, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  return %r3 : tensor<1x8x8x8xi8>
}
