// umac-legalize-tynnp keeps activations in DM between kernels: a kernel whose output only later
// kernels of the function read (the partitioner's return of it read by no caller) leaves it in
// DM where the function's DM plan puts it (apart from the own regions of every kernel it lives
// across), and those kernels read it from there. The in_dm and out_dm arguments (after the output stage and the output channel)
// carry the addresses, 0 for a tensor in DDR.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-overlap=false}},umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s
// The calls, their DM addresses folded once placed: their constants named by value.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-overlap=false}},umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm,canonicalize)' | FileCheck %s --check-prefix=MODEL
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-primitives-tynnp{attributes="-pack-pixels=false"},umac-legalize-tynnp{attributes={-fuse=false -overlap=false}},umac-double-buffer-tynnp,umac-allocate-dm-tynnp,umac-specialize-tynnp,umac-convert-tynnp-to-llvm)' | FileCheck %s --check-prefix=OFF

// conv -> depthwise -> max pool: the convolution leaves its output in DM (A), its jobs writing it
// there in place (`_wo`), the depthwise convolution reads it there in place (`_rx`, nothing copied
// in) and leaves its own elsewhere (B) likewise, in one tile as it copies nothing, the pooling
// reads that in place and writes DDR.
// CHECK-LABEL: func.func private @tynnp_0(
// MODEL-LABEL: func.func private @tynnp_0(
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c[[A:[1-9][0-9]*]]_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_pf_t4
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[A]]_i32, %c[[B:[1-9][0-9]*]]_i32{{.*}}callee = @tynnp_dwconv2d_x4_rx_wo_pl_t1
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[B]]_i32, %c0_i32{{.*}}callee = @tynnp_max_pool2d_x4_rx_t1
// With -fuse=false every tensor is in DDR.
// OFF-LABEL: func.func private @tynnp_0(
// OFF: arith.constant 127 : i32
// OFF-NEXT: arith.constant 1 : i32
// OFF-NEXT: arith.constant 0 : i32
// OFF-NEXT: arith.constant 0 : i32
// OFF: arith.constant 127 : i32
// OFF-NEXT: arith.constant 1 : i32
// OFF-NEXT: arith.constant 0 : i32
// OFF-NEXT: arith.constant 0 : i32
// OFF: arith.constant 127 : i32
// OFF-NEXT: arith.constant 1 : i32
// OFF-NEXT: arith.constant 0 : i32
// OFF-NEXT: arith.constant 0 : i32
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

// The caller reads the convolution's result (the partitioner returned it): it goes to DDR.
// CHECK-LABEL: func.func @caller(
// CHECK-LABEL: func.func private @tynnp_1(
// MODEL-LABEL: func.func private @tynnp_1(
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c0_i32{{.*}}callee = @tynnp_conv2d_folded_k3_t4
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c0_i32{{.*}}callee = @tynnp_max_pool2d_x4_t1
func.func @caller(%x: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x8xi8>, tensor<1x4x4x8xi8>) {
  %0:2 = call @tynnp_1(%x) : (tensor<1x8x8x4xi8>) -> (tensor<1x8x8x8xi8>, tensor<1x4x4x8xi8>)
  return %0#0, %0#1 : tensor<1x8x8x8xi8>, tensor<1x4x4x8xi8>
}
func.func private @tynnp_1(%x: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x8xi8>, tensor<1x4x4x8xi8>) attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  %p = tosa.max_pool2d %r {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  return %r, %p : tensor<1x8x8x8xi8>, tensor<1x4x4x8xi8>
}

// -----

// Another kernel (the pooling of %y) runs between the convolution and its consumer: the
// convolution's output stays in DM across it (C; the function's DM plan keeps the pooling's
// regions apart from it), and the pooling of %r reads it there.
// CHECK-LABEL: func.func private @tynnp_2(
// MODEL-LABEL: func.func private @tynnp_2(
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c[[C:[1-9][0-9]*]]_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_t4
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c0_i32{{.*}}callee = @tynnp_max_pool2d_x4{{(_pf)?}}_t1,
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[C]]_i32, %c0_i32{{.*}}callee = @tynnp_max_pool2d_x4_rx_t1,
func.func private @tynnp_2(%x: tensor<1x8x8x4xi8>, %y: tensor<1x8x8x8xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  %q = tosa.max_pool2d %y {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  %p = tosa.max_pool2d %r {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  return %q, %p : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>
}

// -----

// The pooling of %y comes after the second convolution's root but before its rescale, where that
// kernel's call goes: it runs between the two convolutions, and the first one's output stays in
// DM across it (C) for the second.
// CHECK-LABEL: func.func private @tynnp_3(
// MODEL-LABEL: func.func private @tynnp_3(
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c[[C:[1-9][0-9]*]]_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_t4
// CHECK: callee = @tynnp_max_pool2d_x4{{(_pf)?}}_t1,
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[C]]_i32, %c0_i32{{.*}}callee = @tynnp_conv2d_rx_pl_t4,
func.func private @tynnp_3(%x: tensor<1x8x8x4xi8>, %y: tensor<1x8x8x8xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x8x8x8xi8>) attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
  %w1 = "tosa.const"() <{values = dense<1> : tensor<8x1x1x8xi8>}> : () -> tensor<8x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  %c2 = tosa.conv2d %r, %w1, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<8x1x1x8xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %q = tosa.max_pool2d %y {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  %r2 = tosa.rescale %c2, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  return %q, %r2 : tensor<1x4x4x8xi8>, tensor<1x8x8x8xi8>
}

// -----

// A primitive add reading the convolution before it as its second operand (y): the
// convolution leaves its output in DM (out_dm after in_dm 0) and the add reads y there in place
// (`_ry`; in_dm_y, after its in_dm and out_dm 0), x from DDR.
// CHECK-LABEL: func.func private @tynnp_0(
// MODEL-LABEL: func.func private @tynnp_0(
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c[[Y:[1-9][0-9]*]]_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_pf_t4
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c0_i32, %c[[Y]]_i32{{.*}}callee = @tynnp_add_x4_ry_pl_t2
// OFF-LABEL: func.func private @tynnp_0(
func.func @main(%x: tensor<1x8x8x4xi8>, %s: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %0:2 = call @tynnp_0(%x, %s) : (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>)
  return %0#1 : tensor<1x8x8x4xi8>
}
func.func private @tynnp_0(%x: tensor<1x8x8x4xi8>, %skip: tensor<1x8x8x4xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>) attributes {umac.composite = "tynnp.conv2d,tynnp.add", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x4xi8>}> : () -> tensor<4x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %sh = "tosa.const"() <{values = dense<36> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %sh) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 5 : i64, max = 127 : i64, min = -128 : i64, out_flags = 2 : i64, output_zp = -3 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %om = "tosa.const"() <{values = dense<1098017566> : tensor<1xi32>}> : () -> tensor<1xi32>
  %os = "tosa.const"() <{values = dense<48> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = "tynnp.add"(%skip, %c, %om, %os) {max = 127 : i64, min = -128 : i64, out_flags = 2 : i64, output_zp = -128 : i64, x_left_shift = 20 : i64, x_multiplier = 0 : i64, x_shift = 0 : i64, x_zp = -128 : i64, y_left_shift = 20 : i64, y_multiplier = 0 : i64, y_shift = 0 : i64, y_zp = -3 : i64} : (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %c, %r : tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>
}

// -----

// Two poolings read the convolution's output: it stays in DM (C) until the second has read it,
// and both read it there in place.
// CHECK-LABEL: func.func private @tynnp_5(
// MODEL-LABEL: func.func private @tynnp_5(
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c0_i32, %c[[C:[1-9][0-9]*]]_i32{{.*}}callee = @tynnp_conv2d_folded_k4_wo_t4
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[C]]_i32, %c0_i32{{.*}}callee = @tynnp_max_pool2d_x4_rx_t1,
// MODEL: "umac.call_extern"({{.*}}%c127_i32, %c1_i32, %c[[C]]_i32, %c0_i32{{.*}}callee = @tynnp_max_pool2d_x4_rx_t1_2,
func.func private @tynnp_5(%x: tensor<1x8x8x4xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) attributes {umac.composite = "tynnp.conv2d", umac.target = "tynnp"} {
  %w = "tosa.const"() <{values = dense<3> : tensor<8x3x3x4xi8>}> : () -> tensor<8x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<8xi8>}> : () -> tensor<8xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<8x3x3x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  %p = tosa.max_pool2d %r {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  %q = tosa.max_pool2d %r {kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xi8>) -> tensor<1x4x4x8xi8>
  return %p, %q : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>
}
