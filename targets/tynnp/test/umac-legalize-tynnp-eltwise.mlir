// umac-partition and umac-legalize-tynnp on TFLite's quantized ADD as the converter writes it
// (from the IC model: x rescaled by 2^30 >> 10 then by its multiplier, y by 2^30 >> 11, the
// int32 add, the rescale to int8 and the clamp): all six ops are one tynnp.add composite, and
// legalization calls @tynnp_add_x4 (specialized for its tiles: @tynnp_add_x4_t2; vu.eltwise: custom-2, funct3 2, funct7 0; the 128
// elements in two double-buffered tiles of 64, each in four bands of 16, one per vector unit)
// with the left shifts 20 and 19 taken from the power-of-two rescales. A leading tosa.slice in front of a stride-2
// convolution that reads nothing past it joins the convolution's composite, which reads the
// whole tensor; one whose convolution reads its bottom padding stays on the CPU.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp})' | FileCheck %s --check-prefix=PART
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp,umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s

// PART-LABEL: func.func @add(
// PART-NOT: tosa.rescale
// PART: %[[R:.*]] = call @tynnp_0(%arg0, %arg1)
// PART-NEXT: return %[[R]]
// PART: func.func private @tynnp_0({{.*}}) -> tensor<1x4x4x8xi8> attributes {umac.composite = "tynnp.add", umac.target = "tynnp"}
// PART-COUNT-3: tosa.rescale
// PART: tosa.add
// PART: tosa.rescale
// PART: tosa.clamp
// CHECK-LABEL: func.func private @tynnp_0(
// The call: x, y and the record of the output multiplier (1098017566, little endian) and, from
// the next 16-byte boundary, its shift (48); x_zp, x_left_shift, x_multiplier, x_shift, the
// same for y (no multiplier: 0, 0), count, OUT flags (double round), output zero point, bounds;
// the output channel 1; x, the output and y in DDR (0, 0, 0: none kept in DM); the DM
// addresses of the multiplier and shift (after x tiles 2 x 64 B
// and y tiles 2 x 64, 16-byte aligned) and the record's bytes; then the tile buffers of x (0,
// 64), y (128, 192) and the output (288, 352: after the record), two tiles. The tile table:
// each band's x, y and output offsets in the tile's buffers and its count, the four bands of a
// tile 16 elements apart, then the tile's copies (from element 0, then 64, 64 bytes).
// CHECK: %[[W:.*]] = arith.constant dense<[30, 107, 114, 65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 48]> : tensor<17xi8>
// CHECK-NEXT: bufferization.to_buffer %[[W]] read_only : tensor<17xi8> to memref<17xi8>
// CHECK-NEXT: arith.constant dense<[0, 0, 0, 16, 16, 16, 16, 16, 32, 32, 32, 16, 48, 48, 48, 16, 0, 64, 0, 64, 0, 0, 0, 16, 16, 16, 16, 16, 32, 32, 32, 16, 48, 48, 48, 16, 64, 64, 64, 64]> : tensor<40xi32>
// CHECK: arith.constant -128 : i32
// CHECK-NEXT: arith.constant 20 : i32
// CHECK-NEXT: arith.constant 1623821475 : i32
// CHECK-NEXT: arith.constant 33 : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: arith.constant 19 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 128 : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK-NEXT: arith.constant -128 : i32
// CHECK-NEXT: arith.constant -128 : i32
// CHECK-NEXT: arith.constant 127 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 272 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 17 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 64 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 128 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 192 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 288 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 352 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.constant 2 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_add_x4_t2, operandSegmentSizes = array<i32: 31, 1>}
// CHECK-NOT: tosa.
// CHECK: func.func private @tynnp_add_x4_t2(
// The record's copy; then per tile its x and y copied in, its four bands, and from the second
// tile on the CU waiting for the tile before's bands and copying their output out; after the
// loop, the last tile's, and the wait for that copy.
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: scf.for
// CHECK-COUNT-2: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK-COUNT-4: ".insn r CUSTOM_2, 2, 0, $0, $1, $2"
// CHECK: scf.if
// CHECK-COUNT-4: ".insn r CUSTOM_3, 0, 0, x0, $0, x0"
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: } else {
// CHECK: scf.yield
// CHECK-COUNT-4: ".insn r CUSTOM_3, 0, 0, x0, $0, x0"
// CHECK: ".insn r CUSTOM_0, 0, 0, $0, $1, $2"
// CHECK: ".insn r CUSTOM_3, 0, 0, x0, $0, x0"
// CHECK-NOT: CUSTOM_
// CHECK: return
func.func @add(%x: tensor<1x4x4x8xi8>, %y: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %pow = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s10 = "tosa.const"() <{values = dense<10> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s11 = "tosa.const"() <{values = dense<11> : tensor<1xi8>}> : () -> tensor<1xi8>
  %xm = "tosa.const"() <{values = dense<1623821475> : tensor<1xi32>}> : () -> tensor<1xi32>
  %xs = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %om = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}> : () -> tensor<1xi32>
  %os = "tosa.const"() <{values = dense<48> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %xzp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %yzp = "tosa.const"() <{values = dense<4> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a0 = tosa.rescale %x, %pow, %s10, %xzp, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %a1 = tosa.rescale %a0, %xm, %xs, %z32, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %b0 = tosa.rescale %y, %pow, %s11, %yzp, %z32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %a1, %b0 : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %r = tosa.rescale %sum, %om, %os, %z32, %xzp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
  return %k : tensor<1x4x4x8xi8>
}

// -----

// A 1x1 stride-2 convolution over the leading 3x3 of a 4x4 input reads rows and columns 0 and
// 2 only: the slice joins the composite and the job reads the whole 4x4x8 tensor (ih = iw = 4).
// PART-LABEL: func.func @slice(
// PART-NOT: tosa.slice
// PART: call @tynnp_0(%arg0)
// PART: func.func private @tynnp_0(%{{.*}}: tensor<1x4x4x8xi8>) -> tensor<1x2x2x4xi32> attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"}
// PART: tosa.slice
// PART: tosa.conv2d
// CHECK-LABEL: func.func private @tynnp_0(
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<1x4x4x8xi8> to memref<1x4x4x8xi8>
// CHECK: arith.constant 4 : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: arith.constant 8 : i32
// CHECK: "umac.call_extern"({{.*}}) {callee = @tynnp_conv2d_t2,
func.func @slice(%x: tensor<1x4x4x8xi8>) -> tensor<1x2x2x4xi32> {
  %start = tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 3, 3, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s = tosa.slice %x, %start, %size : (tensor<1x4x4x8xi8>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x3x8xi8>
  %w = "tosa.const"() <{values = dense<1> : tensor<4x1x1x8xi8>}> : () -> tensor<4x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %s, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x3x3x8xi8>, tensor<4x1x1x8xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x4xi32>
  return %c : tensor<1x2x2x4xi32>
}

// -----

// With bottom and right padding 1, a 3x3 stride-2 convolution over the 3x3 slice reads its
// padding (rows and columns 3), which the whole tensor would replace by data: the slice stays
// on the CPU and the convolution alone is claimed.
// PART-LABEL: func.func @padded(
// PART: %[[S:.*]] = tosa.slice %arg0
// PART: call @tynnp_0(%[[S]])
// PART: func.func private @tynnp_0(%{{.*}}: tensor<1x3x3x8xi8>)
// PART-NOT: tosa.slice
// PART: tosa.conv2d
func.func @padded(%x: tensor<1x4x4x8xi8>) -> tensor<1x2x2x4xi32> {
  %start = tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 3, 3, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s = tosa.slice %x, %start, %size : (tensor<1x4x4x8xi8>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x3x3x8xi8>
  %w = "tosa.const"() <{values = dense<1> : tensor<4x3x3x8xi8>}> : () -> tensor<4x3x3x8xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %s, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x3x8xi8>, tensor<4x3x3x8xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x4xi32>
  return %c : tensor<1x2x2x4xi32>
}
