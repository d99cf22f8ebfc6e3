// umac-legalize-tynnp: a tynnp convolution (conv2d + rescale + clamp) becomes a call of
// @tynnp_conv2d on buffers of its input and of its constants (filter, bias, multipliers,
// shifts) packed at compile time into one record laid out as their DM regions, and its tile
// table (the values that differ between its four tiles of output rows, a row each), with the
// nu.conv descriptor's fields, the job's DM layout (each region 16-byte aligned, an address in
// the kernel's buffer in DM, memref<480xi8, "tynnp.dm">, which umac-allocate-dm-tynnp places),
// the tile buffers' addresses and the tile count as int32 scalars; the function is defined in
// the module, for every call with this split whatever its tiles: one dma.copy (custom-0) of the
// record into DM on the output channel (1), then a loop over the tiles (as many as the count,
// their values in the table), each a dma.copy of its input rows on channel 0, nu.conv (custom-1)
// after it (the first also after the record's copy), a dma.copy of its output rows back on the
// output channel after the convolution; then npu.wait (custom-3) for the last copy back.
// umac-specialize-tynnp then gives the call a copy of the function, @tynnp_conv2d_t4, whose
// tile count and table are constants.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s
// Legalization alone writes the loop single-buffered and marks it for umac-double-buffer-tynnp
// (the tile table rotates the tiles through two buffers each).
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp)' | FileCheck %s --check-prefix=SINGLE
// Through the RV32 firmware lowering the NPU instructions stay inline assembly with side effects.
// RUN: umac-opt %s --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm,umac-lower-to-firmware-llvm{index-bitwidth=32})' | FileCheck %s --check-prefix=LLVM

// The tile loops are unrolled fully by LLVM (the tile count is a constant once specialized).
// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<full = true>
// CHECK: #[[FULL:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK-NOT: tosa.conv2d
// A 3x1 kernel (nothing to fold). The record: the filter's 48 bytes, the bias (7, int32 little
// endian) at 48, the multipliers (2^30) at 64, the shifts (36) at 80.
// CHECK: %[[W:.*]] = arith.constant dense<[3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 64, 36, 36, 36, 36]> : tensor<84xi8>
// CHECK-NEXT: bufferization.to_buffer %[[W]] read_only : tensor<84xi8> to memref<84xi8>
// The tile table: output rows [0,2) [2,4) [4,6) [6,8), nine values a tile — the input's offset
// in its tile buffer, input rows, top padding, output rows, the output's offset in its tile
// buffer, the input's offset and bytes (32 a row), the output's offset and bytes (32 a row).
// Tile 0 reads rows 0..2 under one row of padding, tile 3 rows 5..7 above the bottom padding.
// CHECK-NEXT: %[[T:.*]] = arith.constant dense<[0, 3, 1, 2, 0, 0, 96, 0, 64, 0, 4, 0, 2, 0, 32, 128, 64, 64, 0, 4, 0, 2, 0, 96, 128, 128, 64, 0, 3, 0, 2, 0, 160, 96, 192, 64]> : tensor<36xi32>
// CHECK-NEXT: bufferization.to_buffer %[[T]] read_only : tensor<36xi32> to memref<36xi32>
// The shapes, zero points, strides, dilations, pads; OUT flags 3 (per channel, double round),
// output zero point -3, bounds 0..127; the output channel 1; the DM addresses of the filter,
// bias, multipliers and shifts (after two input tiles of up to 4 rows, 128 B each: offsets in
// the kernel's buffer in DM plus its address) and the record's bytes (84: the shifts end
// there); the two input tile buffers (0, 128) and the two output tile buffers (352, 416: 2
// rows of 32 B each), tile t's in buffer t % 2; four tiles.
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: arith.constant 5 : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant -3 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 127 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 304 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 320 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 336 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 84 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 128 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 352 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 416 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 16 : i64} : memref<1x8x8x4xi8>
// CHECK: "umac.call_extern"({{.*}}, %[[OUT]]) {callee = @tynnp_conv2d_t4, operandSegmentSizes = array<i32: 36, 1>}
// CHECK-SAME: (memref<1x8x8x4xi8>, memref<84xi8>, memref<36xi32>, i32, {{.*}}, memref<1x8x8x4xi8>) -> ()
// The copy of the function for this call records its split, as the report reads it back (the
// name only tells functions apart); its tile count and table are constants of it.
// CHECK: func.func private @tynnp_conv2d_t4(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: i32
// CHECK-SAME: attributes {passthrough = ["noinline"], tynnp.kernel = {follows = 0 : i64, rows = 0 : i64, taps = 0 : i64, units = 0 : i64, waits_two = 0 : i64}}
// CHECK-NEXT: %[[COUNT:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant dense<[0, 3, 1, 2, 0, 0, 96, 0, 64, 0, 4, 0, 2, 0, 32, 128, 64, 64, 0, 4, 0, 2, 0, 96, 128, 128, 64, 0, 3, 0, 2, 0, 160, 96, 192, 64]> : tensor<36xi32>
// CHECK-NEXT: %[[ROWS_BUFFER:.*]] = bufferization.to_buffer %[[ROWS]] read_only : tensor<36xi32> to memref<36xi32>
// CHECK-NEXT: %[[TABLE:.*]] = memref.extract_aligned_pointer_as_index %[[ROWS_BUFFER]]
// The record's copy on the output channel (argument 23, after the 3 buffers and 20 scalars),
// from the record's address to DM at the filter's (argument 26), its 84 bytes (argument 30).
// CHECK: %[[REC:.*]] = arith.index_cast %arg1 : index to i32
// CHECK: llvm.store %[[REC]],
// CHECK-NEXT: getelementptr
// CHECK-NEXT: llvm.store %arg26,
// CHECK-NEXT: getelementptr
// CHECK-NEXT: llvm.store %arg30,
// CHECK: %[[CONSTS:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2", "=r,r,r,~{memory}" %{{.*}}, %arg23
// The input is read from DM at argument 24 when the kernel before left it there (not 0), else
// from its buffer in DDR; the output goes likewise to argument 25 or DDR.
// CHECK: %[[IN:.*]] = arith.index_cast %arg0 : index to i32
// CHECK: %[[OUT:.*]] = arith.index_cast %arg36 : index to i32
// CHECK: %[[KEPT_IN:.*]] = arith.cmpi ne, %arg24, %{{.*}} : i32
// CHECK-NEXT: %[[FROM:.*]] = arith.select %[[KEPT_IN]], %arg24, %[[IN]] : i32
// CHECK-NEXT: %[[KEPT_OUT:.*]] = arith.cmpi ne, %arg25, %{{.*}} : i32
// CHECK-NEXT: %[[TO:.*]] = arith.select %[[KEPT_OUT]], %arg25, %[[OUT]] : i32
// The loop over the tiles (as many as the count) indexes the table and carries the tokens of
// the last two jobs (none before the first) and of the last two copies out (the record's copy
// before the first).
// CHECK: %[[TABLE_AT:.*]] = arith.index_cast %[[TABLE]] : index to i32
// CHECK-NEXT: %[[TABLE_POINTER:.*]] = llvm.inttoptr %[[TABLE_AT]] : i32 to !llvm.ptr
// CHECK-NEXT: %[[TILES:.*]] = arith.index_cast %[[COUNT]] : i32 to index
// CHECK: %[[LOOP:.*]]:4 = scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step %{{.*}} iter_args(%[[J1:.*]] = %c0_i32, %[[J2:.*]] = %c0_i32, %[[O1:.*]] = %[[CONSTS]], %[[O2:.*]] = %[[CONSTS]]) -> (i32, i32, i32, i32) {
// Tile t's row: nine words from word 9t; its input's address is its offset (word 0) in input
// buffer t % 2 (arguments 31 and 32), its output's (word 4) in output buffer t % 2 (33, 34).
// CHECK: %[[ROW:.*]] = llvm.getelementptr %[[TABLE_POINTER]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK: %[[ODD:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[IN_BUFFER:.*]] = arith.select %[[ODD]], %arg32, %arg31 : i32
// CHECK: arith.select %[[ODD]], %arg34, %arg33 : i32
// CHECK: llvm.getelementptr %[[ROW]][5]
// CHECK-NEXT: %[[IN_OFFSET:.*]] = llvm.load
// The tile's copy in, on channel 0 after the job two tiles back (the last reader of its buffer).
// CHECK: arith.addi %[[FROM]], %[[IN_OFFSET]] : i32
// CHECK: llvm.store %[[J2]],
// CHECK: %[[IN0:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2", "=r,r,r,~{memory}" %{{.*}}, %c0_i32 :
// The job waits for that copy and for the copy out two tiles back (the record's for the first
// two tiles); its output rows go back on the output channel after it.
// CHECK: llvm.store %[[IN0]],
// CHECK-NEXT: getelementptr
// CHECK-NEXT: llvm.store %[[O2]],
// CHECK: %[[JOB:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_1, 0, 0, $0, $1, $2"
// CHECK: llvm.store %[[JOB]],
// CHECK: %[[COPY_OUT:.*]] = llvm.inline_asm has_side_effects ".insn r CUSTOM_0, 0, 0, $0, $1, $2", "=r,r,r,~{memory}" %{{.*}}, %arg23
// CHECK-NEXT: scf.yield %[[JOB]], %[[J1]], %[[COPY_OUT]], %[[O1]] : i32, i32, i32, i32
// CHECK-NEXT: } {loop_annotation = #[[FULL]]}
// The CU waits for the last copy out.
// CHECK-NOT: CUSTOM_
// CHECK: llvm.inline_asm has_side_effects ".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}" %[[LOOP]]#2
// CHECK-NEXT: return
// Before umac-double-buffer-tynnp: the loop carries the last job's token and the last copy
// out's, the copy in waits for the job of the tile before, the job for its copy out.
// Legalized, the kernel's DM is one buffer in DM's memory space at the function's entry,
// freed after its call; the call's DM addresses are offsets in it.
// SINGLE-LABEL: func.func private @tynnp_0(
// SINGLE-NEXT: %[[DM:.*]] = memref.alloc() {alignment = 16 : i64} : memref<480xi8, "tynnp.dm">
// SINGLE: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[DM]]
// SINGLE-NEXT: %[[AT:.*]] = arith.index_cast %[[P]] : index to i32
// SINGLE: %[[FILTER:.*]] = arith.constant 256 : i32
// SINGLE-NEXT: arith.addi %[[AT]], %[[FILTER]] : i32
// SINGLE: "umac.call_extern"
// SINGLE-NEXT: memref.dealloc %[[DM]] : memref<480xi8, "tynnp.dm">
// The function legalization defines takes the tile table (argument 2) and the tile count
// (argument 35) and records which arguments they are, for umac-specialize-tynnp.
// SINGLE-LABEL: func.func private @tynnp_conv2d(
// SINGLE-SAME: tynnp.tile_arguments = array<i64: 2, 35>
// SINGLE: %[[CONSTS:.*]] = "tynnp.dma_copy"
// SINGLE: %[[LOOP:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[J1:.*]] = %c0_i32, %[[O1:.*]] = %[[CONSTS]]) -> (i32, i32) {
// SINGLE: %[[IN0:.*]] = "tynnp.dma_copy"(%{{.*}}, %c0_i32, %[[J1]],
// SINGLE-NEXT: arith.constant
// SINGLE-NEXT: arith.constant
// SINGLE-NEXT: %[[JOB:.*]] = "tynnp.nu_conv"(%{{.*}}, %{{.*}}, %[[IN0]], %[[O1]],
// SINGLE: %[[COPY_OUT:.*]] = "tynnp.dma_copy"(%{{.*}}, %arg23, %[[JOB]],
// SINGLE-NEXT: scf.yield %[[JOB]], %[[COPY_OUT]] : i32, i32
// SINGLE-NEXT: } {loop_annotation = #{{.*}}, tynnp.buffers = 2 : i64, tynnp.reuse = array<i64: 0, 1>}
// SINGLE-NEXT: "tynnp.wait"(%[[LOOP]]#1)
// LLVM: llvm.func @tynnp_0(
// LLVM: llvm.call @tynnp_conv2d_t4(
// LLVM: llvm.func @tynnp_conv2d_t4(
// LLVM-COUNT-4: llvm.inline_asm has_side_effects
// LLVM: llvm.br ^bb1({{.*}}) {loop_annotation = #loop_annotation}
// LLVM: llvm.inline_asm has_side_effects ".insn r CUSTOM_3
func.func @main(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %0 = call @tynnp_0(%x) : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %0 : tensor<1x8x8x4xi8>
}
func.func private @tynnp_0(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x1x4xi8>}> : () -> tensor<4x3x1x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k : tensor<1x8x8x4xi8>
}

