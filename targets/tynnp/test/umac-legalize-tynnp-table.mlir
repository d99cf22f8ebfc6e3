// umac-legalize-tynnp on TOSA table lookups: int8 through 256 entries becomes a call of
// @tynnp_table_x<n> (vu.table: custom-2, funct3 3, funct7 0), int16 to int32 through 513
// entries one of @tynnp_table16_x<n> (funct7 1), each specialized for its tiles (`_t<t>`); the elements in double-buffered tiles of
// whole vectors of 16, each in bands over the vector units; the table is the kernel's constant
// record, copied into DM once.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s

// 80 int8 elements (5 vectors) in two tiles of 48 and 32, two bands each (the second tile has
// two vectors). The record: the table's 256 bytes. The tile table, ten values a tile: each
// band's input and output offsets in the tile's buffers and its count — tile 0 [0,16) [16,48),
// tile 1 [0,16) [16,32) — then the copies: tile 0 from byte 0, 48 bytes in and out; tile 1
// from byte 48, 32 bytes. The scalars: count, the output channel, input and output in DDR (0,
// 0), the table's DM address (after two 48-byte input tiles) and bytes, the input tile buffers
// (0, 48), the output tile buffers (after the table: 352, 400), two tiles.
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: %[[T:.*]] = arith.constant dense<5> : tensor<256xi8>
// CHECK-NEXT: bufferization.to_buffer %[[T]] read_only : tensor<256xi8> to memref<256xi8>
// CHECK-NEXT: arith.constant dense<[0, 0, 16, 16, 16, 32, 0, 48, 0, 48, 0, 0, 16, 16, 16, 16, 48, 32, 48, 32]> : tensor<20xi32>
// CHECK-NEXT: bufferization.to_buffer
// CHECK-NEXT: arith.constant 80 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 96 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 48 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 352 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 400 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_table_x2_t2, operandSegmentSizes = array<i32: 14, 1>}
// CHECK-SAME: (memref<80xi8>, memref<256xi8>, memref<20xi32>, i32,
// CHECK: func.func private @tynnp_table_x2_t2(
// The table's copy, tile 0's copy in, its two bands.
// CHECK-COUNT-2: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK-COUNT-2: ".insn r CUSTOM_2, 3, 0, $0, $1, $2"
func.func private @tynnp_0(%x: tensor<80xi8>) -> tensor<80xi8> attributes {umac.composite = "tynnp.table", umac.target = "tynnp"} {
  %t = "tosa.const"() <{values = dense<5> : tensor<256xi8>}> : () -> tensor<256xi8>
  %y = tosa.table %x, %t : (tensor<80xi8>, tensor<256xi8>) -> tensor<80xi8>
  return %y : tensor<80xi8>
}

// -----

// 40 int16 elements (3 vectors) to int32 in two tiles of 32 and 8, one band each (the second
// tile has one vector): 2 bytes an element in, 4 out. The record: 513 int16 entries, 1026
// bytes. The tile table: tile 0 its band at offset 0 of its input and output buffers, 32
// elements, from byte 0, 64 bytes in, 128 out; tile 1 8 elements, from input byte 64 (16
// bytes) and output byte 128 (32 bytes). DM: input tiles of 64 bytes at 0 and 64, the table at
// 128, output tiles of 128 bytes at 1168 and 1296.
// CHECK-LABEL: func.func private @tynnp_1(
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<1026xi8> to memref<1026xi8>
// CHECK-NEXT: arith.constant dense<[0, 0, 32, 0, 64, 0, 128, 0, 0, 8, 64, 16, 128, 32]> : tensor<14xi32>
// CHECK-NEXT: bufferization.to_buffer
// CHECK-NEXT: arith.constant 40 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 128 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 1026 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 64 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 1168 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 1296 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_table16_x1_t2,
// CHECK-SAME: (memref<40xi16>, memref<1026xi8>, memref<14xi32>, i32,
// CHECK: func.func private @tynnp_table16_x1_t2(
// CHECK: ".insn r CUSTOM_2, 3, 1, $0, $1, $2"
func.func private @tynnp_1(%x: tensor<40xi16>) -> tensor<40xi32> attributes {umac.composite = "tynnp.table", umac.target = "tynnp"} {
  %t = "tosa.const"() <{values = dense<7> : tensor<513xi16>}> : () -> tensor<513xi16>
  %y = tosa.table %x, %t : (tensor<40xi16>, tensor<513xi16>) -> tensor<40xi32>
  return %y : tensor<40xi32>
}
