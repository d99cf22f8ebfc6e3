// umac-slice-filters-tynnp: a convolution whose filter DM cannot hold with tiles of one output
// row (here -dm-kib=1: 48 channels of 16 inputs need 1,120 bytes) becomes convolutions on
// slices of its output channels, each with its slice of the filter, the bias and the
// per-channel scales, its rescale and clamp, joined by a tosa.concat on the channels. A slice
// takes as many channels as leave half of DM (19 here), rounded down to the NU's 16 columns.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-slice-filters-tynnp{attributes="-dm-kib=1"})' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-slice-filters-tynnp)' | FileCheck %s --check-prefix=WHOLE

// CHECK-LABEL: func.func @fc
// CHECK-DAG: %[[ZP:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK-DAG: %[[Z32:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-DAG: %[[OZP:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}>
// CHECK: %[[W0:.*]] = "tosa.const"() <{values = dense<3> : tensor<16x1x1x16xi8>}>
// CHECK-NEXT: %[[B0:.*]] = "tosa.const"() <{values = dense<[-200, -190, -180, -170, -160, -150, -140, -130, -120, -110, -100, -90, -80, -70, -60, -50]> : tensor<16xi32>}>
// CHECK-NEXT: %[[C0:.*]] = tosa.conv2d %arg0, %[[W0]], %[[B0]], %[[ZP]], %[[ZP]] {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x16xi32>
// CHECK-NEXT: %[[M0:.*]] = "tosa.const"() <{values = dense<[1073741824, 1073742824, 1073743824, 1073744824, 1073745824, 1073746824, 1073747824, 1073748824, 1073749824, 1073750824, 1073751824, 1073752824, 1073753824, 1073754824, 1073755824, 1073756824]> : tensor<16xi32>}>
// CHECK-NEXT: %[[S0:.*]] = "tosa.const"() <{values = dense<[36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39]> : tensor<16xi8>}>
// CHECK-NEXT: %[[R0:.*]] = tosa.rescale %[[C0]], %[[M0]], %[[S0]], %[[Z32]], %[[OZP]] {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x1x1x16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x16xi8>
// CHECK-NEXT: %[[P0:.*]] = tosa.clamp %[[R0]] {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x1x1x16xi8>) -> tensor<1x1x1x16xi8>
// CHECK: %[[B1:.*]] = "tosa.const"() <{values = dense<[-40, -30, -20, -10, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]> : tensor<16xi32>}>
// CHECK: %[[M1:.*]] = "tosa.const"() <{values = dense<[1073757824, 1073758824, 1073759824, 1073760824, 1073761824, 1073762824, 1073763824, 1073764824, 1073765824, 1073766824, 1073767824, 1073768824, 1073769824, 1073770824, 1073771824, 1073772824]> : tensor<16xi32>}>
// CHECK: %[[P1:.*]] = tosa.clamp
// CHECK: %[[B2:.*]] = "tosa.const"() <{values = dense<[120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220, 230, 240, 250, 260, 270]> : tensor<16xi32>}>
// CHECK: %[[S2:.*]] = "tosa.const"() <{values = dense<[36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39]> : tensor<16xi8>}>
// CHECK: %[[P2:.*]] = tosa.clamp
// CHECK-NEXT: %[[ALL:.*]] = tosa.concat %[[P0]], %[[P1]], %[[P2]] {axis = 3 : i32} : (tensor<1x1x1x16xi8>, tensor<1x1x1x16xi8>, tensor<1x1x1x16xi8>) -> tensor<1x1x1x48xi8>
// CHECK-NEXT: return %[[ALL]]
// CHECK-NOT: tensor<48x1x1x16xi8>
// CHECK-NOT: tosa.conv2d
// Without the attribute (256 KiB of DM) it fits: unchanged.
// WHOLE-LABEL: func.func @fc
// WHOLE: tosa.conv2d {{.*}} -> tensor<1x1x1x48xi32>
// WHOLE-NOT: tosa.concat
func.func @fc(%x: tensor<1x1x1x16xi8>) -> tensor<1x1x1x48xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<48x1x1x16xi8>}> : () -> tensor<48x1x1x16xi8>
  %b = "tosa.const"() <{values = dense<[-200, -190, -180, -170, -160, -150, -140, -130, -120, -110, -100, -90, -80, -70, -60, -50, -40, -30, -20, -10, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220, 230, 240, 250, 260, 270]> : tensor<48xi32>}> : () -> tensor<48xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<[1073741824, 1073742824, 1073743824, 1073744824, 1073745824, 1073746824, 1073747824, 1073748824, 1073749824, 1073750824, 1073751824, 1073752824, 1073753824, 1073754824, 1073755824, 1073756824, 1073757824, 1073758824, 1073759824, 1073760824, 1073761824, 1073762824, 1073763824, 1073764824, 1073765824, 1073766824, 1073767824, 1073768824, 1073769824, 1073770824, 1073771824, 1073772824, 1073773824, 1073774824, 1073775824, 1073776824, 1073777824, 1073778824, 1073779824, 1073780824, 1073781824, 1073782824, 1073783824, 1073784824, 1073785824, 1073786824, 1073787824, 1073788824]> : tensor<48xi32>}> : () -> tensor<48xi32>
  %s = "tosa.const"() <{values = dense<[36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39, 36, 37, 38, 39]> : tensor<48xi8>}> : () -> tensor<48xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x16xi8>, tensor<48x1x1x16xi8>, tensor<48xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x48xi32>
  %1 = tosa.rescale %0, %m, %s, %z32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x1x1x48xi32>, tensor<48xi32>, tensor<48xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x48xi8>
  %2 = tosa.clamp %1 {max_val = 127 : i8, min_val = -128 : i8} : (tensor<1x1x1x48xi8>) -> tensor<1x1x1x48xi8>
  return %2 : tensor<1x1x1x48xi8>
}

// -----

// A per-tensor scale and no clamp (a fully connected layer as the converter writes it, its filter
// a reshape of a constant): the bias is sliced, the one multiplier and shift serve every slice;
// the reshape and the constant behind it go with the convolution.
// CHECK-LABEL: func.func @per_tensor
// CHECK-DAG: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-DAG: %[[S:.*]] = "tosa.const"() <{values = dense<38> : tensor<1xi8>}>
// CHECK: %[[C0:.*]] = tosa.conv2d {{.*}} -> tensor<1x1x1x16xi32>
// CHECK-NEXT: %[[R0:.*]] = tosa.rescale %[[C0]], %[[M]], %[[S]], {{.*}} -> tensor<1x1x1x16xi8>
// CHECK: %[[C1:.*]] = tosa.conv2d {{.*}} -> tensor<1x1x1x16xi32>
// CHECK-NEXT: %[[R1:.*]] = tosa.rescale %[[C1]], %[[M]], %[[S]], {{.*}} -> tensor<1x1x1x16xi8>
// CHECK: %[[C2:.*]] = tosa.conv2d {{.*}} -> tensor<1x1x1x16xi32>
// CHECK-NEXT: %[[R2:.*]] = tosa.rescale %[[C2]], %[[M]], %[[S]], {{.*}} -> tensor<1x1x1x16xi8>
// CHECK-NEXT: %[[ALL:.*]] = tosa.concat %[[R0]], %[[R1]], %[[R2]] {axis = 3 : i32}
// CHECK-NEXT: return %[[ALL]]
// CHECK-NOT: tosa.reshape
// CHECK-NOT: tensor<48x16xi8>
func.func @per_tensor(%x: tensor<1x1x1x16xi8>) -> tensor<1x1x1x48xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<48x16xi8>}> : () -> tensor<48x16xi8>
  %shape = tosa.const_shape {values = dense<[48, 1, 1, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %w4 = tosa.reshape %w, %shape : (tensor<48x16xi8>, !tosa.shape<4>) -> tensor<48x1x1x16xi8>
  %b = "tosa.const"() <{values = dense<[-200, -190, -180, -170, -160, -150, -140, -130, -120, -110, -100, -90, -80, -70, -60, -50, -40, -30, -20, -10, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220, 230, 240, 250, 260, 270]> : tensor<48xi32>}> : () -> tensor<48xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.conv2d %x, %w4, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x16xi8>, tensor<48x1x1x16xi8>, tensor<48xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x48xi32>
  %1 = tosa.rescale %0, %m, %s, %z32, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x1x1x48xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x48xi8>
  return %1 : tensor<1x1x1x48xi8>
}

// -----

// Not even one output channel fits (a row of 64 input pixels of 16 channels, twice, is 2 KiB):
// unchanged, and umac-tile-tynnp's error names the sizes.
// CHECK-LABEL: func.func @rows_too_wide
// CHECK: tosa.conv2d {{.*}} -> tensor<1x4x64x48xi32>
// CHECK-NOT: tosa.concat
func.func @rows_too_wide(%x: tensor<1x4x64x16xi8>) -> tensor<1x4x64x48xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<48x1x1x16xi8>}> : () -> tensor<48x1x1x16xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x64x16xi8>, tensor<48x1x1x16xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x64x48xi32>
  %1 = tosa.rescale %0, %m, %s, %z32, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x64x48xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x64x48xi8>
  return %1 : tensor<1x4x64x48xi8>
}
