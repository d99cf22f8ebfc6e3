// umac-legalize-tynnp, vector-unit jobs: a depthwise convolution with its output stage becomes
// a call of @tynnp_dwconv2d_x<n> (vu.dwconv: custom-2, funct3 0), an average pooling one
// of @tynnp_avg_pool2d_x<n> (vu.pool: custom-2, funct3 1, funct7 1) and a max pooling one
// of @tynnp_max_pool2d_x<n> (funct7 0), each specialized for its t tiles (`_t<t>`) by
// umac-specialize-tynnp: the job in t tiles of output rows (here one: six
// output rows are too few for four units in each of several tiles), each split into n bands,
// one per vector unit (n = min(4 units, rows of a tile)); each function copies the packed
// weights into DM on the output channel (1) and each tile's input rows on channel 0, issues one
// band to each unit after those copies, waits for the bands, copies the tile's output back
// (channel 1) and waits for the last.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s
// Before umac-convert-tynnp-to-llvm the kernels are written in tynnp's instruction ops: four
// vu.dwconv bands, each waited for; an average pooling's bands are vu.pool with funct7 1.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp)' | FileCheck %s --check-prefix=OPS
// Legalization writes the loop single-buffered: each tile first drains the tile before (waits
// for its four bands, copies its output out), marked for umac-double-buffer-tynnp, which moves
// the drain after the tile's bands (so the tile's copy in comes first, as the first RUN shows).
// OPS-LABEL: func.func private @tynnp_dwconv2d_x4(
// OPS: scf.for
// OPS-NEXT: arith.index_cast
// OPS-NEXT: arith.cmpi uge
// OPS-NEXT: scf.if
// OPS-COUNT-4: "tynnp.wait"
// OPS-NEXT: arith.addi
// OPS-NEXT: arith.constant
// OPS-NEXT: arith.constant
// OPS-NEXT: "tynnp.dma_copy"
// OPS-NEXT: scf.yield
// OPS-NEXT: } else {
// OPS-NEXT: scf.yield
// OPS-NEXT: } {tynnp.drain}
// OPS: "tynnp.dma_copy"
// OPS-COUNT-4: "tynnp.vu_dwconv"(%{{.*}}, %c{{[0-3]}}_i32
// OPS: } {loop_annotation = #{{.*}}, tynnp.buffers = 2 : i64}
// OPS-COUNT-4: "tynnp.wait"
// OPS: "tynnp.dma_copy"
// OPS-LABEL: func.func private @tynnp_avg_pool2d_x2(
// OPS-COUNT-2: "tynnp.vu_pool"({{.*}}) {funct7 = 1 : i64}

// Depthwise 3x3 over 6x6x8 (multiplier 1): the scalars in the order of the call — ih, iw, c,
// input_zp, multiplier, kh, kw, filter_zp, oh, ow, strides, dilations, pad top/left, OUT flags
// (per channel), output zero point, bounds; the output channel 1; the DM addresses of the filter,
// bias, multipliers and shifts (one tile, so one buffer each: input 288 B, filter 72, bias 32,
// multipliers 32, shifts 8, output 288, 16-byte aligned) and the bytes of their record (the
// filter, then from byte 80 the bias, from 112 the multipliers, from 144 the shifts: 152);
// then the input's tile buffers (one tile, so the same one twice: 0), the output's (448), one
// tile. The tile table: the four bands of rows [0, 1), [1, 3), [3, 4), [4, 6): the input's
// offset in its tile buffer (from row max(first - 1, 0), 48 bytes a row), input rows to the
// buffer's end, top padding, output rows, the output's offset; then the tile's copies: from
// input byte 0, 288 bytes, to output byte 0, 288 bytes.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: %[[W:.*]] = arith.constant dense<"0x0202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020000000000000000090000000900000009000000090000000900000009000000090000000900000000000040000000400000004000000040000000400000004000000040000000402121212121212121"> : tensor<152xi8>
// CHECK-NEXT: bufferization.to_buffer %[[W]] read_only : tensor<152xi8> to memref<152xi8>
// CHECK-NEXT: arith.constant dense<[0, 6, 1, 1, 0, 0, 6, 0, 2, 48, 96, 4, 0, 1, 144, 144, 3, 0, 2, 192, 0, 288, 0, 288]> : tensor<24xi32>
// CHECK-NEXT: bufferization.to_buffer
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant -2 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: arith.constant -128 : i32
// CHECK-NEXT: arith.constant 127 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 288 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 368 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 400 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 432 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 152 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 448 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 448 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_dwconv2d_x4_t1, operandSegmentSizes = array<i32: 36, 1>}
// CHECK: func.func private @tynnp_dwconv2d_x4_t1(
// The record's copy, the tile's copy in.
// CHECK-COUNT-2: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK-COUNT-4: ".insn r CUSTOM_2, 0, 0, $0, $1, $2"
// CHECK-COUNT-4: ".insn r CUSTOM_3, 0, 0, x0, $0, x0"
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: ".insn r CUSTOM_3, 0, 0, x0, $0, x0"
func.func private @tynnp_0(%x: tensor<1x6x6x8xi8>) -> tensor<1x6x6x8xi8> attributes {umac.composite = "tynnp.depthwise_conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<2> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
  %b = "tosa.const"() <{values = dense<9> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<-2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<33> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<4> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.depthwise_conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x6x6x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x6x8xi8>
  return %r : tensor<1x6x6x8xi8>
}

// -----

// Average pooling 3x3, stride 3, over 6x6x8 with zero points -128 and 5: ih, iw, c, oh, ow,
// kh, kw, strides, pads, zero points, int8 bounds, the output channel (no constants to copy),
// the tile buffers (input 0, output 288), one tile. The tile table: two bands of one output row
// each (the second from input row 3), all 8 channels each; the tile's copies.
// CHECK-LABEL: func.func private @tynnp_1(
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<1x6x6x8xi8> to memref<1x6x6x8xi8>
// CHECK-NEXT: arith.constant dense<[0, 6, 0, 1, 0, 8, 144, 3, 0, 1, 16, 8, 0, 288, 0, 32]> : tensor<16xi32>
// CHECK-NEXT: bufferization.to_buffer
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 6 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant -128 : i32
// CHECK-NEXT: arith.constant 5 : i32
// CHECK-NEXT: arith.constant -128 : i32
// CHECK-NEXT: arith.constant 127 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 288 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 288 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_avg_pool2d_x2_t1, operandSegmentSizes = array<i32: 25, 1>}
// CHECK: func.func private @tynnp_avg_pool2d_x2_t1(
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: ".insn r CUSTOM_2, 1, 1, $0, $1, $2"
// CHECK: ".insn r CUSTOM_2, 1, 1, $0, $1, $2"
func.func private @tynnp_1(%x: tensor<1x6x6x8xi8>) -> tensor<1x2x2x8xi8> attributes {umac.composite = "tynnp.avg_pool2d", umac.target = "tynnp"} {
  %izp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.avg_pool2d %x, %izp, %ozp {acc_type = i32, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 3, 3>} : (tensor<1x6x6x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x8xi8>
  return %p : tensor<1x2x2x8xi8>
}

// -----

// A global average pooling (5x5x40 to one pixel): fewer output rows than units, so its one tile
// is banded by channels, three bands of whole vectors of 16 lanes (16, 16, 8), each over all five
// rows, from byte 16u of the input's buffer to byte 16u of the output's (the table holds offsets
// from the buffers), its pixels 40 bytes apart (the descriptor's pitch, its last word); one tile
// copy of 1000 bytes in and 40 out.
// CHECK-LABEL: func.func private @tynnp_3(
// CHECK: arith.constant dense<[0, 5, 0, 1, 0, 16, 16, 5, 0, 1, 16, 16, 32, 5, 0, 1, 32, 8, 0, 1000, 0, 40]> : tensor<22xi32>
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_avg_pool2d_x3_t1, operandSegmentSizes = array<i32: 25, 1>}
// CHECK: func.func private @tynnp_avg_pool2d_x3_t1(
// CHECK-COUNT-3: ".insn r CUSTOM_2, 1, 1, $0, $1, $2"
func.func private @tynnp_3(%x: tensor<1x5x5x40xi8>) -> tensor<1x1x1x40xi8> attributes {umac.composite = "tynnp.avg_pool2d", umac.target = "tynnp"} {
  %izp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.avg_pool2d %x, %izp, %ozp {acc_type = i32, kernel = array<i64: 5, 5>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x40xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x40xi8>
  return %p : tensor<1x1x1x40xi8>
}

// -----

// CHECK-LABEL: func.func private @tynnp_2(
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_max_pool2d_x3_t1, operandSegmentSizes = array<i32: 25, 1>}
// CHECK: func.func private @tynnp_max_pool2d_x3_t1(
// CHECK-COUNT-3: ".insn r CUSTOM_2, 1, 0, $0, $1, $2"
func.func private @tynnp_2(%x: tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8> attributes {umac.composite = "tynnp.max_pool2d", umac.target = "tynnp"} {
  %p = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
  return %p : tensor<1x3x3x8xi8>
}
