// The tynnp ops' verifier: types, shapes, attributes and the hardware contract's limits
// (targets/tynnp/docs/isa.md, section 5), each a located error at the op.
// RUN: umac-opt %s --split-input-file --verify-diagnostics

func.func @filter_channels(%x: tensor<1x8x8x4xi8>, %w: tensor<4x3x3x5xi8>, %b: tensor<4xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x8x8x4xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op has a filter [oc, kh, kw, ic] of tensor<4x3x3x5xi8> for 4 input channels}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x3x5xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %c : tensor<1x8x8x4xi8>
}

// -----

func.func @bias(%x: tensor<1x8x8x4xi8>, %w: tensor<4x3x3x4xi8>, %b: tensor<5xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x8x8x4xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op needs a bias of 4 elements, got tensor<5xi32>}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<5xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %c : tensor<1x8x8x4xi8>
}

// -----

func.func @attribute(%x: tensor<1x8x8x4xi8>, %w: tensor<4x3x3x4xi8>, %b: tensor<4xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x8x8x4xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op needs the integer attribute 'stride_y'}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %c : tensor<1x8x8x4xi8>
}

// -----

// Raw accumulators are int32.
func.func @raw(%x: tensor<1x8x8x4xi8>, %w: tensor<4x3x3x4xi8>, %b: tensor<4xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x8x8x4xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op needs i32 elements in the result, got tensor<1x8x8x4xi8>}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 4 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %c : tensor<1x8x8x4xi8>
}

// -----

// Per-channel scales (out_flags bit 0) need one per output channel.
func.func @per_channel(%x: tensor<1x8x8x4xi8>, %w: tensor<3x3x4x2xi8>, %b: tensor<8xi32>, %m: tensor<4xi32>, %s: tensor<4xi8>) -> tensor<1x8x8x8xi8> {
  // expected-error @+1 {{'tynnp.depthwise_conv2d' op needs 8 output scale elements (per channel), got tensor<4xi32>}}
  %c = "tynnp.depthwise_conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 1 : i64, output_zp = 0 : i64, pad_left = 1 : i64, pad_top = 1 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<3x3x4x2xi8>, tensor<8xi32>, tensor<4xi32>, tensor<4xi8>) -> tensor<1x8x8x8xi8>
  return %c : tensor<1x8x8x8xi8>
}

// -----

// The contract's output stage: shifts of 2 to 62 (checked when the shifts are constants).
func.func @shift(%x: tensor<1x8x8x4xi8>, %w: tensor<4x1x1x4xi8>, %b: tensor<4xi32>) -> tensor<1x8x8x4xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<63> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'tynnp.conv2d' op has output multiplier 1073741824 and output shift 63; the contract needs a multiplier of 0 to 2^31-1 and a shift of 2 to 62}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %c : tensor<1x8x8x4xi8>
}

// -----

// The NU accumulates exactly in int32 only while kh·kw·ic·255·255 < 2^31.
func.func @overflow(%x: tensor<1x1x1x33026xi8>, %w: tensor<1x1x1x33026xi8>, %b: tensor<1xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x1x1x1xi32> {
  // expected-error @+1 {{'tynnp.conv2d' op sums 33026 products per output, which may overflow int32 (at most 33025)}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 4 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x1x1x33026xi8>, tensor<1x1x1x33026xi8>, tensor<1xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x1xi32>
  return %c : tensor<1x1x1x1xi32>
}

// -----

func.func @clamp(%x: tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8> {
  // expected-error @+1 {{'tynnp.max_pool2d' op clamps to [10, 5]; the contract needs -128 <= min <= max <= 127}}
  %p = "tynnp.max_pool2d"(%x) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 5 : i64, min = 10 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
  return %p : tensor<1x3x3x8xi8>
}

// -----

func.func @window(%x: tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8> {
  // expected-error @+1 {{'tynnp.avg_pool2d' op has pad_top 2 for a window of 2: a window would hold only padding}}
  %p = "tynnp.avg_pool2d"(%x) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 2 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>
  return %p : tensor<1x3x3x8xi8>
}

// -----

func.func @left_shift(%x: tensor<64xi8>, %y: tensor<64xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<64xi8> {
  // expected-error @+1 {{'tynnp.add' op has y_left_shift 31; the unit shifts by 0 to 30}}
  %r = "tynnp.add"(%x, %y, %m, %s) {max = 127 : i64, min = -128 : i64, out_flags = 2 : i64, output_zp = 0 : i64, x_left_shift = 20 : i64, x_multiplier = 0 : i64, x_shift = 0 : i64, x_zp = 0 : i64, y_left_shift = 31 : i64, y_multiplier = 0 : i64, y_shift = 0 : i64, y_zp = 0 : i64} : (tensor<64xi8>, tensor<64xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<64xi8>
  return %r : tensor<64xi8>
}

// -----

func.func @shapes(%x: tensor<64xi8>, %y: tensor<32xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<64xi8> {
  // expected-error @+1 {{'tynnp.sub' op needs y of the result's shape tensor<64xi8>, got tensor<32xi8>}}
  %r = "tynnp.sub"(%x, %y, %m, %s) {max = 127 : i64, min = -128 : i64, out_flags = 2 : i64, output_zp = 0 : i64, x_left_shift = 20 : i64, x_multiplier = 0 : i64, x_shift = 0 : i64, x_zp = 0 : i64, y_left_shift = 20 : i64, y_multiplier = 0 : i64, y_shift = 0 : i64, y_zp = 0 : i64} : (tensor<64xi8>, tensor<32xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<64xi8>
  return %r : tensor<64xi8>
}

// -----

func.func @table(%x: tensor<16xi16>, %t: tensor<256xi16>) -> tensor<16xi32> {
  // expected-error @+1 {{'tynnp.table' op needs a table of 513 entries for i16 input, got tensor<256xi16>}}
  %r = "tynnp.table"(%x, %t) : (tensor<16xi16>, tensor<256xi16>) -> tensor<16xi32>
  return %r : tensor<16xi32>
}

// -----

func.func @operands(%x: tensor<16xi8>) -> tensor<16xi8> {
  // expected-error @+1 {{'tynnp.table' op takes 2 operands and gives one result}}
  %r = "tynnp.table"(%x) : (tensor<16xi8>) -> tensor<16xi8>
  return %r : tensor<16xi8>
}

// -----

func.func @unknown(%x: tensor<16xi8>) -> tensor<16xi8> {
  // expected-error @+1 {{custom op 'tynnp.mul' is unknown}}
  %r = tynnp.mul %x : tensor<16xi8>
  return %r : tensor<16xi8>
}

// -----

// An instruction op takes the descriptor's address, the unit and every word of its descriptor.
func.func @words(%d: !llvm.ptr, %w: i32) -> i32 {
  // expected-error @+1 {{'tynnp.vu_table' op takes the descriptor's address (!llvm.ptr), the unit and the descriptor's 6 words (i32), and gives a token}}
  %t = "tynnp.vu_table"(%d, %w, %w, %w, %w, %w, %w) : (!llvm.ptr, i32, i32, i32, i32, i32, i32) -> i32
  return %t : i32
}

// -----

func.func @funct7(%d: !llvm.ptr, %w: i32) -> i32 {
  // expected-error @+1 {{'tynnp.vu_pool' op has funct7 2; this instruction takes 0 to 1}}
  %t = "tynnp.vu_pool"(%d, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w, %w) {funct7 = 2 : i64} : (!llvm.ptr, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32
  return %t : i32
}

// -----

func.func @wait(%t: i64) {
  // expected-error @+1 {{'tynnp.wait' op takes one i32 token and gives nothing}}
  "tynnp.wait"(%t) : (i64) -> ()
  return
}

// -----

func.func @huge(%x: tensor<1x65536x65536x1xi8>) -> tensor<1x65536x65536x1xi8> {
  // expected-error @+1 {{'tynnp.max_pool2d' op has tensor<1x65536x65536x1xi8> with more elements than 32-bit sizes count}}
  %p = "tynnp.max_pool2d"(%x) {input_zp = 0 : i64, kh = 1 : i64, kw = 1 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x65536x65536x1xi8>) -> tensor<1x65536x65536x1xi8>
  return %p : tensor<1x65536x65536x1xi8>
}

// -----

// The contract's poolings need an input element in every window: four output rows of stride 2
// over 6 rows start the last window at row 6.
func.func @pool_windows(%x: tensor<1x6x6x8xi8>) -> tensor<1x4x3x8xi8> {
  // expected-error @+1 {{'tynnp.max_pool2d' op gives 4 output rows from 6 input rows (stride_y 2, pad_top 0): a window would read no input row}}
  %p = "tynnp.max_pool2d"(%x) {input_zp = 0 : i64, kh = 2 : i64, kw = 2 : i64, max = 127 : i64, min = -128 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, stride_x = 2 : i64, stride_y = 2 : i64} : (tensor<1x6x6x8xi8>) -> tensor<1x4x3x8xi8>
  return %p : tensor<1x4x3x8xi8>
}

// -----

// A convolution whose every window lies in the top padding reads nothing.
func.func @conv_windows(%x: tensor<1x8x8x4xi8>, %w: tensor<4x1x1x4xi8>, %b: tensor<4xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x1x8x4xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op gives 1 output rows from 8 input rows (stride_y 1, pad_top 3): a window would read no input row}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 3 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x8x4xi8>
  return %c : tensor<1x1x8x4xi8>
}

// -----

// Packed output pixels: the job's output channels are the filter's, P per output pixel's.
func.func @packed_channels(%x: tensor<1x4x4x1xi8>, %w: tensor<8x1x4x1xi8>, %b: tensor<8xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x4x2x8xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op gives 16 channels (2 pixels packed) where its filter makes 8}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, pixels = 2 : i64, stride_x = 4 : i64, stride_y = 1 : i64} : (tensor<1x4x4x1xi8>, tensor<8x1x4x1xi8>, tensor<8xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x2x8xi8>
  return %c : tensor<1x4x2x8xi8>
}

// -----

// Packed pixels come in whole groups, at the group's stride.
func.func @packed_groups(%x: tensor<1x4x6x1xi8>, %w: tensor<16x1x4x1xi8>, %b: tensor<16xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x4x3x8xi8> {
  // expected-error @+1 {{'tynnp.conv2d' op packs 2 pixels with stride_x 4 and dilation_x 1 into 3 output columns; packing needs whole groups, a stride of the group's and dilation_x 1}}
  %c = "tynnp.conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, pixels = 2 : i64, stride_x = 4 : i64, stride_y = 1 : i64} : (tensor<1x4x6x1xi8>, tensor<16x1x4x1xi8>, tensor<16xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x3x8xi8>
  return %c : tensor<1x4x3x8xi8>
}

// -----

// Only the NU's convolution packs pixels.
func.func @packed_depthwise(%x: tensor<1x4x4x8xi8>, %w: tensor<1x1x8x1xi8>, %b: tensor<8xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>) -> tensor<1x4x4x8xi8> {
  // expected-error @+1 {{'tynnp.depthwise_conv2d' op has pixels 2; only a tynnp.conv2d packs pixels, 1 or more}}
  %c = "tynnp.depthwise_conv2d"(%x, %w, %b, %m, %s) {dilation_x = 1 : i64, dilation_y = 1 : i64, filter_zp = 0 : i64, input_zp = 0 : i64, max = 127 : i64, min = -128 : i64, out_flags = 0 : i64, output_zp = 0 : i64, pad_left = 0 : i64, pad_top = 0 : i64, pixels = 2 : i64, stride_x = 1 : i64, stride_y = 1 : i64} : (tensor<1x4x4x8xi8>, tensor<1x1x8x1xi8>, tensor<8xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %c : tensor<1x4x4x8xi8>
}

// -----

// tynnp.dm is the whole of DM: bytes in DM's memory space.
func.func @dm_of_words() {
  // expected-error @+1 {{'tynnp.dm' op takes nothing and gives DM as a memref<Nxi8, "tynnp.dm"> (N bytes)}}
  %dm = "tynnp.dm"() : () -> memref<64xi32, "tynnp.dm">
  return
}

// -----

func.func @dm_in_ddr() {
  // expected-error @+1 {{'tynnp.dm' op takes nothing and gives DM as a memref<Nxi8, "tynnp.dm"> (N bytes)}}
  %dm = "tynnp.dm"() : () -> memref<256xi8>
  return
}

// -----

// tynnp.dma copies memrefs of the same shape and element type, up to three dimensions with
// static strides and contiguous rows, between DDR and DM.
func.func @dma_shapes(%d: !llvm.ptr, %t: i32, %a: memref<4x8xi8>, %b: memref<8x4xi8, "tynnp.dm">) {
  // expected-error @+1 {{'tynnp.dma' op copies memref<4x8xi8> to memref<8x4xi8, "tynnp.dm">: not the same shape and element type}}
  %c = "tynnp.dma"(%d, %t, %t, %t, %a, %b) : (!llvm.ptr, i32, i32, i32, memref<4x8xi8>, memref<8x4xi8, "tynnp.dm">) -> i32
  return
}

// -----

func.func @dma_elements(%d: !llvm.ptr, %t: i32, %a: memref<32xi8>, %b: memref<32xui8, "tynnp.dm">) {
  // expected-error @+1 {{'tynnp.dma' op copies memref<32xi8> to memref<32xui8, "tynnp.dm">: not the same shape and element type}}
  %c = "tynnp.dma"(%d, %t, %t, %t, %a, %b) : (!llvm.ptr, i32, i32, i32, memref<32xi8>, memref<32xui8, "tynnp.dm">) -> i32
  return
}

// -----

func.func @dma_rank(%d: !llvm.ptr, %t: i32, %a: memref<2x2x2x2xi8>, %b: memref<2x2x2x2xi8, "tynnp.dm">) {
  // expected-error @+1 {{'tynnp.dma' op copies one to three dimensions of at least one element, not memref<2x2x2x2xi8>}}
  %c = "tynnp.dma"(%d, %t, %t, %t, %a, %b) : (!llvm.ptr, i32, i32, i32, memref<2x2x2x2xi8>, memref<2x2x2x2xi8, "tynnp.dm">) -> i32
  return
}

// -----

func.func @dma_columns(%d: !llvm.ptr, %t: i32, %a: memref<4x1xi8, strided<[8, 2]>>, %b: memref<4x1xi8, "tynnp.dm">) {
  // expected-error @+1 {{'tynnp.dma' op copies rows of contiguous elements (the innermost stride 1 on both sides)}}
  %c = "tynnp.dma"(%d, %t, %t, %t, %a, %b) : (!llvm.ptr, i32, i32, i32, memref<4x1xi8, strided<[8, 2]>>, memref<4x1xi8, "tynnp.dm">) -> i32
  return
}

// -----

func.func @dma_space(%d: !llvm.ptr, %t: i32, %a: memref<16xi8>, %b: memref<16xi8, "tynnp.vm">) {
  // expected-error @+1 {{'tynnp.dma' op copies between DDR (the default memory space) and DM ("tynnp.dm")}}
  %c = "tynnp.dma"(%d, %t, %t, %t, %a, %b) : (!llvm.ptr, i32, i32, i32, memref<16xi8>, memref<16xi8, "tynnp.vm">) -> i32
  return
}

// -----

func.func @dma_operands(%d: !llvm.ptr, %t: i32, %a: memref<16xi8>) {
  // expected-error @+1 {{'tynnp.dma' op takes the descriptor's address (!llvm.ptr), the channel and two tokens (i32), the source and the destination (memrefs), and gives a token}}
  %c = "tynnp.dma"(%d, %t, %t, %a, %a) : (!llvm.ptr, i32, i32, memref<16xi8>, memref<16xi8>) -> i32
  return
}

// -----

func.func @dma_dynamic_strides(%d: !llvm.ptr, %t: i32, %a: memref<4x8xi8, strided<[?, 1]>>, %b: memref<4x8xi8, "tynnp.dm">) {
  // expected-error @+1 {{'tynnp.dma' op takes memrefs of static strides}}
  %c = "tynnp.dma"(%d, %t, %t, %t, %a, %b) : (!llvm.ptr, i32, i32, i32, memref<4x8xi8, strided<[?, 1]>>, memref<4x8xi8, "tynnp.dm">) -> i32
  return
}
